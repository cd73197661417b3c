"""A long chat message → the text automatic recall searches with (shared/text/salience.py),
its words weighed by their IDF in the searched corpora (their document-frequency tables,
as the search planner reads them): a word the index holds in few documents is what recall can
find, a word it does not hold cannot match at all."""

from __future__ import annotations

from shared.rank.policy import LONG_MESSAGE_SENTENCE_SHARE
from shared.rank.scoring import idf
from shared.text.salience import condense, content_stems
from shared.text.tokenizer import MAX_QUERY_CHARS, normalize
from worker.corpora import registry
from worker.db import Database
from worker.recall.plan import CORPUS_STATS_SQL, STATS_KEY, Planned, chunks, vocab_sql
from worker.recall.run import run

# The most distinct words looked up (a message at the 8,000-character chat limit holds
# about 1,000). D1 takes a compound SELECT of at most 5 terms (worker/db/port.py), so this
# is 40 statements per corpus in one batch, well inside a Worker invocation's 1,000
# queries; the words past it are weighed as if the index held none of them.
MAX_LOOKUPS = 200


async def salient_text(db: Database, text: str, text_is_stored: bool = True) -> str:
    """`text` when it is within the query limit, else its salient sentences. With
    `text_is_stored`, the message itself is in the corpus that holds the query: it is
    discounted."""
    if len(normalize(text)) <= MAX_QUERY_CHARS:
        return text
    stems = sorted(content_stems(text))[:MAX_LOOKUPS]
    planned = [Planned(STATS_KEY, CORPUS_STATS_SQL, ())]
    for corpus in registry.corpora():
        for i, chunk in enumerate(chunks(stems)):
            planned.append(Planned(("df", corpus.name, i), vocab_sql(corpus.df_table,
                                                                     len(chunk)), chunk))
    rows = await run(db, planned)
    docs = {str(r["corpus"]): int(r["docs"]) for r in rows[STATS_KEY]}
    own = 1 if text_is_stored else 0
    weights: dict[str, float] = {}
    for (step, corpus_name, _), found in rows.items():
        if step != "df":
            continue
        self_count = own if registry.by_name(corpus_name).holds_the_query else 0
        n_docs = docs.get(corpus_name, 0) - self_count
        for row in found:
            df = int(row["doc"]) - self_count
            if df > 0:
                term = str(row["term"])
                weights[term] = max(weights.get(term, 0.0), idf(n_docs, df))
    return condense(text, weights, LONG_MESSAGE_SENTENCE_SHARE)

"""The search planner (pure): a sanitised query and filters → the statements of one D1
batch. No database is needed to plan, and tests pin the SQL text it produces.

Per searched corpus: the ranked FTS rows, and the document frequency of every query stem
from the corpus's document-frequency table (for the relevance ceiling,
shared.rank.scoring). Once: the corpus sizes. A lookup is a compound SELECT of primary-key
equalities (an IN list, or a JSON array of the stems, bills D1 a row read per stem on top),
and D1 runs one of at most 5 terms (worker/db/port.py): the lookups are chunked, so any
query within the length limit plans to valid SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.text.sanitiser import SearchQuery
from worker.corpora import registry
from worker.corpora.base import Corpus, rows_read
from worker.corpora.filters import Filters
from worker.db.planned import Planned, StatementKey
from worker.db.port import MAX_BOUND_PARAMETERS, MAX_COMPOUND_SELECT

# Keys here are (step, corpus name, chunk number).
STATS_KEY: StatementKey = ("stats", "", 0)
CORPUS_STATS_SQL = "SELECT corpus, docs FROM corpus_stats"
VOCAB_LOOKUP_SQL = "SELECT term, doc FROM {table} WHERE term = ?"


def hits_key(corpus: Corpus) -> StatementKey:
    return ("hits", corpus.name, 0)


def vocab_sql(table: str, n_terms: int) -> str:
    """Document counts of n terms: one primary-key lookup each."""
    return " UNION ALL ".join([VOCAB_LOOKUP_SQL.format(table=table)] * n_terms)


def chunks(stems: Sequence[str], size: int = min(MAX_BOUND_PARAMETERS, MAX_COMPOUND_SELECT)
           ) -> list[tuple[str, ...]]:
    return [tuple(stems[i:i + size]) for i in range(0, len(stems), size)]


def _statement(corpus: Corpus, ranked: bool, whole: bool) -> str:
    if not ranked:
        return corpus.search_sql
    return corpus.whole_ranked_sql if whole else corpus.ranked_sql


def plan(query: SearchQuery, filters: Filters,
         corpora: Sequence[Corpus] | None = None, ranked: bool = False,
         model: str | None = None) -> list[Planned]:
    """`ranked`: each corpus's ranked rowids and bm25() only (the first pass of a gated
    search, worker/recall/lexical.py), not its rows; with `model` too, the ranked rows
    whole, each saying whether its unit holds a vector of `model` (a semantic mode's first
    pass, Corpus.whole_ranked_sql)."""
    stems = sorted({s for t in query.terms for s in t.stems})
    whole = ranked and model is not None
    statements = [Planned(STATS_KEY, CORPUS_STATS_SQL, ())]
    for corpus in registry.corpora() if corpora is None else corpora:
        if not filters.wants(corpus.name):
            continue
        rows = rows_read(corpus, filters)
        statements.append(Planned(hits_key(corpus),
                                  _statement(corpus, ranked, whole),
                                  (*corpus.params(query.match, rows, filters),
                                   *((model,) if whole else ()))))
        for i, chunk in enumerate(chunks(stems)):
            statements.append(Planned(("df", corpus.name, i),
                                      vocab_sql(corpus.df_table, len(chunk)), chunk))
    return statements

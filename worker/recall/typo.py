"""The typo step: query words that look misspelt, their corrections from the index's own
vocabulary (one extra D1 round trip, paid only by such queries), and the corrected query.

Two kinds of suspect, as a spelling suggester treats them:
- a word no document holds is replaced by its closest vocabulary term (shared.text.spelling);
- a rare word (in at most RARE_MAX_DOCS documents) that sits one or two edits from a far
  more frequent term is kept AND searched with that term. Without this, one stored
  misspelling ("sourdoguh" typed once in a chat) made the word "exist" for good and it
  was never corrected again; keeping the rare word still finds the message that has it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from shared.text.porter import stem
from shared.text.sanitiser import SearchQuery, Term
from shared.text.spelling import (
    MAX_CANDIDATES,
    MAX_CORRECTIONS,
    SHORT_QUERY_TERMS,
    best_correction,
    beyond,
    completion,
    correctable,
    corrected_term,
    max_distance,
    may_correct_to,
    osa_distance,
    prefix_range,
    worth_correcting,
)
from worker.corpora import registry
from worker.db import Database
from worker.recall.plan import Planned
from worker.recall.run import run

# The terms of a corpus's document-frequency table (migrations/0014) in a range, in the
# byte order fts5vocab lists them in.
VOCAB_RANGE_SQL = "SELECT term, doc FROM {table} WHERE term >= ? AND term < ? LIMIT ?"
# A word in at most this many documents may be a stored misspelling ...
RARE_MAX_DOCS = 2
# ... when a term this many times as frequent, and in at least RARE_NEIGHBOUR_MIN_DOCS
# documents, is within the typo distance of it.
RARE_NEIGHBOUR_RATIO = 3
RARE_NEIGHBOUR_MIN_DOCS = 2


@dataclass(frozen=True)
class Suspects:
    unknown: tuple[Term, ...] = ()
    rare: tuple[tuple[Term, int], ...] = ()  # (term, documents holding it)

    @property
    def words(self) -> list[str]:
        return [t.tokens[0] for t in self.unknown] + [t.tokens[0] for t, _ in self.rare]


def suspects(query: SearchQuery, known: Mapping[str, int]) -> Suspects:
    """Which words to look up; none when the query is better left as typed."""
    unknown = [t for t in query.terms if correctable(t) and known.get(t.stems[0], 0) == 0]
    unknown = unknown[:MAX_CORRECTIONS] if worth_correcting(len(query.terms), len(unknown)) \
        else []
    rare: list[tuple[Term, int]] = []
    if len(query.terms) <= SHORT_QUERY_TERMS:
        rare = [(t, known[t.stems[0]]) for t in query.terms if correctable(t)
                and 0 < known.get(t.stems[0], 0) <= RARE_MAX_DOCS]
    return Suspects(tuple(unknown), tuple(rare[:MAX_CORRECTIONS - len(unknown)]))


def lookup_plan(words: Sequence[str], corpora: Sequence[str]) -> list[Planned]:
    return [Planned(("vocab", corpus, i),
                    VOCAB_RANGE_SQL.format(table=registry.by_name(corpus).df_table),
                    (*prefix_range(word), MAX_CANDIDATES))
            for i, word in enumerate(words) for corpus in corpora]


def frequent_neighbour(word: str, docs: int, vocabulary: Iterable[tuple[str, int]]
                       ) -> str | None:
    """The most frequent term within typo distance that is far more common than `word`."""
    limit, stemmed = max_distance(word), stem(word)
    least = max(RARE_NEIGHBOUR_MIN_DOCS, RARE_NEIGHBOUR_RATIO * docs)
    best: tuple[int, int, str] | None = None
    for term, n in vocabulary:
        if term in (word, stemmed) or n < least or not may_correct_to(term):
            continue
        # Both distances surely exceed the limit, or the best distance so far: never chosen.
        bar = limit if best is None else min(limit, best[0])
        if beyond(word, term, bar) and beyond(stemmed, term, bar):
            continue
        typed = osa_distance(word, term, limit)
        distance = min(typed, typed if stemmed == word else osa_distance(stemmed, term, limit))
        key = (distance, -n, term)
        if distance <= limit and (best is None or key < best):
            best = key
    return best[2] if best else None


async def correct(db: Database, query: SearchQuery, found: Suspects,
                  corpora: Sequence[str]) -> tuple[SearchQuery, dict[str, str]]:
    """The query with corrections applied, and what was corrected (typed word → term)."""
    words = found.words
    rows = await run(db, lookup_plan(words, corpora))
    vocab: list[dict[str, int]] = []
    for i in range(len(words)):
        counts: dict[str, int] = {}
        for corpus in corpora:
            for r in rows[("vocab", corpus, i)]:
                counts[str(r["term"])] = counts.get(str(r["term"]), 0) + int(r["doc"])
        vocab.append(counts)
    fixes: dict[str, str] = {}
    terms = list(query.terms)
    for i, term in enumerate(found.unknown):
        if term.prefix and any(t.startswith(term.tokens[0]) for t in vocab[i]):
            continue  # a word still being typed ("leas" of "lease"): no index term is it yet
        word = completion(term.tokens[0], vocab[i].items()) if term.prefix else None
        if word:  # it outgrew its stem ("leasin" of "leasing")
            fixes[term.tokens[0]] = word
            terms[terms.index(term)] = Term((word,))
            continue
        best = best_correction(term.tokens[0], vocab[i].items())
        if best:
            fixes[term.tokens[0]] = best
            terms[terms.index(term)] = corrected_term(best)
    for j, (term, docs) in enumerate(found.rare, start=len(found.unknown)):
        best = frequent_neighbour(term.tokens[0], docs, vocab[j].items())
        extra = corrected_term(best) if best else None
        if extra and extra not in terms:
            fixes[term.tokens[0]] = best  # type: ignore[assignment]
            terms.append(extra)
    return SearchQuery(text=query.text, terms=tuple(terms)), fixes

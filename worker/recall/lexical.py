"""The lexical retriever: BM25 over every searched corpus's FTS index, as candidates on
one relevance scale (shared.ranking), with the typo step when the query needs it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from shared.candidate import Candidate
from shared.query import SearchQuery
from shared.ranking import recency_boost, relevance
from worker.db import Database
from worker.recall import typo
from worker.recall.corpora import CORPORA, Corpus, Scoring
from worker.recall.filters import Filters
from worker.recall.plan import hits_key, plan
from worker.recall.run import Rows, run
from worker.recall.stats import (
    Stats,
    ceilings,
    collect,
    known_stems,
    term_idfs,
    without_query_message,
)


@dataclass(frozen=True)
class LexicalResult:
    query: SearchQuery  # as searched: with spelling corrections applied
    candidates: list[Candidate] = field(default_factory=list)
    corrections: Mapping[str, str] = field(default_factory=dict)  # typed word → index term
    # corpus → query term (FTS form) → IDF, for the query as searched
    idf: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


async def _search(db: Database, query: SearchQuery, filters: Filters,
                  corpora: Sequence[Corpus]) -> tuple[Rows, Stats]:
    rows = await run(db, plan(query, filters, corpora))
    stats = collect(rows)
    return rows, without_query_message(stats) if filters.query_text_is_indexed else stats


def score(query: SearchQuery, rows: Rows, stats: Stats, corpora: Sequence[Corpus],
          now_ms: int, floor: Mapping[str, float] | None = None) -> list[Candidate]:
    """Every row as a candidate; `floor` raises a corpus's ceiling (see `retrieve`)."""
    limits = ceilings(query, stats)
    scored = []
    for corpus in corpora:
        key = hits_key(corpus)
        if key not in rows:
            continue
        ceiling = max(limits[corpus.name], (floor or {}).get(corpus.name, 0.0))
        for row in rows[key]:
            ts = int(row[corpus.timestamp_column])
            scored.append(corpus.to_candidate(row, Scoring(
                relevance(float(row["bm25"]), ceiling), recency_boost(ts, now_ms), ts,
                str(row[corpus.group_column]), query.terms)))
    return scored


async def retrieve(db: Database, query: SearchQuery, filters: Filters, now_ms: int,
                   corpora: Sequence[Corpus] = CORPORA) -> LexicalResult:
    """Scored candidates for a sanitised query (none when it has no terms).

    Misspelt words are corrected and the search runs again (worker/recall/typo.py). The
    relevance then stays measured against the query as typed, whose unknown words carry
    the highest IDF, so a guessed word earns less confidence than a word the owner typed;
    hits that only the corrected query found are marked `fuzzy`.
    """
    if query.is_empty:
        return LexicalResult(query=query)
    rows, stats = await _search(db, query, filters, corpora)
    first = score(query, rows, stats, corpora, now_ms)
    found = typo.suspects(query, known_stems(stats))
    if not found.words:
        return LexicalResult(query, first, idf=term_idfs(query, stats))
    corrected, fixes = await typo.correct(db, query, found, list(stats))
    if not fixes:
        return LexicalResult(query, first, idf=term_idfs(query, stats))
    strict = {(c.kind, c.group, c.id) for c in first}
    as_typed = ceilings(query, stats)
    rows, stats = await _search(db, corrected, filters, corpora)
    candidates = [c if (c.kind, c.group, c.id) in strict else replace(c, fuzzy=True)
                  for c in score(corrected, rows, stats, corpora, now_ms, as_typed)]
    return LexicalResult(corrected, candidates, fixes, term_idfs(corrected, stats))

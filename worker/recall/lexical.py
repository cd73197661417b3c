"""The lexical retriever: BM25 over every searched corpus's FTS index, as candidates on
one relevance scale (shared.rank.scoring), with the typo step when the query needs it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from shared.rank.candidate import Candidate
from shared.rank.scoring import recency_boost, relevance
from shared.text.matcher import matched_terms
from shared.text.sanitiser import SearchQuery
from shared.text.turns import addressed
from worker.db import Database
from worker.recall import typo
from worker.recall.corpora import CORPORA, Corpus, Row, Scoring
from worker.recall.filters import Filters
from worker.recall.plan import hits_key, plan
from worker.recall.run import Rows, run
from worker.recall.stats import (
    Stats,
    ceilings,
    collect,
    known_stems,
    self_match_correction,
    sizes,
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
    docs: Mapping[str, int] = field(default_factory=dict)  # corpus → units it holds


@dataclass(frozen=True)
class Searched:
    rows: Rows
    stats: Stats  # as if the query's own message were not indexed
    raw: Stats  # as FTS5's bm25() counted them


async def _search(db: Database, query: SearchQuery, filters: Filters,
                  corpora: Sequence[Corpus]) -> Searched:
    rows = await run(db, plan(query, filters, corpora))
    raw = collect(rows)
    return Searched(rows, without_query_message(raw) if filters.query_text_is_indexed
                    else raw, raw)


def _corrected(base: float, row: Row, query: SearchQuery, found: Searched, corpus: Corpus
               ) -> float:
    """The row's relevance with the self-match correction, computed before its candidate
    is made (copying every conversation candidate afterwards cost ~1 ms of Python per
    recall at 10k messages, bench.latency)."""
    clean, raw = found.stats[corpus.name], found.raw[corpus.name]
    if clean is raw:
        return base
    found_terms = matched_terms(query.terms, corpus.match_texts(row, query.terms))
    matched = [t for t in query.terms if t.fts in found_terms]
    return min(base * self_match_correction(matched, clean, raw), 1.0)


def score(query: SearchQuery, found: Searched, corpora: Sequence[Corpus],
          now_ms: int, floor: Mapping[str, float] | None = None) -> list[Candidate]:
    """Every row as a candidate; `floor` raises a corpus's ceiling (see `retrieve`)."""
    limits = ceilings(query, found.stats)
    weights = term_idfs(query, found.stats)
    asks = addressed(query.text)
    scored = []
    for corpus in corpora:
        key = hits_key(corpus)
        if key not in found.rows:
            continue
        ceiling = max(limits[corpus.name], (floor or {}).get(corpus.name, 0.0))
        idf = weights.get(corpus.name, {})
        for row in found.rows[key]:
            ts = int(row[corpus.timestamp_column])
            scored.append(corpus.to_candidate(row, Scoring(
                _corrected(relevance(float(row["bm25"]), ceiling), row, query, found, corpus),
                recency_boost(ts, now_ms), ts, str(row[corpus.group_column]), query.terms,
                idf, asks)))
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
    searched = await _search(db, query, filters, corpora)
    first = score(query, searched, corpora, now_ms)
    found = typo.suspects(query, known_stems(searched.stats))
    if not found.words:
        return LexicalResult(query, first, idf=term_idfs(query, searched.stats),
                             docs=sizes(searched.stats))
    corrected, fixes = await typo.correct(db, query, found, list(searched.stats))
    if not fixes:
        return LexicalResult(query, first, idf=term_idfs(query, searched.stats),
                             docs=sizes(searched.stats))
    strict = {(c.kind, c.group, c.id) for c in first}
    as_typed = ceilings(query, searched.stats)
    again = await _search(db, corrected, filters, corpora)
    candidates = [c if (c.kind, c.group, c.id) in strict else replace(c, fuzzy=True)
                  for c in score(corrected, again, corpora, now_ms, as_typed)]
    return LexicalResult(corrected, candidates, fixes, term_idfs(corrected, again.stats),
                         sizes(again.stats))

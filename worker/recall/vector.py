"""The vector retriever: the query's embedding against the vector index, hits resolved
through D1 (`vector_units`) back to live units, as candidates with their cosine.

Resolving through D1 is what makes deletes safe: a vector that lingers in the index after
its note or message is gone resolves to nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.rank.candidate import Candidate
from shared.rank.scoring import recency_boost
from shared.text.sanitiser import SearchQuery
from shared.text.turns import addressed
from worker.corpora import registry
from worker.corpora.base import Corpus, Row, Scoring, VectorCorpus
from worker.corpora.filters import Filters
from worker.db import Database, Result, Statement
from worker.semantic.ports import VectorFilter, VectorMatch
from worker.semantic.semantics import Semantics

# Vector hits per corpus: Vectorize returns at most 20 with metadata and 100 without; we
# resolve ids through D1, so 40 (the seed design's candidate pool) needs no metadata.
VECTOR_TOP_K = 40


@dataclass(frozen=True)
class Found:
    """What the vector index returned for a query, per corpus, before D1 resolves it."""

    corpora: list[tuple[Corpus, VectorCorpus]] = field(default_factory=list)
    matches: list[list[VectorMatch]] = field(default_factory=list)

    @property
    def scores(self) -> dict[str, float]:
        return {m.id: float(m.score) for found in self.matches for m in found}


async def _query(sem: Semantics, vector: Sequence[float], corpus: VectorCorpus,
                 filters: Filters) -> list[VectorMatch]:
    wanted = VectorFilter(kind=corpus.kind, vault=filters.vault if corpus.by_vault else None)
    return await sem.index.query(vector, VECTOR_TOP_K, wanted)


# Which of the units (?1 JSON array of unit ids) have a vector of model ?2.
EMBEDDED_SQL = """
SELECT unit_id FROM vector_units
WHERE model = ?2 AND unit_id IN (SELECT value FROM json_each(?1))
"""


def embedded_statement(db: Database, units: Sequence[str], model: str) -> Statement | None:
    """The statement telling which of `units` hold a vector of `model` (None for none)."""
    if not units:
        return None
    return db.prepare(EMBEDDED_SQL).bind(json.dumps(list(units)), model)


def embedded_ids(result: Result) -> set[str]:
    return {str(r["unit_id"]) for r in result.results}


async def embedded(db: Database, units: Sequence[str], model: str) -> set[str]:
    statement = embedded_statement(db, units, model)
    return embedded_ids(await statement.all()) if statement is not None else set()


async def search(sem: Semantics, query: SearchQuery, filters: Filters,
                 query_vector: Sequence[float] | None = None) -> Found:
    """The query's embedding against the index, for every corpus the filters want: no D1
    yet, so its hits can be resolved in the same batch as other reads (modes.retrieve)."""
    corpora = [(c, c.vector) for c in registry.corpora() if c.vector and filters.wants(c.name)]
    if not corpora or not query.text:
        return Found()
    if query_vector is None:
        [query_vector] = await sem.embedder.embed([query.text], "query")
    found = await asyncio.gather(*(_query(sem, query_vector, v, filters) for _, v in corpora))
    return Found(corpora, list(found))


def resolve_statements(db: Database, found: Found, model: str, filters: Filters
                       ) -> list[Statement]:
    """One statement per corpus: its hits resolved to live units (none without hits)."""
    if not any(found.matches):
        return []
    return [db.prepare(v.resolve_sql).bind(*v.resolve_params([m.id for m in matches], model,
                                                               filters))
            for (_, v), matches in zip(found.corpora, found.matches, strict=True)]


@dataclass(frozen=True, slots=True)
class Hit:
    """A resolved hit before it is a candidate: its corpus, its row (search-shaped, with
    its `vector_id` and `unit_id`) and its cosine."""

    corpus: Corpus
    row: Row
    cosine: float

    @property
    def group(self) -> tuple[str, str]:
        return self.corpus.kind, str(self.row[self.corpus.group_column])


def hits(found: Found, results: Sequence[Result]) -> list[Hit]:
    """The resolved hits (`results` of resolve_statements, in order)."""
    scores = found.scores
    return [Hit(record, row, scores.get(str(row["vector_id"]), 0.0))
            for (record, _), result in zip(found.corpora, results, strict=True)
            for row in result.results]


def built(resolved: Sequence[Hit], query: SearchQuery, now_ms: int) -> list[Candidate]:
    """The hits as candidates with their cosines."""
    asks = addressed(query.text)
    made = []
    for hit in resolved:
        record, row = hit.corpus, hit.row
        ts = int(row[record.timestamp_column])
        made.append(record.to_candidate(row, Scoring(
            0.0, recency_boost(ts, now_ms), ts, str(row[record.group_column]),
            query.terms, asks=asks, cosine=hit.cosine)))
    return made


def candidates(found: Found, results: Sequence[Result], query: SearchQuery, now_ms: int
               ) -> list[Candidate]:
    """The resolved hits (`results` of resolve_statements, in order) as candidates with
    their cosines."""
    return built(hits(found, results), query, now_ms)


async def retrieve(db: Database, sem: Semantics, query: SearchQuery, filters: Filters,
                   now_ms: int, query_vector: Sequence[float] | None = None
                   ) -> list[Candidate]:
    """Vector candidates for the query's text (all corpora the filters want), resolved in
    a batch of their own."""
    found = await search(sem, query, filters, query_vector)
    statements = resolve_statements(db, found, sem.embedder.model, filters)
    if not statements:
        return []
    return candidates(found, await db.batch(statements), query, now_ms)

"""Explicit search (GET /api/search and the benchmark): the owner typed a query."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from shared.candidate import Candidate
from shared.matching import with_terms
from shared.query import Mode, SearchQuery, Term, build_query
from shared.recall_policy import EXPLICIT, RecallPolicy, select
from shared.standing import stand
from worker.db import Database
from worker.recall.filters import Filters, SourceFilter
from worker.recall.modes import RetrievalMode, retrieve
from worker.semantic.semantics import Semantics


@dataclass(frozen=True)
class ExplicitResult:
    query: SearchQuery  # as typed
    hits: list[Candidate] = field(default_factory=list)
    searched_terms: tuple[Term, ...] = ()  # as searched: with spelling corrections
    mode: RetrievalMode = RetrievalMode.LEXICAL  # the mode that ran
    fallback: str | None = None  # why it stepped down from the mode asked for
    corrections: Mapping[str, str] = field(default_factory=dict)


async def search(db: Database, text: str, now_ms: int, *, source: SourceFilter = "all",
                 limit: int = EXPLICIT.max_hits, policy: RecallPolicy = EXPLICIT,
                 vault: str | None = None, semantics: Semantics | None = None,
                 mode: RetrievalMode = RetrievalMode.LEXICAL) -> ExplicitResult:
    """`vault`: only that vault's notes (by name); every vault when None."""
    query = build_query(text, Mode.EXPLICIT)
    filters = Filters(source=source, vault=vault, limit=limit)
    found = await retrieve(db, semantics, query, filters, now_ms, mode)
    scored = stand(found.candidates, query, policy.standing)
    hits = with_terms(select(scored, policy, limit), found.query.terms)
    return ExplicitResult(query=query, hits=hits, searched_terms=found.query.terms,
                          corrections=found.corrections, mode=found.mode,
                          fallback=found.fallback)

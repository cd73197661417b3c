"""Explicit search (GET /api/search and the benchmark): the owner typed a query."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from shared.knowledge.standing import stand
from shared.rank.candidate import Candidate
from shared.rank.confidence import ConfidenceModel
from shared.rank.policy import EXPLICIT, Decision, Gauge, RecallPolicy, judge
from shared.text.matcher import stem_prefix_only, with_terms
from shared.text.sanitiser import Mode, SearchQuery, build_query
from shared.time.zones import UTC_ZONE, Zone
from worker.corpora.filters import Filters, SourceFilter
from worker.db import Database
from worker.recall.echoes import behind_echoes
from worker.recall.feedback import apply_feedback
from worker.recall.modes import Retrieved, gauge, lending, retrieve
from worker.recall.retrieval_mode import RetrievalMode
from worker.recall.timeframe import TimeScope, scope_of, within
from worker.semantic.semantics import Semantics


@dataclass(frozen=True, kw_only=True)
class ExplicitResult:
    query: SearchQuery  # as typed (within a time scope: without its time words)
    # What the search retrieved: the query as searched (with spelling corrections), the
    # corrections, the mode that ran.
    found: Retrieved
    hits: list[Candidate] = field(default_factory=list)
    time: TimeScope | None = None  # the time the query named, and whether it was applied
    # Every candidate with the policy's decision on it (what the inspector shows).
    decisions: tuple[Decision, ...] = ()
    model: ConfidenceModel = field(default_factory=lambda: Gauge.model_of(None))


async def _result(db: Database, query: SearchQuery, found: Retrieved, policy: RecallPolicy,
                  limit: int, time: TimeScope | None, now_ms: int,
                  semantics: Semantics | None) -> ExplicitResult:
    judged = await apply_feedback(db, _as_typed(found.candidates, query, found), now_ms)
    ranked = await behind_echoes(db, stand(judged, query, policy.standing))
    measure = gauge(found, semantics)
    decisions = judge(ranked, lending(policy, found), measure, limit)
    hits = with_terms([d.candidate for d in decisions if d.chosen],
                      found.lexical.query.terms)
    return ExplicitResult(query=query, found=found, hits=hits, time=time,
                          decisions=tuple(decisions), model=measure.model)


def _as_typed(candidates: list[Candidate], query: SearchQuery, found: Retrieved
              ) -> list[Candidate]:
    """The candidates but those only the lexical list holds that matched nothing but the
    stem of the word typed last ("least" for "lease", shared.text.matcher.stem_prefix_only)."""
    if not any(t.prefix for t in query.terms):
        return candidates
    searched = found.lexical.query.terms
    return [c for c in candidates
            if c.scores.vector_rank is not None or not stem_prefix_only(
                query.terms, searched,
                [c.presentation.text, *(v for _, v in c.presentation.fields)])]


async def search(db: Database, text: str, now_ms: int, *, source: SourceFilter = "all",
                 limit: int = EXPLICIT.max_hits, policy: RecallPolicy = EXPLICIT,
                 vault: str | None = None, semantics: Semantics | None = None,
                 mode: RetrievalMode = RetrievalMode.LEXICAL,
                 zone: Zone = UTC_ZONE) -> ExplicitResult:
    """`vault`: only that vault's notes (by name); every vault when None. A time the query
    names restricts it to that time (worker/recall/timeframe.py), unless nothing there is
    found: then it is searched as typed, if it names more than a time. A conversation's
    rows are ranked `policy.candidates` hits deep whatever `limit`
    (worker/corpora/base.rows_read)."""
    filters = Filters(source=source, vault=vault, limit=limit,
                      pool=policy.candidates)
    scope = scope_of(text, Mode.EXPLICIT, now_ms, zone)
    if scope is not None:
        result = await _result(db, scope.query, await within(db, scope, filters, now_ms, mode),
                               policy, limit, scope, now_ms, semantics)
        if result.hits or scope.query.is_empty:  # a query of time words alone: that time
            return result
        scope = replace(scope, applied=False)
    query = build_query(text, Mode.EXPLICIT)
    found = await retrieve(db, semantics, query, filters, now_ms, mode)
    return await _result(db, query, found, policy, limit, scope, now_ms, semantics)

"""The retrieval inspector's trace (README, "Why these memories"): every candidate a search
or an automatic recall weighed, with its scores and the policy's decision on it, as the
recall code itself made them. Nothing here ranks or gates: the decisions are those of
shared.rank.policy.judge, kept by worker/recall/explicit.py and automatic.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.rank.candidate import Candidate
from shared.rank.confidence import ConfidenceModel
from shared.rank.policy import AUTOMATIC, EXPLICIT, Decision, Gauge, Verdict
from shared.text.sanitiser import SearchQuery
from shared.time.zones import Zone
from worker.db import Database
from worker.recall.automatic import gated
from worker.recall.explicit import search
from worker.recall.filters import SourceFilter
from worker.recall.retrieval_mode import RetrievalMode
from worker.recall.salience import salient_text
from worker.recall.timeframe import TimeScope
from worker.semantic.semantics import Semantics

# A hit the gate did not choose but that is in the final hits: a chosen note brought it
# along through a conflict relation (worker/recall/together.py).
TOGETHER = Verdict(True, "together")


@dataclass(frozen=True)
class Entry:
    candidate: Candidate
    verdict: Verdict
    rank: int | None  # in the merged list; None when its group's slot was taken
    hit: bool  # in the final hits (the block's, or the search's)
    confidence: float | None = None  # the model's estimate, when it weighed the candidate


@dataclass(frozen=True)
class Trace:
    policy: str  # "explicit" or "automatic"
    query: SearchQuery  # as searched
    mode: RetrievalMode
    fallback: str | None
    entries: list[Entry] = field(default_factory=list)
    skipped: str | None = None
    time: TimeScope | None = None
    model: ConfidenceModel = field(default_factory=lambda: Gauge.model_of(None))
    corrections: dict[str, str] = field(default_factory=dict)


def key(cand: Candidate) -> tuple[str, str]:
    """What makes two candidates the same hit: the unit (a section, a conversation unit)."""
    return cand.identity.kind, cand.identity.unit or cand.identity.id


def entries(decisions: Sequence[Decision], hits: Sequence[Candidate]) -> list[Entry]:
    """The decisions in list order, then the hits no decision chose (brought along)."""
    in_hits = {key(h) for h in hits}
    out = [Entry(d.candidate, d.verdict if d.chosen or key(d.candidate) not in in_hits
                 else TOGETHER, d.rank, key(d.candidate) in in_hits, d.confidence)
           for d in decisions]
    seen = {key(d.candidate) for d in decisions}
    out += [Entry(h, TOGETHER, None, True) for h in hits if key(h) not in seen]
    return out


async def search_trace(db: Database, text: str, now_ms: int, *, source: SourceFilter,
                       limit: int, vault: str | None, semantics: Semantics | None,
                       mode: RetrievalMode, zone: Zone) -> Trace:
    """What GET /api/search does for `text`, with every candidate it weighed."""
    result = await search(db, text, now_ms, source=source, limit=limit, vault=vault,
                          semantics=semantics, mode=mode, zone=zone)
    query = SearchQuery(result.query.text, result.found.lexical.query.terms)
    return Trace(EXPLICIT.name, query, result.found.ran.mode, result.found.ran.fallback,
                 entries(result.decisions, result.hits), time=result.time,
                 model=result.model, corrections=dict(result.found.lexical.corrections))


async def recall_trace(db: Database, text: str, now_ms: int, *,
                       exclude_ids: tuple[str, ...], conversation_id: str | None,
                       text_is_stored: bool, semantics: Semantics | None,
                       mode: RetrievalMode, zone: Zone) -> Trace:
    """What automatic recall does for a chat message, every row a candidate (the hits are
    the same: worker/recall/automatic.candidates, `every_row`)."""
    text = await salient_text(db, text, text_is_stored)
    decided = await gated(db, text, now_ms, exclude_ids=exclude_ids,
                          conversation_id=conversation_id, text_is_stored=text_is_stored,
                          semantics=semantics, mode=mode, zone=zone, every_row=True)
    ran = decided.found.ran
    return Trace(AUTOMATIC.name, decided.found.lexical.query, ran.mode, ran.fallback,
                 entries(decided.decisions, decided.hits), skipped=decided.skipped,
                 time=decided.time, model=decided.model or Gauge.model_of(None))

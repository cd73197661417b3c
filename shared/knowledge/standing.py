"""Standing: one bounded multiplier on a candidate's score from what is known about the
document besides its match (docs/design.md, "Ranking bounds").

    multiplier = clamp(1 + Σ deltas that apply, floor, ceiling)

The deltas and the clamp are `StandingWeights` (shared/rank/policy.py, their one
home): an exact identity match, a stable canonical note, an evidence note, a past
conversation, a deprecated note, and the owner's feedback (bounded on its own). It is
applied after retrieval and never adds or removes a candidate: a strong match stays a
strong match, and a near-tie goes to the reviewed conclusion.

Pure: `multiplier` takes a typed record of signals; `stand` derives the signals of each
candidate and sets its `standing`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from shared.knowledge.names import key_of, keys_of
from shared.knowledge.roles import KnowledgeRole, Status
from shared.rank.candidate import Candidate
from shared.rank.kinds import kind_of
from shared.rank.policy import STANDING, StandingWeights
from shared.text.sanitiser import SearchQuery

# The candidate fields that name a note (corpora.py sets them).
NAME_FIELDS = ("title", "file name", "aliases")


@dataclass(frozen=True)
class Signals:
    identity: bool = False  # the query names this document
    role: KnowledgeRole | None = None
    status: Status | None = None
    conversation: bool = False  # a past conversation, not a note
    # The owner's feedback on this document as a delta, before its own bound
    # (shared/rank/feedback.py computes it; decayed, never for a deleted document).
    feedback: float = 0.0


@dataclass(frozen=True)
class Rule:
    weight: str  # the StandingWeights field that holds its delta
    applies: Callable[[Signals], bool]
    reason: str  # how /api/search names it


RULES: tuple[Rule, ...] = (
    Rule("identity", lambda s: s.identity, "names this note"),
    Rule("stable_canonical", lambda s: s.role == "canonical" and s.status == "stable",
         "stable canonical note"),
    Rule("evidence", lambda s: s.role == "evidence" and not s.conversation, "evidence"),
    Rule("conversation", lambda s: s.conversation, "past conversation"),
    Rule("deprecated", lambda s: s.status == "deprecated", "deprecated"),
)


def _bounded(value: float, bound: float) -> float:
    return max(-bound, min(bound, value))


def adjustments(signals: Signals, weights: StandingWeights = STANDING
                ) -> list[tuple[str, float]]:
    """Every delta that applies, with its reason, feedback last (bounded on its own)."""
    found = [(r.reason, getattr(weights, r.weight)) for r in RULES if r.applies(signals)]
    feedback = _bounded(signals.feedback, weights.feedback)
    if feedback:
        found.append(("feedback", feedback))
    return [(reason, delta) for reason, delta in found if delta]


# Cached: a handful of distinct signals recur across every candidate of every query.
@lru_cache(maxsize=1_024)
def multiplier(signals: Signals, weights: StandingWeights = STANDING) -> float:
    total = 1.0 + sum(delta for _, delta in adjustments(signals, weights))
    return min(max(total, weights.floor), weights.ceiling)


# Cached: a few combinations of signals recur in every recall's rows and vector hits, and
# each bound asks for theirs (worker/recall/lexical.measured, worker/recall/modes.py).
@lru_cache(maxsize=1_024)
def span(signals: Signals, weights: StandingWeights = STANDING, judged: bool = True
         ) -> tuple[float, float]:
    """The least and the most the multiplier can be for a document with these signals,
    whatever the owner's feedback, or exactly, for a document the owner never `judged`
    (worker/recall/depth.py bounds a row's score with it before the row is a
    candidate)."""
    if not judged:
        exact = multiplier(signals, weights)
        return exact, exact
    ends = [multiplier(replace(signals, feedback=f), weights)
            for f in (-weights.feedback, weights.feedback)]
    return min(ends), max(ends)


@lru_cache(maxsize=1_024)
def _query_key(stems: frozenset[tuple[str, ...]]) -> str:
    return key_of(stems)


def query_key(query: SearchQuery) -> str:
    """The query's key as a note's names are keyed (shared/knowledge/names.py)."""
    return _query_key(query.stems)


def names(query: SearchQuery, cand: Candidate) -> bool:
    """Exact identity: the query's terms are exactly those of the note's title, file
    name or one alias ("kitchen renovation", "Kitchen reno"), whatever the case, accents,
    inflection or stopwords (shared/knowledge/names.py): the keys the note was stored
    with, or those of its fields."""
    return named(query, cand.note.name_keys, cand.presentation.fields)


def named(query: SearchQuery, stored: frozenset[str] | None,
          fields: Sequence[tuple[str, str]]) -> bool:
    """`names` for a note whose name keys are `stored` (None: made from its `fields`)."""
    wanted = query.stems
    if not wanted:
        return False
    keys = stored
    if keys is None:
        keys = keys_of(value for field, value in fields if field in NAME_FIELDS)
    return _query_key(wanted) in keys


def document_key(cand: Candidate) -> str:
    """What feedback is keyed by: a note (its vault and path), a message (its id)."""
    return kind_of(cand).document_key(cand)


def signals(query: SearchQuery, cand: Candidate, feedback: float = 0.0) -> Signals:
    return Signals(identity=names(query, cand), role=cand.identity.knowledge_role,
                   status=cand.note.status, conversation=kind_of(cand).conversation,
                   feedback=feedback)


def stand(candidates: Sequence[Candidate], query: SearchQuery,
          weights: StandingWeights = STANDING,
          feedback: Mapping[str, float] | None = None) -> list[Candidate]:
    """The candidates with their standing set. The feedback signal is each candidate's own
    `feedback` (worker/recall/feedback.py sets it), unless `feedback` (document_key →
    delta) names one."""
    fb = feedback or {}
    return [_with_standing(c, multiplier(
        signals(query, c, fb.get(document_key(c), c.scores.feedback)), weights))
            for c in candidates]


def _with_standing(cand: Candidate, standing: float) -> Candidate:
    # Most candidates keep the standing they have: copying them anyway was a tenth of
    # recall's Python time (bench.latency).
    return cand if standing == cand.scores.standing else replace(
        cand, scores=replace(cand.scores, standing=standing))

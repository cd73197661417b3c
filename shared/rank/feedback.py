"""The owner's feedback on recalled sources (pure): the query's hash, and each document's
bounded, decaying ranking delta.

A 👍 or 👎 on source [n] of an answer (POST /api/feedback) is a judgment of one document
for one query. It is kept with a hash of the query (`query_hash`), never its text. Its
effects:

- every judgment of a document moves its ranking a little, for any query: `delta` sums
  FEEDBACK_STEP per judgment (+ relevant, − irrelevant), each halved every
  FEEDBACK_HALF_LIFE_DAYS, and clamps the sum to ±FEEDBACK_MAX. It enters ranking as the
  feedback term of the bounded standing multiplier (shared/knowledge/standing.py), the one place;
- "irrelevant" on an injected source also stops automatic recall from injecting that
  document again for the same query hash (worker/recall/feedback.py), whatever its delta.

Why these numbers: ±0.02 is the bound for all feedback combined (docs/design.md, "Ranking
bounds": feedback never makes a non-candidate appear): it reorders near-ties
and never lifts a weak match over a strong one. Two fresh judgments reach it, so one
stray click is half the effect. 90 days is the design's half-life and the recency boost's
(shared/rank/scoring.py): a judgment from last season still counts half, and one from two
years ago (about 8 half-lives) next to nothing, as notes and needs drift.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from shared.text.sanitiser import Mode, build_query
from shared.time.durations import MS_PER_DAY

Judgment = Literal["relevant", "irrelevant"]
JUDGMENTS: tuple[Judgment, ...] = ("relevant", "irrelevant")
FEEDBACK_STEP = 0.01
FEEDBACK_MAX = 0.02
FEEDBACK_HALF_LIFE_DAYS = 90.0
# Versioned, so that a change of normalisation can never match an old hash by accident.
QUERY_HASH_PREFIX = "mallory-feedback-query-v1\n"


@dataclass(frozen=True)
class Vote:
    judgment: Judgment
    at_ms: int


def normalised_query(text: str) -> str:
    """What the hash is taken of: the query's search words as automatic recall reads the
    message (stopwords and social words dropped), stemmed, de-duplicated and sorted — so
    "What about the backups?" and "backup, what about it" are one query."""
    query = build_query(text, Mode.AUTOMATIC)
    return " ".join(sorted({" ".join(t.stems) for t in query.terms}))


def query_hash(text: str) -> str:
    return hashlib.sha256((QUERY_HASH_PREFIX + normalised_query(text)).encode()).hexdigest()


def decayed(vote: Vote, now_ms: int) -> float:
    sign = 1.0 if vote.judgment == "relevant" else -1.0
    age_days = max(now_ms - vote.at_ms, 0) / MS_PER_DAY
    halving: float = 0.5 ** (age_days / FEEDBACK_HALF_LIFE_DAYS)
    return sign * FEEDBACK_STEP * halving


def delta(votes: Iterable[Vote], now_ms: int) -> float:
    """A document's ranking delta from all its judgments, in [−FEEDBACK_MAX, FEEDBACK_MAX]."""
    total = sum(decayed(v, now_ms) for v in votes)
    return min(max(total, -FEEDBACK_MAX), FEEDBACK_MAX)


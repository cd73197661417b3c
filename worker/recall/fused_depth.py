"""The gate's depth as a bound on what a semantic mode builds (pure): lexical mode's bound
(worker/recall/depth.py) where the lexical list is fused with the vector list.

A fused score depends on more than a row's own measure: hybrid's on its rank in the
lexical list (reciprocal-rank fusion, shared.rank.fusion.fuse), adaptive's on the list's
best relevance (shared.rank.fusion.blend), both on whether its unit holds a vector of the
model (a `pending` unit's lexical side counts twice) and on the vector hits. So, for the
result to stay what building every row gives:

- every row's embedding status is known (its unit, read by the first pass, checked in the
  batch that resolves the vector hits), and a group holding any vector hit is built whole:
  its holder and the best cosine among all slot holders (shared/rank/evidence.py) depend
  on its rows;
- a row's lexical rank is bounded by the rows sure to rank above it and those that may,
  from each row's least and largest relevance (its self-match correction unknown before
  its text is read) times its recency; a built row's rank is exact: its place among the
  built rows plus the left-out rows above it (`Cut.skipped`: their keys in the lexical
  list), which needs each left-out row sure to rank above or below every built row, or
  its text read and its relevance corrected (worker/recall/lexical.fused), not built;
- the rows that may hold the list's best relevance, or its best lexical score (adaptive's
  exact-identity test, worker/recall/modes.py), are built; when the query does name its
  best hit exactly, the lexical order stands instead of the blend, and recall searches
  again without the bound;
- a row whose unit is retrieved twice (two sections of one content) is built: fusion keeps
  the first of them.

Then a group is left out, as in lexical mode, when `depth` groups are sure to score above
everything it can reach; `depth.holds` checks that once standing is set.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum

from shared.rank.fusion import RRF_K, VECTOR_WEIGHT
from worker.recall.depth import MARGIN, Cut


class Fusion(Enum):
    """How the semantic mode fuses its lists (worker/recall/modes.py)."""

    RANKS = "ranks"  # hybrid: reciprocal-rank fusion
    SCORES = "scores"  # adaptive: the blend, or the lexical order on an exact identity


@dataclass(frozen=True, slots=True)
class VectorSpan:
    """A resolved vector hit before it is a candidate: its group, its unit, its cosine, its
    recency, standing's least and most, and `kept` (a note with relations)."""

    group: tuple[str, str]
    unit: str
    cosine: float
    boost: float
    standing_low: float
    standing_high: float
    kept: bool = False

    @property
    def key(self) -> tuple[float, str]:
        """Where it sorts in the vector list (shared.rank.fusion)."""
        return -self.cosine, self.unit


# What the vector side tells, once its hits are resolved: their groups (kind, group
# column value) and the hits themselves, in their order.
Facts = tuple[Collection[tuple[str, str]], Sequence[VectorSpan]]


@dataclass(frozen=True)
class Semantic:
    """A semantic mode's bound, as the lexical search applies it (worker/recall/
    lexical.fused): how the lists are fused, the model whose vectors are fused (the first
    pass reads which of its units hold one), and `facts`, given those units, once the
    vector hits are resolved (None: the vector side failed, nothing is left out)."""

    fusion: Fusion
    model: str
    facts: Callable[[Collection[str]], Awaitable[Facts | None]]


@dataclass(frozen=True, slots=True)
class Span:
    """A ranked row before it is a candidate: its group (kind, group column value), its
    unit ("" when its corpus has none to read), its relevance with the least and the
    largest self-match correction, its recency, standing's least and most, and `kept`:
    never left out (a note with relations, worker/recall/together.py)."""

    group: tuple[str, str]
    unit: str
    low: float
    high: float
    boost: float
    timestamp_ms: int
    standing_low: float
    standing_high: float
    kept: bool = False
    # Its corpus corrects no relevance: `low` is its relevance, to the bit.
    exact: bool = False

    @property
    def key(self) -> LexicalKey:
        """Where it sorts in the lexical list (shared.rank.fusion) at its least score: its
        place when it is sure to rank above or below a candidate, or `exact`."""
        return -(self.low * self.boost), -self.timestamp_ms, self.unit


# A row's place in the lexical list: (−relevance × recency, −timestamp, unit), ascending.
LexicalKey = tuple[float, int, str]


def _above(x: float) -> float:
    """`x` raised past rounding: a value under it is surely under `x`."""
    return x * (1 + MARGIN) + MARGIN


def _ranks(spans: Sequence[Span]) -> list[tuple[int, int]]:
    """Each row's best and worst possible lexical rank (1-based) among all of them: the
    rows sure to score above it, and those that may score above it or tie."""
    lows = sorted(s.low * s.boost for s in spans)
    highs = sorted(_above(s.high * s.boost) for s in spans)
    n = len(spans)
    out = []
    for s in spans:
        low, high = s.low * s.boost, s.high * s.boost
        surely = n - bisect_right(lows, _above(high))
        maybe = n - bisect_left(highs, low) - 1  # itself aside
        out.append((1 + surely, 1 + max(surely, maybe)))
    return out


def _fused(s: Span, ranks: tuple[int, int], pending: bool, fusion: Fusion,
           best: tuple[float, float]) -> tuple[float, float]:
    """The least and the most a row's fused score can be, without a vector hit of its
    own (a row with one is built whatever this says)."""
    if fusion is Fusion.RANKS:
        share = 2.0 if pending else 1.0
        return share / (RRF_K + ranks[1]), share / (RRF_K + ranks[0])
    # The blend; on an exact identity the lexical order stands instead, and recall
    # searches again without the bound (worker/recall/modes.retrieve).
    share = (1 - VECTOR_WEIGHT) + (VECTOR_WEIGHT if pending else 0.0)
    return share * s.low / best[1], share * s.high / best[0]


@dataclass(frozen=True)
class Settled:
    """What the lexical rows alone settle before the vector hits are in (`settle`): each
    group's least and most fused score, the bar the `depth`-th group is sure to reach, the
    groups built whatever the hits are, and `out`, the groups left out unless a vector hit
    falls in them. Its rows outside `out` are built in any case (`surely_built`): recall
    makes their candidates while the query is still being embedded."""

    fusion: Fusion
    least: dict[tuple[str, str], float]
    most: dict[tuple[str, str], float]
    bar: float
    out: frozenset[tuple[str, str]]
    depth: int


def settle(spans: Sequence[Span], depth: int, fusion: Fusion, embedded: Collection[str]
           ) -> Settled | None:
    """The bound's part that needs no vector hit (`embedded`: the units that hold a vector
    of the model); None when nothing is left out whatever the hits are. With `depth`
    groups or fewer, no lexical row is left out, but the vector hits' own scores may still
    set the bar that leaves out others (`cut_settled`)."""
    if depth <= 0:
        return None
    if not spans:
        return Settled(fusion, {}, {}, 0.0, frozenset(), depth)
    best = (max(s.low for s in spans), max(s.high for s in spans))
    if best[0] <= 0:
        return None
    best_key = max(s.low * s.boost for s in spans)
    units: dict[str, int] = {}
    for s in spans:
        units[s.unit] = units.get(s.unit, 0) + 1
    kept: set[tuple[str, str]] = set()
    least: dict[tuple[str, str], float] = {}
    most: dict[tuple[str, str], float] = {}
    for s, ranks in zip(spans, _ranks(spans), strict=True):
        if (s.kept or not s.unit or units[s.unit] > 1
                or (fusion is Fusion.SCORES and (_above(s.high) >= best[0]
                                                 or _above(s.high * s.boost) >= best_key))):
            kept.add(s.group)
        low, high = _fused(s, ranks, s.unit not in embedded, fusion, best)
        least[s.group] = max(least.get(s.group, 0.0), low * s.boost * s.standing_low)
        most[s.group] = max(most.get(s.group, 0.0), high * s.boost * s.standing_high)
    if len(least) <= depth:
        return Settled(fusion, least, most, 0.0, frozenset(), depth)
    bar = sorted(least.values(), reverse=True)[depth - 1]
    return Settled(fusion, least, most, bar, frozenset(
        g for g, m in most.items() if g not in kept and _above(m) < bar), depth)


def surely_built(spans: Sequence[Span], settled: Settled | None) -> list[int]:
    """The indexes of the rows `cut` builds whatever the vector hits are, in order."""
    if settled is None:
        return list(range(len(spans)))
    return [i for i, s in enumerate(spans) if s.group not in settled.out]


def cut(spans: Sequence[Span], depth: int, fusion: Fusion,
        hit_groups: Collection[tuple[str, str]], embedded: Collection[str],
        vectors: Sequence[VectorSpan] = ()) -> tuple[list[int], Cut | None, list[int]]:
    """The indexes of the rows to build, in order; what was left out (None: nothing), its
    `skipped` the lexical keys of the left-out rows sure to rank above or below every
    built row; and the indexes of the other left-out rows, whose exact keys the caller
    adds (their text read and their relevance corrected, not built). `hit_groups`: the
    groups of the resolved vector hits; `embedded`: the units that hold a vector of the
    model; `vectors`: the hits, of which groups no lexical row is in may be left out too
    (`_vector_out`)."""
    return cut_settled(spans, settle(spans, depth, fusion, embedded), hit_groups, vectors)


def cut_settled(spans: Sequence[Span], settled: Settled | None,
                hit_groups: Collection[tuple[str, str]], vectors: Sequence[VectorSpan] = ()
                ) -> tuple[list[int], Cut | None, list[int]]:
    """`cut`, given what `settle` made of the same rows."""
    everything: tuple[list[int], Cut | None, list[int]] = (list(range(len(spans))), None, [])
    if settled is None:
        return everything
    # A group holding a vector hit is built whole (the module's docstring).
    out = settled.out - set(hit_groups)
    vector_out, vector_most, anchor = _vector_out(vectors, settled, set(settled.least))
    if not out and not vector_out:
        return everything
    unsure = _unsure(spans, out) if out else set()
    return ([i for i, s in enumerate(spans) if s.group not in out],
            Cut(best=max([*(settled.most[g] for g in out), vector_most]), groups=frozenset(
                out | vector_out),
                skipped=tuple(sorted(s.key for i, s in enumerate(spans)
                                     if s.group in out and i not in unsure)),
                vector_skipped=tuple(sorted(v.key for v in vectors
                                            if v.group in vector_out)),
                anchor=anchor),
            sorted(unsure))


def _vector_out(vectors: Sequence[VectorSpan], settled: Settled,
                lexical: Collection[tuple[str, str]]
                ) -> tuple[set[tuple[str, str]], float, str | None]:
    """The groups of vector hits alone (no lexical row) sure to score under the bar, the
    most any of them can score, and the anchor: the unit of a group of one hit, built,
    whose cosine is at least every left-out hit's, so that the best cosine among the slot
    holders (shared/rank/evidence.py) stays a built one's (`depth.holds` checks that it
    survives echoes and feedback).

    The bar is the least score `settled.depth` groups are sure to reach, the hits counted:
    a hit's fused score has its vector part whatever its lexical rows give, so a group's
    least is the larger of its rows' (`settled.least`) and its hits'. Within the depth
    the lexical rows set no bar of their own: at 1,000 messages + 100 notes, where they
    hold a few groups, hybrid built 63.8 of a recall's 80 hits with the rows' bar alone and
    34.0 with the hits counted (bench.latency's 200 queries; at 100k + 10k 17.4 → 8.4)."""
    if not vectors:
        return set(), 0.0, None
    fusion = settled.fusion
    order = sorted(range(len(vectors)), key=lambda i: vectors[i].key)
    rank = {i: r for r, i in enumerate(order, 1)}
    cosines = [v.cosine for v in vectors]
    low, high = min(cosines), max(cosines)
    units: dict[str, int] = {}
    rows: dict[tuple[str, str], int] = {}
    for v in vectors:
        units[v.unit] = units.get(v.unit, 0) + 1
        rows[v.group] = rows.get(v.group, 0) + 1
    kept = {v.group for v in vectors if v.group in lexical or v.kept or units[v.unit] > 1}
    most: dict[tuple[str, str], float] = {}
    least = dict(settled.least)
    top: dict[tuple[str, str], float] = {}  # each group's best cosine
    for i, v in enumerate(vectors):
        if fusion is Fusion.RANKS:
            fused = 1.0 / (RRF_K + rank[i])
        else:
            fused = VECTOR_WEIGHT * ((v.cosine - low) / (high - low) if high > low else 1.0)
        most[v.group] = max(most.get(v.group, 0.0), fused * v.boost * v.standing_high)
        least[v.group] = max(least.get(v.group, 0.0), fused * v.boost * v.standing_low)
        top[v.group] = max(top.get(v.group, v.cosine), v.cosine)
    # `least` holds every group of `settled.least`, none lower: its bar is never below
    # settled.bar.
    bar = sorted(least.values(), reverse=True)[settled.depth - 1] \
        if len(least) > settled.depth else settled.bar
    out = {g for g, m in most.items() if g not in kept and _above(m) < bar}
    # The anchor: the best hit alone in its group, built (left out or not).
    alone = [(top[g], g) for g in top if rows[g] == 1 and g not in kept]
    if not out or not alone:
        return set(), 0.0, None
    cosine, group = max(alone)
    out = {g for g in out if top[g] <= cosine and g != group}
    if not out:
        return set(), 0.0, None
    anchor = next(v.unit for v in vectors if v.group == group)
    return out, max(most[g] for g in out), anchor


def _unsure(spans: Sequence[Span], out: Collection[tuple[str, str]]) -> set[int]:
    """The left-out rows not sure to rank above or below every built row in the lexical
    list (their lexical scores, relevance × recency, may tie or cross), `exact` ones
    aside."""
    built = sorted((s.low * s.boost, _above(s.high * s.boost)) for s in spans
                   if s.group not in out)
    lows = [b[0] for b in built]
    reach: list[float] = []  # the highest built top among the built rows starting lower
    for _, top in built:
        reach.append(max(top, reach[-1]) if reach else top)
    unsure = set()
    for i, s in enumerate(spans):
        if s.group not in out or s.exact:
            continue
        # A built row starting at or under this row's top, and reaching up to its bottom.
        under = bisect_right(lows, _above(s.high * s.boost))
        if under and reach[under - 1] >= s.low * s.boost:
            unsure.add(i)
    return unsure

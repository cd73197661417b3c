"""What /status says about retrieval: the mode recall runs in when a request does not
choose one, what it was configured to, the models behind it, and how far the vector index
is from the units it should hold (`vector_stats`, migrations/0008; documents per corpus
from corpus_stats), with the reasons in words.

Pure: the route reads the rows and the Runtime; this module only decides. The JSON shape
is rendered by worker/views.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, field
from typing import Any

from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.semantics import Semantics

# What a mode does when no reranker is set up, where that differs from its name:
# worker/recall/modes.retrieve returns quality's list unreranked (fallback "no_reranker"),
# which is the list of the mode named here (tests/local/semantic/test_status_http.py holds
# the two equal, so a change in modes.py that breaks this says so).
WITHOUT_RERANKER: Mapping[RetrievalMode, RetrievalMode] = {
    RetrievalMode.QUALITY: RetrievalMode.ADAPTIVE,
}
NO_EMBEDDER = "no embedder is set up"


@dataclass(frozen=True)
class ModelVectors:
    """One row of vector_stats: how many vectors of a corpus one model made."""

    corpus: str
    model: str
    dimensions: int  # 0: recorded before migration 0008
    vectors: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ModelVectors:
        return cls(corpus=str(row["corpus"]), model=str(row["model"]),
                   dimensions=int(row["dimensions"] or 0), vectors=int(row["vectors"] or 0))

    def made_by(self, model: str, dimensions: int) -> bool:
        return self.model == model and self.dimensions in (0, dimensions)


@dataclass(frozen=True)
class VectorHealth:
    indexed: int  # vectors of the current model
    pending: int  # units without one (from the counters; exact once orphans are removed)
    stale: int  # vectors of another model or size, re-embedded as indexing runs
    model: str | None  # the model most vectors were made with; None when there are none


@dataclass(frozen=True)
class Indexing:
    """How far behind vector indexing is: `pending` units without a vector, whether a run
    is under way, and at what rate it embeds (None until a run of this process measured
    it; at the edge each request starts afresh) with the time left at that rate."""

    pending: int
    running: bool
    rate_per_s: float | None
    eta_s: int | None

    @property
    def behind(self) -> bool:
        return self.pending > 0


@dataclass(frozen=True)
class RetrievalStatus:
    mode: RetrievalMode
    configured: str | None
    embedder: tuple[str, int] | None  # (model, dimensions)
    reranker: str | None
    vectors: VectorHealth | None
    notes: list[str] = field(default_factory=list)
    indexing: Indexing | None = None
    # The embedder does not answer (worker/retrieval_status/probe.py).
    embedder_error: str | None = None


def _duration(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def indexing_note(indexing: Indexing, units: int) -> str:
    """The words /status gives when indexing is behind."""
    state = "indexing is under way" if indexing.running else "indexing is queued"
    if indexing.rate_per_s and indexing.eta_s is not None:
        state += (f", about {_duration(indexing.eta_s)} left at "
                  f"{indexing.rate_per_s:.1f} units/s")
    return (f"indexing is behind: {indexing.pending} of {units} units have no vector yet "
            f"({state}); semantic recall misses them until it catches up")


def vector_health(stats: Sequence[ModelVectors], units: int, model: str, dimensions: int,
                  held: int | None = None) -> tuple[VectorHealth, list[str]]:
    """`units`: the retrieval units that should have a vector (sections and conversation
    units); `held`: how many vectors the index itself holds, when it can say."""
    indexed = sum(s.vectors for s in stats if s.made_by(model, dimensions))
    stale = [s for s in stats if not s.made_by(model, dimensions)]
    by_model: dict[str, int] = {}
    for s in stats:
        by_model[s.model] = by_model.get(s.model, 0) + s.vectors
    majority = max(by_model, key=lambda m: (by_model[m], m == model)) if by_model else None
    health = VectorHealth(indexed=indexed, pending=max(0, units - indexed),
                          stale=sum(s.vectors for s in stale), model=majority)
    notes = []
    per_old: dict[tuple[str, int], int] = {}
    for s in stale:
        per_old[(s.model, s.dimensions)] = per_old.get((s.model, s.dimensions), 0) + s.vectors
    for (old, size), count in sorted(per_old.items(), key=lambda kv: (-kv[1], kv[0])):
        notes.append(f"vector index built with model {old} ({size or '?'} dimensions), "
                     f"current model {model} ({dimensions} dimensions): {count} stale, "
                     "re-embedded as indexing runs (locally `mallory reindex --vectors` "
                     "does it at once)")
    if held is not None and held < indexed:
        notes.append(f"the vector index holds {held} vectors where {indexed} are recorded: "
                     "run `mallory reindex --vectors`")
    return health, notes


def retrieval_status(configured: str, default: RetrievalMode, semantics: Semantics | None,
                     stats: Sequence[ModelVectors], units: int,
                     problem: str | None = None,
                     embedder_error: str | None = None) -> RetrievalStatus:
    """`default`: the mode the Runtime picks (Runtime.mode); `problem`: why there are no
    semantics, in words for the owner (nothing installed, an index that cannot be opened);
    `embedder_error`: the embedder is set up but does not answer: every recall steps down
    to lexical (worker/recall/modes.py), so that is the mode reported."""
    notes: list[str] = []
    chose_lexical = configured == RetrievalMode.LEXICAL.value  # nothing to explain
    if semantics is None:
        reason = problem or NO_EMBEDDER
        if default is not RetrievalMode.LEXICAL:
            notes.append(f"{default.value} behaves like lexical: {reason}")
        elif not chose_lexical:
            notes.append(f"recall is lexical: {reason}")
        unused = sum(s.vectors for s in stats)
        if unused:
            notes.append(f"{unused} vectors in the index are unused: {reason}")
        return RetrievalStatus(RetrievalMode.LEXICAL, configured or None, None, None, None,
                               notes)
    embedder, reranker = semantics.embedder, semantics.reranker
    mode = default
    if embedder_error is not None and default is not RetrievalMode.LEXICAL:
        mode = RetrievalMode.LEXICAL
        notes.append(f"{default.value} steps down to lexical on every request: "
                     f"{embedder_error}")
    elif reranker is None and default in WITHOUT_RERANKER:
        mode = WITHOUT_RERANKER[default]
        notes.append(f"{default.value} behaves like {mode.value}: no reranker is set up")
    elif reranker is None and default is RetrievalMode.ADAPTIVE:
        notes.append("adaptive never reranks: no reranker is set up")
    held = len(semantics.index) if isinstance(semantics.index, Sized) else None
    health, vector_notes = vector_health(stats, units, embedder.model, embedder.dimensions,
                                         held)
    progress = semantics.progress
    indexing = Indexing(pending=health.pending, running=progress.running > 0,
                        rate_per_s=progress.rate, eta_s=progress.eta_s(health.pending))
    if indexing.behind and not health.stale:
        vector_notes.insert(0, indexing_note(indexing, units))
    return RetrievalStatus(mode, configured or None, (embedder.model, embedder.dimensions),
                           reranker.model if reranker is not None else None, health,
                           notes + vector_notes, indexing, embedder_error)

"""What /status says about retrieval, decided from the counters and the Runtime's parts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from worker.recall.retrieval_mode import RetrievalMode
from worker.retrieval_status.report import (
    WITHOUT_RERANKER,
    ModelVectors,
    retrieval_status,
    vector_health,
)
from worker.semantic.semantics import Semantics

MODEL = "local/all-MiniLM-L6-v2-int8@8199be6f699a.be50c3628f2b/t256"
OLD = "local/all-MiniLM-L6-v2-int8@000000000000.be50c3628f2b/t256"


@dataclass
class Parts:
    """Only the identities status reads; the adapters themselves are tested elsewhere."""

    model: str = MODEL
    dimensions: int = 384
    max_batch: int = 16


class SizedIndex:
    def __init__(self, held: int) -> None:
        self.held = held

    def __len__(self) -> int:
        return self.held


def semantics(held: int | None = None, reranker: Parts | None = None) -> Semantics:
    index = SizedIndex(held) if held is not None else object()
    return Semantics(embedder=Parts(), index=index, reranker=reranker)  # type: ignore[arg-type]


def rows(*counts: tuple[str, str, int, int]) -> Sequence[ModelVectors]:
    return [ModelVectors(c, m, d, n) for c, m, d, n in counts]


def test_current_vectors_count_as_indexed_and_the_rest_as_pending() -> None:
    health, notes = vector_health(rows(("notes", MODEL, 384, 30), ("messages", MODEL, 384, 8)),
                                  units=50, model=MODEL, dimensions=384)
    assert (health.indexed, health.pending, health.stale, health.model) == (38, 12, 0, MODEL)
    assert notes == []  # retrieval_status says how far behind indexing is


def test_pending_units_say_indexing_is_behind_with_the_time_left_once_a_rate_is_known(
        ) -> None:
    parts = semantics()
    counts = rows(("notes", MODEL, 384, 30), ("messages", MODEL, 384, 8))
    before = retrieval_status("", RetrievalMode.HYBRID, parts, counts, units=50)
    assert before.indexing is not None
    assert (before.indexing.behind, before.indexing.pending, before.indexing.running,
            before.indexing.rate_per_s, before.indexing.eta_s) == (True, 12, False, None, None)
    assert before.notes == ["indexing is behind: 12 of 50 units have no vector yet "
                            "(indexing is queued); semantic recall misses them until it "
                            "catches up"]
    parts.progress.record(units=100, seconds=50.0)  # 2 units/s
    parts.progress.running += 1
    during = retrieval_status("", RetrievalMode.HYBRID, parts, counts, units=50)
    assert during.indexing is not None and during.indexing.eta_s == 6
    assert during.notes == ["indexing is behind: 12 of 50 units have no vector yet "
                            "(indexing is under way, about 6 s left at 2.0 units/s); semantic "
                            "recall misses them until it catches up"]
    done = retrieval_status("", RetrievalMode.HYBRID, parts,
                            rows(("notes", MODEL, 384, 50)), units=50)
    assert done.indexing is not None and not done.indexing.behind and done.notes == []


def test_vectors_from_before_dimensions_were_recorded_are_current() -> None:
    health, notes = vector_health(rows(("notes", MODEL, 0, 5)), units=5, model=MODEL,
                                  dimensions=384)
    assert (health.indexed, health.pending, health.stale) == (5, 0, 0) and notes == []


def test_another_model_or_size_is_stale_and_named() -> None:
    health, notes = vector_health(
        rows(("notes", OLD, 384, 40), ("messages", OLD, 384, 10), ("notes", MODEL, 384, 5),
             ("notes", MODEL, 768, 2)), units=57, model=MODEL, dimensions=384)
    assert (health.indexed, health.pending, health.stale, health.model) == (5, 52, 52, OLD)
    assert notes == [
        f"vector index built with model {OLD} (384 dimensions), current model {MODEL} "
        "(384 dimensions): 50 stale, re-embedded as indexing runs (locally `mallory reindex "
        "--vectors` does it at once)",
        f"vector index built with model {MODEL} (768 dimensions), current model {MODEL} "
        "(384 dimensions): 2 stale, re-embedded as indexing runs (locally `mallory reindex "
        "--vectors` does it at once)"]


def test_an_index_holding_fewer_vectors_than_recorded_says_how_to_repair() -> None:
    status = retrieval_status("", RetrievalMode.HYBRID, semantics(held=0),
                              rows(("notes", MODEL, 384, 3)), units=3)
    assert status.vectors is not None and status.vectors.indexed == 3
    assert status.notes == ["the vector index holds 0 vectors where 3 are recorded: run "
                            "`mallory reindex --vectors`"]


def test_without_semantics_recall_is_lexical_whatever_was_configured() -> None:
    status = retrieval_status("hybrid", RetrievalMode.HYBRID, None,
                              rows(("notes", OLD, 384, 4)), units=9,
                              problem="the vector index cannot be used (x)")
    assert (status.mode, status.configured, status.embedder, status.vectors) == (
        RetrievalMode.LEXICAL, "hybrid", None, None)
    assert status.notes == ["hybrid behaves like lexical: the vector index cannot be used (x)",
                            "4 vectors in the index are unused: the vector index cannot be "
                            "used (x)"]
    plain = retrieval_status("", RetrievalMode.LEXICAL, None, [], units=0)
    assert (plain.configured, plain.notes) == (None, ["recall is lexical: no embedder is "
                                                      "set up"])
    chosen = retrieval_status("lexical", RetrievalMode.LEXICAL, None, [], units=0,
                              problem="no local embedder is installed")
    assert (chosen.mode, chosen.configured, chosen.notes) == (RetrievalMode.LEXICAL,
                                                              "lexical", [])


def test_quality_without_a_reranker_says_what_it_behaves_like() -> None:
    status = retrieval_status("quality", RetrievalMode.QUALITY, semantics(), [], units=0)
    like = WITHOUT_RERANKER[RetrievalMode.QUALITY]
    assert (status.mode, status.reranker) == (like, None)
    assert status.notes[0] == f"quality behaves like {like.value}: no reranker is set up"
    adaptive = retrieval_status("", RetrievalMode.ADAPTIVE, semantics(), [], units=0)
    assert adaptive.mode is RetrievalMode.ADAPTIVE
    assert adaptive.notes == ["adaptive never reranks: no reranker is set up"]
    reranked = retrieval_status("quality", RetrievalMode.QUALITY,
                                semantics(reranker=Parts(model="@cf/baai/bge-reranker-base")),
                                [], units=0)
    assert (reranked.mode, reranked.reranker, reranked.notes) == (
        RetrievalMode.QUALITY, "@cf/baai/bge-reranker-base", [])

"""Retrieval modes on real SQLite with the edge adapters (Workers AI embedder and reranker,
Vectorize index) over stand-ins of the bindings that answer in the documented shapes.
The stand-in embedder maps words onto a few concept axes, so paraphrase is something it
can bridge and the tests can say which unit the vectors favour."""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from local.sqlite_db import SqliteDatabase
from shared.rank.policy import AUTOMATIC, EXPLICIT
from shared.text.sanitiser import Mode, build_query
from tests.conftest import NOW_MS, note, store_notes
from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.fake_workers_ai import RERANKER, FakeWorkersAI, overlap_score
from worker.corpora.filters import Filters
from worker.indexing.indexer import index_pending
from worker.recall import modes
from worker.recall.lexical import LexicalResult
from worker.recall.modes import retrieve
from worker.recall.retrieval_mode import Ran, RetrievalMode
from worker.semantic.edge import edge_semantics
from worker.semantic.ports import EmbedKind
from worker.semantic.semantics import Semantics

DIMS = 384
CONCEPTS = {  # word → axis: the stand-in's "meaning"
    "money": 0, "refund": 0, "reimburse": 0, "back": 0, "return": 0, "price": 0,
    "tomato": 1, "tomatoes": 1, "plants": 1, "garden": 1, "shoots": 1,
    "parcel": 2, "parcels": 2, "shipping": 2, "tracking": 2, "warehouse": 2,
}


def concept_vector(text: str) -> list[float]:
    out = [0.0] * DIMS
    for word in text.lower().replace(".", " ").replace(",", " ").split():
        if word in CONCEPTS:
            out[CONCEPTS[word]] += 1.0
        else:  # every other word: a small private direction
            out[3 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % (DIMS - 3)] += 0.3
    return out


def answer(model: str, inputs: dict[str, Any]) -> dict[str, Any]:
    if model == RERANKER:  # the reranker as the stand-in answers it
        ranked = sorted(({"id": i, "score": overlap_score(inputs["query"], c["text"])}
                         for i, c in enumerate(inputs["contexts"])), key=lambda r: -r["score"])
        return {"response": ranked}
    texts = inputs["text"] if isinstance(inputs["text"], list) else [inputs["text"]]
    return {"shape": [len(texts), DIMS], "pooling": inputs.get("pooling", "mean"),
            "data": [concept_vector(t) for t in texts]}


NOTES = (
    note("Shop/Refund policy.md", "Customers may return goods within 30 days. We reimburse "
         "the full price.", title="Refund policy"),
    note("Shop/Shipping.md", "Parcels leave the warehouse on weekdays, with tracking.",
         title="Shipping"),
    note("Garden/Tomatoes.md", "Pinch out the side shoots of tomato plants.",
         title="Tomatoes"),
    note("Dev/pg-pull.md", "heroku pg:pull copies the production database to Postgres.",
         title="heroku pg:pull"),
)


async def indexed(db: SqliteDatabase, ai: FakeWorkersAI) -> Semantics:
    await store_notes(db, *NOTES)
    edge = edge_semantics(ai, FakeVectorize(DIMS))
    sem = Semantics(edge.embedder, edge.index, edge.reranker, source="workers-ai")
    while (await index_pending(db, sem, NOW_MS)).more:
        pass
    return sem


async def run(db: SqliteDatabase, sem: Semantics | None, text: str, mode: RetrievalMode
              ) -> modes.Retrieved:
    return await retrieve(db, sem, build_query(text, Mode.EXPLICIT), Filters(limit=10),
                          NOW_MS, mode)


def order(found: modes.Retrieved) -> list[str]:
    best: dict[str, float] = {}
    for c in found.candidates:
        best[c.identity.id] = max(best.get(c.identity.id, -math.inf), c.scores.final)
    return sorted(best, key=lambda k: -best[k])


async def test_adaptive_bridges_a_paraphrase_lexical_cannot(db: SqliteDatabase) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    lexical = await run(db, sem, "I want my money back", RetrievalMode.LEXICAL)
    assert "Shop/Refund policy.md" not in order(lexical)  # it shares no word
    adaptive = await run(db, sem, "I want my money back", RetrievalMode.ADAPTIVE)
    assert (adaptive.ran.mode, adaptive.ran.fallback) == (RetrievalMode.ADAPTIVE, None)
    assert order(adaptive)[0] == "Shop/Refund policy.md"


async def test_an_exact_title_keeps_the_lexical_order(db: SqliteDatabase) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    found = await run(db, sem, "heroku pg:pull", RetrievalMode.ADAPTIVE)
    assert order(found)[0] == "Dev/pg-pull.md"
    lexical_units = [c for c in found.candidates if c.scores.lexical_rank]
    assert lexical_units and all(c.scores.fused is None for c in lexical_units)
    assert all(c.scores.fused == 0.0 for c in found.candidates if not c.scores.lexical_rank)


async def test_an_exact_title_keeps_the_lexical_order_within_the_gate_depth(
        db: SqliteDatabase) -> None:
    # The bound is made for the blend (worker/recall/fused_depth.py): on an exact identity
    # recall searches again without it, and lists what the unbounded search lists.
    edge = await indexed(db, FakeWorkersAI(answer=answer))
    sem = Semantics(edge.embedder, edge.index, None)
    # "heroku!" is another word to the stand-in embedder: the logs are no vector hits,
    # the money pages are (the query's "refund").
    await store_notes(db, note("Dev/Refund heroku.md", "How heroku bills a refund.",
                               title="Refund heroku"),
                      *(note(f"Dev/log {i}.md", "heroku! " * (1 + i % 5) + "deploy")
                        for i in range(30)),
                      *(note(f"Other/{i}.md", f"money back, page {i}") for i in range(40)),
                      batch_id="logs")
    while (await index_pending(db, sem, NOW_MS)).more:
        pass
    query = build_query("refund heroku", Mode.AUTOMATIC)
    filters = Filters(limit=AUTOMATIC.candidates, standing=AUTOMATIC.standing)
    whole = await retrieve(db, sem, query, filters, NOW_MS, RetrievalMode.ADAPTIVE)
    bounded = await retrieve(db, sem, query, replace(filters, depth=3), NOW_MS,
                             RetrievalMode.ADAPTIVE)
    assert whole.exact and bounded.exact and order(bounded)[0] == "Dev/Refund heroku.md"
    assert bounded.candidates == whole.candidates


async def test_hybrid_fuses_by_reciprocal_rank(db: SqliteDatabase) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    found = await run(db, sem, "return the price", RetrievalMode.HYBRID)
    assert found.ran.mode is RetrievalMode.HYBRID
    both = [(c.scores.fused, lexical, vector) for c in found.candidates
            if (lexical := c.scores.lexical_rank) and (vector := c.scores.vector_rank)]
    assert both and all(fused == pytest.approx(1 / (60 + lexical) + 1 / (60 + vector))
                        for fused, lexical, vector in both)


async def test_quality_always_reranks_and_adaptive_only_when_unsure(
        db: SqliteDatabase) -> None:
    ai = FakeWorkersAI(answer=answer)
    sem = await indexed(db, ai)
    calls = len(ai.calls)
    quality = await run(db, sem, "tomato shoots", RetrievalMode.QUALITY)
    assert any(c.scores.rerank is not None for c in quality.candidates)
    assert [m for m, _ in ai.calls[calls:]].count(RERANKER) == 1
    calls = len(ai.calls)
    # a question word escalates adaptive to the reranker
    asked = await run(db, sem, "how do I pinch tomato shoots", RetrievalMode.ADAPTIVE)
    assert any(c.scores.rerank is not None for c in asked.candidates)
    assert [m for m, _ in ai.calls[calls:]].count(RERANKER) == 1


async def test_quality_without_a_reranker_is_adaptive_and_says_so(db: SqliteDatabase) -> None:
    edge = await indexed(db, FakeWorkersAI(answer=answer))
    sem = Semantics(edge.embedder, edge.index, None)
    found = await run(db, sem, "I want my money back", RetrievalMode.QUALITY)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.QUALITY, "no_reranker")
    assert order(found)[0] == "Shop/Refund policy.md"


def broken(kind: str):
    def reply(model: str, inputs: dict[str, Any]) -> dict[str, Any]:
        good = answer(model, inputs)
        if model == RERANKER:
            return good
        if kind == "dimension":
            good["data"] = [v[:100] for v in good["data"]]
        elif kind == "nan":
            good["data"] = [[math.nan] * DIMS for _ in good["data"]]
        return good
    return reply


@pytest.mark.parametrize(("kind", "code"), [("dimension", "embedder_failed"),
                                            ("nan", "embedder_failed")])
async def test_a_bad_embedding_steps_down_to_lexical_with_a_code(
        db: SqliteDatabase, kind: str, code: str) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    bad = edge_semantics(FakeWorkersAI(answer=broken(kind)), FakeVectorize(DIMS))
    sem = Semantics(bad.embedder, sem.index, None)
    found = await run(db, sem, "refund policy", RetrievalMode.ADAPTIVE)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.LEXICAL, code)
    assert order(found)[0] == "Shop/Refund policy.md"


async def test_an_embedder_error_or_a_slow_one_steps_down(db: SqliteDatabase) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    failing = edge_semantics(FakeWorkersAI(error=RuntimeError("AiError: 3040: capacity")),
                             FakeVectorize(DIMS))
    found = await run(db, Semantics(failing.embedder, sem.index), "refund policy",
                      RetrievalMode.HYBRID)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.LEXICAL, "embedder_failed")

    class Slow:
        model, dimensions, max_batch = sem.embedder.model, DIMS, 100

        async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
            await asyncio.sleep(5)
            return []

    found = await run(db, Semantics(Slow(), sem.index, budget_s=0.05), "refund policy",
                      RetrievalMode.HYBRID)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.LEXICAL, "semantic_timeout")
    assert order(found)[0] == "Shop/Refund policy.md"


async def test_without_an_embedder_a_semantic_mode_is_lexical_with_a_code(
        db: SqliteDatabase) -> None:
    await store_notes(db, *NOTES)
    found = await run(db, None, "refund policy", RetrievalMode.ADAPTIVE)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.LEXICAL, "no_embedder")


class CountedBatches:
    """The real database, counting the D1 batches it has answered."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db, self.batches = db, 0

    def prepare(self, sql: str) -> Any:
        return self.db.prepare(sql)

    async def batch(self, statements: Sequence[Any]) -> list[Any]:
        self.batches += 1
        return await self.db.batch(statements)


async def test_the_query_is_embedded_while_d1_answers_the_lexical_search(
        db: SqliteDatabase) -> None:
    sem = await indexed(db, FakeWorkersAI(answer=answer))
    counted = CountedBatches(db)
    seen: list[tuple[str, int]] = []

    class InFlight:  # the edge embedder, its request in flight for one turn of the loop
        model, dimensions, max_batch = sem.embedder.model, DIMS, 100

        async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
            seen.append(("asked", counted.batches))
            await asyncio.sleep(0)
            seen.append(("answered", counted.batches))
            return await sem.embedder.embed(texts, kind)

    found = await retrieve(counted, Semantics(InFlight(), sem.index),  # type: ignore[arg-type]
                           build_query("return the price", Mode.EXPLICIT), Filters(limit=10),
                           NOW_MS, RetrievalMode.HYBRID)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.HYBRID, None)
    # Asked before the lexical search's first batch went out, answered after D1 had
    # answered the lexical search: the two were in flight together; then one batch
    # resolves the vector hits.
    [(asked, before), (answered, lexical_batches)] = seen
    assert (asked, before, answered) == ("asked", 0, "answered")
    assert lexical_batches >= 1 and counted.batches == lexical_batches + 1
    # Bounded by the gate's depth (worker/recall/fused_depth.py), the same: asked before
    # the first pass, answered after it; then one batch resolves the hits. The first pass
    # read its rows whole, so the kept rows need no second read (Corpus.whole_ranked_sql).
    seen.clear()
    counted.batches = 0
    await retrieve(counted, Semantics(InFlight(), sem.index),  # type: ignore[arg-type]
                   build_query("return the price", Mode.AUTOMATIC),
                   Filters(limit=10, standing=AUTOMATIC.standing, depth=AUTOMATIC.depth),
                   NOW_MS, RetrievalMode.HYBRID)
    [(asked, before), (answered, lexical_batches)] = seen
    assert (asked, before, answered) == ("asked", 0, "answered")
    assert lexical_batches >= 1 and counted.batches == lexical_batches + 1


def test_a_list_fused_by_rank_lends_no_score_between_adjacent_units() -> None:
    def ran(mode: RetrievalMode) -> modes.Retrieved:
        return modes.Retrieved(lexical=LexicalResult(query=build_query("x", Mode.EXPLICIT)),
                               ran=Ran(mode=mode))

    assert modes.lending(EXPLICIT, ran(RetrievalMode.HYBRID)).adjacent_share == 0.0
    for mode in (RetrievalMode.LEXICAL, RetrievalMode.ADAPTIVE, RetrievalMode.QUALITY):
        assert modes.lending(EXPLICIT, ran(mode)) is EXPLICIT
    assert modes.lending(AUTOMATIC, ran(RetrievalMode.HYBRID)) is AUTOMATIC


@pytest.mark.parametrize("mode", [RetrievalMode.HYBRID, RetrievalMode.ADAPTIVE])
async def test_the_gate_depth_leaves_out_only_what_changes_no_kept_candidate(
        db: SqliteDatabase, mode: RetrievalMode) -> None:
    # worker/recall/fused_depth.py: with the depth, groups sure to rank past it are not
    # built, and every candidate that is keeps the scores and ranks of the whole list.
    edge = await indexed(db, FakeWorkersAI(answer=answer))
    sem = Semantics(edge.embedder, edge.index, None)  # with a reranker adaptive is unbounded
    await store_notes(db, *(note(f"Log/day {i}.md", " ".join(["kettle"] * (1 + i % 7)) +
                                 " descaled with vinegar" + " and more words" * i,
                                 mtime=NOW_MS - (1 + i) * 86_400_000) for i in range(30)),
                      # What the vectors favour (the query's "refund"), with the log below.
                      *(note(f"Other/{i}.md", f"money back, page {i}",
                             mtime=NOW_MS - 400 * 86_400_000) for i in range(35)),
                      # A vector hit low in the lexical list: built, under left-out rows.
                      note("Log/money.md", "money back for the kettle and more words and "
                           "more words and more words and more words"),
                      batch_id="logs")
    while (await index_pending(db, sem, NOW_MS)).more:
        pass
    # Written since the indexer ran: no vector yet, so its candidate is `pending` (the
    # bounded search's first pass reads that, Corpus.whole_ranked_sql).
    await store_notes(db, note("Log/fresh.md", "kettle kettle kettle descaled with vinegar"),
                      batch_id="fresh")
    query = build_query("kettle vinegar refund", Mode.AUTOMATIC)
    filters = Filters(limit=AUTOMATIC.candidates, standing=AUTOMATIC.standing)
    whole = await retrieve(db, sem, query, filters, NOW_MS, mode)
    bounded = await retrieve(db, sem, query, replace(filters, depth=3), NOW_MS, mode)
    assert whole.lexical.cut is None and bounded.lexical.cut is not None
    full = {c.identity.unit: c for c in whole.candidates}
    assert len(bounded.candidates) < len(full)
    assert all(full[c.identity.unit] == c for c in bounded.candidates)
    assert {c.identity.id for c in bounded.candidates if c.scores.pending} == {"Log/fresh.md"}
    lexical = [c for c in bounded.candidates if c.scores.lexical_rank]
    assert max(c.scores.lexical_rank or 0 for c in lexical) > len(lexical)
    if mode is RetrievalMode.HYBRID:  # hits alone in their groups are left out too
        hits = [c for c in bounded.candidates if not c.scores.lexical_rank]
        assert len(hits) < len([c for c in whole.candidates if not c.scores.lexical_rank])
    assert not {c.identity.group for c in bounded.candidates} & {
        group for _, group in bounded.lexical.cut.groups}

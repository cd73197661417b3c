"""The Workers AI reranker against a stand-in `AI` binding that answers
`{"response": [{"id", "score"}]}` best first, as documented."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.worker.semantic.fake_workers_ai import FakeWorkersAI, overlap_score
from tests.worker.semantic.js_standins import JsException
from worker.semantic.ports import RerankerError
from worker.semantic.workers_ai_rerank import RERANK_MAX_BATCH, WorkersAIReranker

PASSAGES = ["the weather in Lisbon", "refund policy for the shop", "shop opening hours"]


@pytest.mark.parametrize("proxies", [False, True])
async def test_scores_come_back_in_input_order(proxies: bool) -> None:
    ai = FakeWorkersAI(proxies=proxies)
    scores = await WorkersAIReranker(ai).rerank("shop refund", PASSAGES)
    assert scores == [overlap_score("shop refund", p) for p in PASSAGES]
    assert max(range(3), key=scores.__getitem__) == 1
    model, inputs = ai.calls[0]
    assert model == "@cf/baai/bge-reranker-base"
    assert inputs == {"query": "shop refund", "contexts": [{"text": p} for p in PASSAGES],
                      "top_k": 3}


async def test_blank_passages_are_not_sent_and_rank_last() -> None:
    ai = FakeWorkersAI()
    scores = await WorkersAIReranker(ai).rerank("shop", ["", "shop hours", "  "])
    assert scores[0] == scores[2] == -math.inf and math.isfinite(scores[1])
    assert ai.calls[0][1]["contexts"] == [{"text": "shop hours"}]


async def test_only_blank_passages_make_no_call() -> None:
    ai = FakeWorkersAI()
    assert await WorkersAIReranker(ai).rerank("shop", ["", " "]) == [-math.inf, -math.inf]
    assert await WorkersAIReranker(ai).rerank("shop", []) == []
    assert ai.calls == []


async def test_long_lists_are_split_without_changing_scores() -> None:
    ai = FakeWorkersAI()
    passages = [f"passage {i} about shop" if i % 7 else f"note {i}" for i in range(250)]
    scores = await WorkersAIReranker(ai).rerank("shop", passages)
    assert [len(inputs["contexts"]) for _, inputs in ai.calls] == [100, 100, 50]
    assert RERANK_MAX_BATCH == 100
    assert scores == [overlap_score("shop", p) for p in passages]


@pytest.mark.parametrize("query", ["", "   ", None])
async def test_an_empty_query_is_refused_before_any_call(query: Any) -> None:
    ai = FakeWorkersAI()
    with pytest.raises(RerankerError, match="non-empty query"):
        await WorkersAIReranker(ai).rerank(query, PASSAGES)
    assert ai.calls == []


async def test_non_string_passages_are_refused() -> None:
    with pytest.raises(RerankerError, match="passage 1 is a int"):
        await WorkersAIReranker(FakeWorkersAI()).rerank("q", ["a", 3])  # type: ignore[list-item]  # the bad input is the point
    with pytest.raises(RerankerError, match="not one string"):
        await WorkersAIReranker(FakeWorkersAI()).rerank("q", "abc")


BAD_ANSWERS = {
    "no response": ({"result": []}, "without a `response` list"),
    "not an object": ([{"id": 0, "score": 1.0}], "without a `response` list"),
    "id out of range": ({"response": [{"id": 0, "score": 1}, {"id": 1, "score": 1},
                                      {"id": 3, "score": 1}]}, "context id 3"),
    "boolean id": ({"response": [{"id": True, "score": 1}]}, "context id True"),
    "id missing": ({"response": [{"score": 1}]}, "context id None"),
    "duplicate id": ({"response": [{"id": 0, "score": 1}, {"id": 0, "score": 2}]},
                     "scored context 0 twice"),
    "a context unscored": ({"response": [{"id": 2, "score": 1}, {"id": 0, "score": 0.5}]},
                           r"left contexts \[1\] unscored"),
    "NaN score": ({"response": [{"id": 0, "score": math.nan}]}, "score nan"),
    "string score": ({"response": [{"id": 0, "score": "0.9"}]}, "score '0.9'"),
}


@pytest.mark.parametrize("proxies", [False, True])
@pytest.mark.parametrize("case", BAD_ANSWERS.values(), ids=BAD_ANSWERS.keys())
async def test_every_bad_answer_becomes_a_reranker_error(case, proxies: bool) -> None:
    answer, message = case
    ai = FakeWorkersAI(answer=lambda model, inputs: answer, proxies=proxies)
    with pytest.raises(RerankerError, match=message) as caught:
        await WorkersAIReranker(ai).rerank("q", PASSAGES)
    assert caught.value.code == "reranker_failed"


async def test_a_failing_binding_becomes_a_reranker_error() -> None:
    ai = FakeWorkersAI(error=JsException("AiError: 5007: No such model"))
    with pytest.raises(RerankerError, match="No such model"):
        await WorkersAIReranker(ai).rerank("q", PASSAGES)


def test_a_missing_binding_is_named() -> None:
    with pytest.raises(RerankerError, match="binding named AI"):
        WorkersAIReranker(None)

"""Model providers: the Workers AI binding (a stand-in for the JS binding), configuration."""

from __future__ import annotations

from typing import Any

import pytest

from shared.api.errors import MalloryError, UpstreamError
from shared.api.wire import Source
from worker.config import Runtime, Settings
from worker.providers import OfflineResponder, Prompt, WorkersAI, provider_for


class FakeAI:
    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def run(self, model: str, inputs: dict[str, Any]) -> object:
        self.calls.append((model, inputs))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def prompt(sources: list[Source] | None = None) -> Prompt:
    return Prompt(recall_block="<recall>\n[1] x\n</recall>" if sources else "",
                  sources=sources or [], user_text="what was the kitchen budget?")


async def test_workers_ai_gets_the_messages_and_returns_the_response() -> None:
    ai = FakeAI({"response": "  Hi there [1]  "})
    answer = await WorkersAI(ai, "@cf/test/model").complete(prompt())
    assert answer == "Hi there [1]"
    model, inputs = ai.calls[0]
    assert model == "@cf/test/model"
    assert inputs["messages"][0]["role"] == "system"
    assert inputs["messages"][-1]["content"].endswith("what was the kitchen budget?")


@pytest.mark.parametrize("answer", [RuntimeError("AiError: 3040 capacity"), {"nope": 1}])
async def test_workers_ai_failures_are_upstream_errors(answer: object) -> None:
    with pytest.raises(UpstreamError):
        await WorkersAI(FakeAI(answer), "m").complete(prompt())


async def test_offline_responder_cites_every_injected_source() -> None:
    sources = [Source(n=1, kind="note", id="a.md", label="A", snippet="alpha", href="x"),
               Source(n=2, kind="message", id="m", label="Chat", snippet="beta", href="/?msg=m")]
    answer = await OfflineResponder().complete(prompt(sources))
    assert "[1]" in answer and "[2]" in answer and "your note “A”" in answer
    assert "found nothing" in await OfflineResponder().complete(prompt())
    small_talk = Prompt(recall_block="", sources=[], user_text="hi, how are you?")
    assert (await OfflineResponder().complete(small_talk)).startswith("Hello!")


def test_provider_configuration_errors_are_clear(db) -> None:
    with pytest.raises(MalloryError, match="OPENAI_BASE_URL"):
        provider_for(Runtime(db=db, settings=Settings(model_provider="openai")))
    with pytest.raises(MalloryError, match="binding named AI"):
        provider_for(Runtime(db=db, settings=Settings(model_provider="workers-ai")))
    with pytest.raises(MalloryError, match="unknown MODEL_PROVIDER"):
        provider_for(Runtime(db=db, settings=Settings(model_provider="gpt")))

"""A small install, end to end over real HTTP (uvicorn on SQLite, the offline responder):
a handful of messages, a fact told in one conversation, then asked about in a new one in
other words. A young install's failure: nothing was recalled, because bm25() counted the
question's own stored message (every term looked common) and one word the owner had never
used before sank the hit under the gate's floor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from local.thread_server import running_server

FACT = "My sister Hannah's wedding is on 14 June in Porto."


@pytest.fixture
def install(tmp_path: Path) -> Iterator[tuple[httpx.Client, str]]:
    """Four messages in three conversations; returns the client and the fact's id."""
    with running_server(tmp_path / "small.sqlite") as server, \
            httpx.Client(base_url=server.url, timeout=30,
                         headers={"origin": server.url}) as http:
        first = ask(http, "hi! can you help me plan the week ahead?")
        ask(http, "I need to renew my passport before the summer", first["conversation_id"])
        fact = ask(http, FACT)
        ask(http, "remind me to water the plants tomorrow morning")
        yield http, fact["user_message"]["id"]


def ask(http: httpx.Client, content: str, conversation_id: str | None = None) -> dict:
    body = {"content": content, **({"conversation_id": conversation_id}
                                   if conversation_id else {})}
    response = http.post("/api/chat", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def recalled(reply: dict) -> list[str]:
    return [s["id"] for s in reply["assistant_message"]["sources"]]


@pytest.mark.parametrize("question", [
    "when is Hannah's wedding?",
    "when is the wedding in Porto",
    "when is Hannah's wedding ceremony?",  # "ceremony": a word no message holds
])
def test_a_fact_told_once_is_recalled_in_a_new_conversation(
        install: tuple[httpx.Client, str], question: str) -> None:
    http, fact_id = install
    reply = ask(http, question)
    assert reply["recall"]["injected"] == 1
    assert recalled(reply) == [fact_id]
    assert "Porto" in reply["assistant_message"]["content"]  # the responder quotes it


@pytest.mark.parametrize("question", [
    "what is the capital of Burkina Faso",  # one known word, two unknown
    "how do I unclog a kitchen sink",
    "thanks, that's great",
])
def test_a_question_memory_cannot_answer_recalls_nothing(
        install: tuple[httpx.Client, str], question: str) -> None:
    http, _ = install
    reply = ask(http, question)
    assert reply["recall"]["injected"] == 0
    assert recalled(reply) == []

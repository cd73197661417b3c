"""Forgetting, end to end over real HTTP (uvicorn on SQLite, the offline responder): a
fact told in chat is found by /api/search and by a later chat's recall; once deleted,
neither finds it again, and the later answer that quoted it is withdrawn from recall."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from local.thread_server import RunningServer, running_server

FACT = "I keep the spare bike keys in the turquoise ceramic jar"
QUESTION = "where are the spare bike keys?"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "forget.sqlite") as s:
        yield s


def hit_ids(http: httpx.Client, q: str) -> list[str]:
    response = http.get("/api/search", params={"q": q})
    assert response.status_code == 200, response.text
    return [h["id"] for h in response.json()["hits"]]


def ask(http: httpx.Client, content: str) -> dict:
    response = http.post("/api/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_forgotten_fact_is_neither_searched_nor_recalled(server: RunningServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30, headers={"origin": server.url}) as http:
        told = ask(http, FACT)
        fact_id = told["user_message"]["id"]
        assert fact_id in hit_ids(http, "turquoise ceramic jar")

        later = ask(http, QUESTION)
        assert fact_id in [s["id"] for s in later["assistant_message"]["sources"]]
        # The offline responder quotes what it recalled, so the later answer holds the
        # fact too: forgetting the fact withdraws that answer from recall.
        answer_id = later["assistant_message"]["id"]
        assert "turquoise" in later["assistant_message"]["content"]
        assert answer_id in hit_ids(http, "turquoise ceramic jar")

        forgot = http.delete(f"/api/messages/{fact_id}")
        # The later answer, and the reply to the fact (written with it as its prompt).
        assert forgot.status_code == 200 and sorted(forgot.json()["withdrawn_ids"]) == sorted(
            [answer_id, told["assistant_message"]["id"]])
        again = http.delete(f"/api/messages/{fact_id}")
        assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"

        assert hit_ids(http, "turquoise ceramic jar") == []
        # Only the owner's later question is left to find: it never held the fact.
        assert hit_ids(http, "spare bike keys") == [later["user_message"]["id"]]
        recalled = ask(http, QUESTION)
        # ... but a question without its answer is no memory: nothing is recalled.
        assert recalled["assistant_message"]["sources"] == []
        assert "turquoise" not in recalled["assistant_message"]["content"]
        kept_answer = http.get(f"/api/messages/{answer_id}")
        assert kept_answer.status_code == 200  # withdrawn, kept in its history, redacted
        assert (kept_answer.json()["message"]["withdrawn"],
                kept_answer.json()["message"]["content"]) == (True, "")

        assert http.get(f"/api/messages/{fact_id}").status_code == 404
        status = http.get("/status").json()
        kept = [told["assistant_message"]["id"], later["user_message"]["id"], answer_id,
                recalled["user_message"]["id"], recalled["assistant_message"]["id"]]
        assert status["corpora"]["messages"] == len(kept)
        listed = http.get("/api/conversations").json()["conversations"]
        assert later["conversation_id"] in [c["id"] for c in listed]
        first = next(c for c in listed if c["id"] == told["conversation_id"])
        assert first["title"] == ""  # it was the forgotten message's text

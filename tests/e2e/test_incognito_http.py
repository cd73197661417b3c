"""Incognito conversations and the memory pause over real HTTP (`mallory serve`'s
server on SQLite, the local MiniLM in adaptive mode, the offline responder).

Nothing written in an incognito conversation is ever recalled: not by search in any
mode the server runs, not by a chat's automatic recall, not by the inspector, not
through a vector. A pause stops automatic recall and indexing; resuming indexes what was
written meanwhile, which is then recalled as usual."""

from __future__ import annotations

import httpx
import pytest

from local.thread_server import RunningServer
from tests.e2e.test_fresh_memory_http import wait_indexed

pytestmark = pytest.mark.embed

SECRET = "My safe deposit box is number 5512 at Banca Quercia, key in the red tin."
SECRET_AGAIN = "The Banca Quercia box also holds the deeds to the cottage."
ASK_SECRET = "where is my safe deposit box and what is its number?"
PARAPHRASE = "which bank keeps my valuables?"
TOLD = "Remember this: the spare key for the shed is under the blue geranium pot."
ASK_TOLD = "where did I say the spare shed key is hidden?"
PAUSED_FACT = "The plumber Ottavio comes on Thursday to fix the leaking radiator."
ASK_PAUSED = "when does the plumber Ottavio come to fix the radiator?"
# In the incognito text and in none of the questions asked (those become memory).
SECRET_WORDS = ("5512", "red tin")


def post(server: RunningServer, path: str, body: dict, method: str = "POST"
         ) -> httpx.Response:
    return httpx.request(method, f"{server.url}{path}", json=body, timeout=120,
                         headers={"Origin": server.url})


def chat(server: RunningServer, text: str, conversation_id: str | None = None, *,
         incognito: bool = False) -> dict:
    body: dict = {"content": text}
    if conversation_id:
        body["conversation_id"] = conversation_id
    if incognito:
        body["incognito"] = True
    response = post(server, "/api/chat", body)
    assert response.status_code == 200, response.text
    return response.json()


def get(server: RunningServer, path: str, **params: str) -> dict:
    response = httpx.get(f"{server.url}{path}", params=params, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("mode", ["lexical", "adaptive"])
def test_nothing_written_in_incognito_is_ever_recalled(serve_mode, mode) -> None:
    server = serve_mode(mode)
    told = chat(server, TOLD)
    hidden = chat(server, SECRET, incognito=True)
    assert hidden["incognito"] is True
    hidden_id = hidden["conversation_id"]
    chat(server, SECRET_AGAIN, hidden_id)  # a later turn of it is incognito too
    hidden_ids = {m["id"] for m in get(server, f"/api/conversations/{hidden_id}/messages")
                  ["messages"]}
    assert len(hidden_ids) == 4
    if mode != "lexical":
        wait_indexed(server)  # every vector that will ever be written is written

    modes = ["lexical"] if mode == "lexical" else ["lexical", "hybrid", "adaptive", "quality"]
    for query in (ASK_SECRET, PARAPHRASE, "Banca Quercia", "deeds cottage"):
        for asked in modes:
            found = get(server, "/api/search", q=query, mode=asked)
            assert found["mode"] == asked
            assert not {h["id"] for h in found["hits"]} & hidden_ids, (query, asked)
            trace = get(server, "/api/inspect/search", q=query, mode=asked)
            assert not {c["id"] for c in trace["candidates"]} & hidden_ids
        answer = chat(server, query)  # a new, ordinary conversation
        assert answer["incognito"] is False
        shown = answer["assistant_message"]
        assert not {s["id"] for s in shown["sources"]} & hidden_ids
        assert not any(w in shown["content"].lower() for w in SECRET_WORDS), query
    # The ordinary memory is recalled as usual, so the search above was a real one.
    found = get(server, "/api/search", q=ASK_TOLD)
    assert found["hits"][0]["href"] == f"/?msg={told['user_message']['id']}"

    missing = get(server, "/api/inspect/missing", q=ASK_SECRET,
                  message=hidden["user_message"]["id"])
    assert missing["rule"] == "incognito" and missing["label"] is None
    con = server.db.connection
    assert con.execute("SELECT count(*) AS n FROM conversation_units WHERE conversation_id = ?",
                       (hidden_id,)).fetchone()["n"] == 0
    [listed] = [c for c in get(server, "/api/conversations")["conversations"]
                if c["id"] == hidden_id]
    assert listed["incognito"] is True


@pytest.mark.parametrize("mode", ["lexical", "adaptive"])
def test_pause_stops_recall_and_indexing_and_resume_catches_up(serve_mode, mode) -> None:
    server = serve_mode(mode)
    told = chat(server, TOLD)
    if mode != "lexical":
        wait_indexed(server)
    paused = post(server, "/api/memory/pause", {"paused": True}, "PUT").json()
    assert paused["paused"] is True and paused["indexed"] == 0
    assert get(server, "/status")["memory"]["paused"] is True
    assert get(server, "/api/memory/pause")["paused_at"] == paused["paused_at"]

    asked = chat(server, ASK_TOLD)  # automatic recall is off
    assert (asked["recall"]["skipped"], asked["recall"]["injected"]) == ("paused", 0)
    later = chat(server, PAUSED_FACT)  # not indexed while paused
    assert later["conversation_id"] not in {
        h["conversation_id"] for h in get(server, "/api/search", q=ASK_PAUSED)["hits"]}
    # Explicit search still reads what memory held before the pause.
    assert get(server, "/api/search", q=ASK_TOLD)["hits"][0]["href"] == \
        f"/?msg={told['user_message']['id']}"
    con = server.db.connection
    assert con.execute("SELECT count(*) AS n FROM conversation_units WHERE conversation_id "
                       "IN (?, ?)", (asked["conversation_id"], later["conversation_id"])
                       ).fetchone()["n"] == 0

    resumed = post(server, "/api/memory/pause", {"paused": False}, "PUT").json()
    assert (resumed["paused"], resumed["paused_at"]) == (False, None)
    # Two turns of two messages: the owner's two are indexed; the offline replies only
    # said that nothing was found, which is no memory (worker/offline_replies.py).
    assert resumed["indexed"] == 2
    assert get(server, "/status")["memory"] == {"paused": False, "paused_at": None}
    if mode != "lexical":
        wait_indexed(server)  # resuming embeds them in the background
    found = get(server, "/api/search", q=ASK_PAUSED)
    assert found["hits"][0]["href"] == f"/?msg={later['user_message']['id']}"
    answer = chat(server, ASK_PAUSED)
    assert answer["recall"]["skipped"] is None and answer["recall"]["injected"] >= 1
    assert "Ottavio" in answer["assistant_message"]["content"]


def test_bad_pause_and_incognito_requests_change_nothing(serve_mode) -> None:
    server = serve_mode("lexical")
    first = chat(server, TOLD)
    for body in ({}, {"paused": "yes"}, {"paused": 1}, {"paused": True, "extra": 1}):
        response = post(server, "/api/memory/pause", body, "PUT")
        assert response.status_code == 422, body
        assert "paused" in response.text or "extra" in response.text
    assert get(server, "/api/memory/pause")["paused"] is False
    for body in ({"content": "x", "incognito": True,
                  "conversation_id": first["conversation_id"]},
                 {"content": "x", "incognito": "true"}):
        response = post(server, "/api/chat", body)
        assert response.status_code == 422, body
        assert "incognito" in response.text
    assert get(server, "/status")["corpora"]["messages"] == 2

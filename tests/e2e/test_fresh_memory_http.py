"""Fresh memory over real HTTP (`mallory serve`'s server, the local MiniLM in the
semantic modes, the offline responder): what the owner said is recallable from the next
turn on, in every mode, while its vectors are still being written; a young index of a
few exchanges still finds the one that answers; the first query after start-up does not
step down to lexical."""

from __future__ import annotations

import time

import httpx
import pytest

from local.thread_server import RunningServer

pytestmark = pytest.mark.embed

SHED_KEY = "Remember this: the spare key for the shed is under the blue geranium pot."
ASKED = "where did I say the spare shed key is hidden?"
SMALL_TALK = ("I had porridge with blueberries for breakfast.",
              "The train to work was late again this morning.",
              "My sister is visiting next weekend.",
              "I finally finished the book about the Roman roads.",
              "The washing machine makes a strange noise on spin.")


def wait_indexed(server: RunningServer, timeout_s: float = 120) -> None:
    con, deadline = server.db.connection, time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        units = con.execute("SELECT count(*) AS n FROM conversation_units").fetchone()["n"]
        vectors = con.execute("SELECT count(*) AS n FROM vector_units "
                              "WHERE corpus = 'messages'").fetchone()["n"]
        if vectors >= units:
            return
        time.sleep(0.1)
    raise AssertionError("the messages were not embedded in time")


def chat(server: RunningServer, text: str, conversation_id: str | None = None) -> dict:
    body = {"content": text, **({"conversation_id": conversation_id} if conversation_id
                                else {})}
    response = httpx.post(f"{server.url}/api/chat", json=body, timeout=120,
                          headers={"Origin": server.url})
    assert response.status_code == 200, response.text
    return response.json()


def search(server: RunningServer, q: str) -> dict:
    response = httpx.get(f"{server.url}/api/search", params={"q": q}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("mode", ["lexical", "adaptive"])
def test_the_shed_key_is_found_in_a_young_index_from_the_next_turn_on(serve_mode, mode) -> None:
    server = serve_mode(mode)
    told = chat(server, SHED_KEY)
    for text in SMALL_TALK:
        chat(server, text)
    # At once: the background indexing may not have embedded the last turns yet.
    found = search(server, ASKED)
    assert found["mode"] == mode and found["fallback"] is None
    assert found["hits"][0]["href"] == f"/?msg={told['user_message']['id']}"
    assert found["hits"][0]["relevance"] >= 0.3
    answer = chat(server, ASKED)  # a new conversation
    assert answer["recall"]["mode"] == mode and answer["recall"]["fallback"] is None
    assert answer["recall"]["injected"] >= 1
    assert "geranium" in answer["assistant_message"]["content"]
    if mode != "lexical":
        wait_indexed(server)  # the background work ends before the server does


def test_the_first_query_after_start_up_runs_in_the_mode_asked_for(serve_mode) -> None:
    # The model loads before the server takes requests: within recall's own budget.
    server = serve_mode("adaptive", budget_s=None)
    found = search(server, "spare key")
    assert (found["mode"], found["fallback"]) == ("adaptive", None)

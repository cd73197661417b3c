"""Forget, delete and withdrawal with semantic recall on, end to end over real HTTP with
the local MiniLM embedder (the server of `mallory serve`, vectors beside it): what only
the vectors find, a forgotten message, a deleted note and the answer withdrawn with it,
never comes back through /api/search or a chat's recall, in hybrid and adaptive."""

from __future__ import annotations

import time

import httpx
import pytest

from local.thread_server import RunningServer
from tests.e2e.conftest import sync_notes
from tests.e2e.test_modes_http import PARAPHRASE, REFUND, ids, search, serve  # noqa: F401

pytestmark = pytest.mark.embed

FACT = "My landlord promised to reimburse the deposit once I hand over the flat keys"
ASK = "money back after buying something"  # bridged to the refund note by the cosine bar


def chat(server: RunningServer, content: str) -> dict:
    response = httpx.post(f"{server.url}/api/chat", json={"content": content},
                          headers={"origin": server.url}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def wait_messages_indexed(server: RunningServer, timeout_s: float = 60) -> None:
    """Until the background indexing has embedded every conversation unit."""
    deadline = time.monotonic() + timeout_s
    con = server.db.connection
    while time.monotonic() < deadline:
        units = {r["id"] for r in con.execute("SELECT id FROM conversation_units")}
        vectors = {r["unit_id"] for r in con.execute(
            "SELECT unit_id FROM vector_units WHERE corpus = 'messages'")}
        if units <= vectors:
            return
        time.sleep(0.1)
    raise AssertionError("the conversation was not embedded in time")


@pytest.mark.parametrize("mode", ["hybrid", "adaptive"])
def test_nothing_forgotten_deleted_or_withdrawn_comes_back(serve, mode: str) -> None:  # noqa: F811
    server = serve(mode)
    told = chat(server, FACT)
    fact_id = told["user_message"]["id"]
    wait_messages_indexed(server)
    found = search(server, "getting my money back from the landlord")
    assert fact_id in ids(found) and found["fallback"] is None

    answered = chat(server, ASK)
    answer_id = answered["assistant_message"]["id"]
    assert REFUND in [s["id"] for s in answered["assistant_message"]["sources"]]
    wait_messages_indexed(server)
    quoted = "reimburse the full price to the original card"  # the answer quotes the note
    assert answer_id in ids(search(server, quoted))

    forgot = httpx.delete(f"{server.url}/api/messages/{fact_id}",
                          headers={"origin": server.url})
    assert forgot.status_code == 200, forgot.text
    gone = sync_notes(server, deletes=[{"path": REFUND, "deleted_at": 1}], batch_id="gone")
    assert gone["deleted"] == 1 and gone["withdrawn"] == 1
    wait_messages_indexed(server)
    for q in (PARAPHRASE, "getting my money back from the landlord", ASK, quoted):
        hits = ids(search(server, q))
        assert not {fact_id, answer_id, REFUND} & set(hits), (q, hits)
    again = chat(server, ASK)
    shown = [s["id"] for s in again["assistant_message"]["sources"]]
    assert not {fact_id, answer_id, REFUND} & set(shown)
    assert server.db.connection.execute(
        "SELECT count(*) AS n FROM vector_units WHERE unit_id LIKE ?",
        (f"{told['assistant_message']['id']}:%",)).fetchone()["n"] <= 1  # the reply alone

"""Saved memories over HTTP through the app on real SQLite: "Remember that …" proposes a
fact and saves nothing until the owner confirms it; a saved memory is listed, found,
recalled, ranked as a stable canonical note and always eligible (several at once, worded
as a question or not); bad input is a 4xx that stores nothing; export and import carry
the memories and the owner's feedback, and a forgotten message never comes back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from local.server import WithRuntime
from shared.rank.policy import STANDING
from tests.conftest import BASE_URL, Clock, migrated_db, note, sync
from worker.app import create_app
from worker.config import Runtime, Settings

JSON = {"content-type": "application/json"}
ASK = "Remember that my bike lock code is 4173, on the red D-lock."


async def ok(response: httpx.Response) -> dict:
    assert response.status_code == 200, f"{response.request.url}: {response.text}"
    return response.json()


async def chat(client: httpx.AsyncClient, content: str, **more: object) -> dict:
    return await ok(await client.post("/api/chat", json={"content": content, **more}))


async def listed(client: httpx.AsyncClient) -> list[dict]:
    return (await ok(await client.get("/api/memories")))["memories"]


@pytest.fixture
async def empty_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    database = await migrated_db()
    app = WithRuntime(create_app(), Runtime(db=database, settings=settings, clock=Clock()))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as c:
        yield c
    database.close()


async def test_remember_that_proposes_and_the_owner_confirms(client: httpx.AsyncClient) -> None:
    said = await chat(client, ASK)
    assert said["proposed_memory"] == "My bike lock code is 4173, on the red D-lock."
    assert await listed(client) == []  # nothing saved before the owner confirms
    assert (await chat(client, "what is the weather like?"))["proposed_memory"] is None
    source = said["user_message"]["id"]
    saved = await ok(await client.post("/api/memories", json={
        "fact": "  My bike lock code is 4173 (red D-lock).  ", "source_message_id": source}))
    assert saved["fact"] == "My bike lock code is 4173 (red D-lock)."  # as edited, trimmed
    assert (saved["source_message_id"], saved["source_href"]) == (source, f"/?msg={source}")
    assert saved["href"] == f"/?msg={saved['id']}"
    assert [m["id"] for m in await listed(client)] == [saved["id"]]
    # Its own conversation is not one of the owner's chats.
    chats = (await ok(await client.get("/api/conversations")))["conversations"]
    assert "saved-memories" not in [c["id"] for c in chats]
    looked_up = await ok(await client.get(f"/api/messages/{saved['id']}"))
    assert looked_up["message"]["content"] == saved["fact"]


async def test_a_saved_memory_ranks_as_canonical_and_is_always_eligible(
        client: httpx.AsyncClient) -> None:
    await chat(client, "the pool locker code is 5521 and the padlock is turquoise")
    facts = ["The pool locker code is 5521 and the padlock is turquoise",
             "Is the gym locker code 7720? Yes: the gym locker code is 7720",
             "The office locker code is 3308"]
    ids = [(await ok(await client.post("/api/memories", json={"fact": f})))["id"]
           for f in facts]
    trace = await ok(await client.get("/api/inspect/search",
                                      params={"q": "pool locker code turquoise padlock"}))
    by_id = {c["id"]: c for c in trace["candidates"]}
    saved, plain = by_id[ids[0]], next(c for c in trace["candidates"]
                                       if c["kind"] == "message" and c["id"] not in ids)
    # The same words: the saved memory carries the stable canonical note's standing.
    assert saved["standing"] == pytest.approx(1 + STANDING.stable_canonical)
    assert plain["standing"] == pytest.approx(1.0)
    assert saved["rank"] < plain["rank"]
    # Each saved memory is its own group: in automatic recall none takes another's slot
    # (one per conversation), and the one worded as a question is not set aside as a bare
    # question before the gate.
    asked = await chat(client, "what are the gym locker code and the office locker code?")
    why = await ok(await client.get(f"/api/inspect/answers/{asked['assistant_message']['id']}"))
    rules = {c["id"]: c["decision"]["rule"] for c in why["candidates"]}
    assert {ids[1], ids[2]} <= set(rules), rules
    assert "group_taken" not in {rules[ids[1]], rules[ids[2]]}, rules
    recalled = await chat(client, "is the gym locker code 7720?")
    assert recalled["recall"]["injected"] >= 1
    assert ids[1] in {s["id"] for s in recalled["assistant_message"]["sources"]}
    assert "7720" in recalled["assistant_message"]["content"]


async def test_bad_memory_requests_are_4xx_and_store_nothing(client: httpx.AsyncClient) -> None:
    said = await chat(client, "the boiler is serviced every May")
    answer = said["assistant_message"]["id"]
    for body, status, word in (({"fact": "   "}, 422, "fact"),
                               ({"fact": "x" * 501}, 422, "500"),
                               ({"fact": "a\x07b"}, 422, "control"),
                               ({"fact": "\u200b\u200b"}, 422, "no visible character"),
                               ({}, 422, "fact"),
                               ({"fact": "ok", "extra": 1}, 422, "extra"),
                               ({"fact": "ok", "source_message_id": "nope"}, 404, "nope")):
        response = await client.post("/api/memories", json=body)
        assert response.status_code == status and word in response.text, (body, response.text)
    assert await listed(client) == []
    for method in ("PATCH", "DELETE"):
        for target in ("unknown", answer):  # an ordinary message is no saved memory
            response = await client.request(method, f"/api/memories/{target}",
                                            json={"fact": "x"} if method == "PATCH" else None)
            assert response.status_code == 404, response.text
    assert (await ok(await client.get(f"/api/messages/{answer}")))["message"]["content"]
    saved = await ok(await client.post("/api/memories", json={"fact": "Boiler: May"}))
    refused = await client.patch(f"/api/memories/{saved['id']}", json={"fact": ""})
    assert refused.status_code == 422
    assert [m["fact"] for m in await listed(client)] == ["Boiler: May"]


async def test_export_and_import_carry_memories_and_feedback_and_never_a_forgotten_message(
        client: httpx.AsyncClient, empty_client: httpx.AsyncClient) -> None:
    for c in (client, empty_client):
        await sync(c, note("Home/Boiler.md", "The boiler is serviced every May by Ottavio.",
                           title="Boiler"))
    said = await chat(client, "Remember that the boiler pressure should read 1.5 bar")
    saved = await ok(await client.post("/api/memories", json={
        "fact": said["proposed_memory"], "source_message_id": said["user_message"]["id"]}))
    asked = await chat(client, "who services the boiler every May?")
    [cited] = [s for s in asked["assistant_message"]["sources"] if s["kind"] == "note"]
    await ok(await client.post("/api/feedback", json={
        "message_id": asked["assistant_message"]["id"], "n": cited["n"],
        "judgment": "relevant"}))
    doomed = await chat(client, "my safe combination is 9-3-1-7")
    exported = (await client.get("/api/export")).content
    doc = json.loads(exported)
    assert [m["id"] for m in doc["saved_memories"]] == [saved["id"]]
    assert len(doc["feedback"]) == 1

    back = await ok(await empty_client.post("/api/import", params={"format": "mallory"},
                                            content=exported, headers=JSON))
    assert (back["saved_memories"], back["feedback"], back["forgotten"]) == (1, 1, 0)
    [memory] = await listed(empty_client)
    assert (memory["id"], memory["fact"], memory["source_message_id"]) == \
        (saved["id"], saved["fact"], saved["source_message_id"])
    page = await ok(await empty_client.get(
        f"/api/conversations/{asked['conversation_id']}/messages"))
    [answer] = [m for m in page["messages"] if m["role"] == "assistant"]
    assert answer["judgments"] == {str(cited["n"]): "relevant"}
    again = await ok(await empty_client.post("/api/import", params={"format": "mallory"},
                                             content=exported, headers=JSON))
    assert (again["added"], again["saved_memories"], again["feedback"]) == (0, 0, 0)

    # Forgotten after the export: a re-import of it must not bring it back.
    for c in (client, empty_client):
        await ok(await c.delete(f"/api/messages/{doomed['user_message']['id']}"))
        await ok(await c.delete(f"/api/memories/{saved['id']}"))
    for c in (client, empty_client):
        redo = await ok(await c.post("/api/import", params={"format": "mallory"},
                                     content=exported, headers=JSON))
        assert (redo["added"], redo["forgotten"], redo["saved_memories"]) == (0, 2, 0), redo
        assert await listed(c) == []
        response = await c.get(f"/api/messages/{doomed['user_message']['id']}")
        assert response.status_code == 404
        hits = (await ok(await c.get("/api/search", params={"q": "safe combination"})))
        assert hits["hits"] == []


async def test_a_saved_memory_is_recalled_in_place_of_the_message_it_was_saved_from(
        client: httpx.AsyncClient) -> None:
    """The fact once, as the owner approved it: not beside the message it came from."""
    said = await chat(client, ASK)
    saved = await ok(await client.post("/api/memories", json={
        "fact": said["proposed_memory"], "source_message_id": said["user_message"]["id"]}))
    for _ in range(2):
        asked = await chat(client, "what is my bike lock code?")
        assert [s["id"] for s in asked["assistant_message"]["sources"]] == [saved["id"]]
    # Search lists both: the owner asked, and reads where the fact came from.
    found = await ok(await client.get("/api/search", params={"q": "bike lock code"}))
    assert {saved["id"], said["user_message"]["id"]} <= {h["id"] for h in found["hits"]}

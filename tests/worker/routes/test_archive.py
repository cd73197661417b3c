"""POST /api/import and GET /api/export over HTTP on real SQLite: imported turns are
recalled and deep-linked like native ones, a repeat adds nothing, a bad file stores
nothing, and an export imported into an empty Mallory gives the same recall."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from local.server import WithRuntime
from tests.conftest import BASE_URL, NOW_MS, Clock, migrated_db, note, sync
from worker.app import create_app
from worker.config import Runtime, Settings

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
QUESTIONS = ("gravel tyre pressure", "rye sourdough starter fridge", "tomato balcony pot",
             "basil watering")


async def post_file(client: httpx.AsyncClient, fmt: str, name: str, **params: str
                    ) -> httpx.Response:
    return await client.post("/api/import", params={"format": fmt, **params},
                             content=(EXPORTS / name).read_bytes(),
                             headers={"content-type": "application/json"})


async def import_all(client: httpx.AsyncClient) -> list[dict]:
    bodies = []
    for fmt, name in (("chatgpt", "chatgpt_conversations.json"),
                      ("claude", "claude_conversations.json"),
                      ("openwebui", "openwebui_export.json")):
        r = await post_file(client, fmt, name)
        assert r.status_code == 200, r.text
        bodies.append(r.json())
    return bodies


async def hit_ids(client: httpx.AsyncClient, q: str) -> list[str]:
    r = await client.get("/api/search", params={"q": q, "source": "messages"})
    assert r.status_code == 200, r.text
    return [h["id"] for h in r.json()["hits"]]


def table_counts(db: object) -> dict[str, int]:
    conn: sqlite3.Connection = db.connection  # type: ignore[attr-defined]
    return {t: conn.execute(f"SELECT count(*) AS n FROM {t}").fetchone()["n"]
            for t in ("conversations", "messages", "conversation_units")}


async def test_imported_turns_are_recalled_and_deep_linked(client: httpx.AsyncClient) -> None:
    chatgpt, claude, openwebui = await import_all(client)
    assert (chatgpt["conversations"], chatgpt["messages"], chatgpt["added"]) == (1, 4, 4)
    assert [p["item"] for p in chatgpt["problems"]] == ["conversation 1",
                                                        "conversation 2 ('Only empty turns')"]
    assert (claude["added"], openwebui["added"]) == (2, 4)
    for q in QUESTIONS:
        assert await hit_ids(client, q), q
    [first] = (await hit_ids(client, "sidewall 45 psi maximum"))[:1]
    r = await client.get(f"/api/messages/{first}")
    assert r.status_code == 200
    message = r.json()
    assert "45 psi" in message["message"]["content"]
    convs = (await client.get("/api/conversations")).json()["conversations"]
    titles = {c["title"] for c in convs}
    assert {"Bike tyre pressure", "Sourdough starter schedule", "Balcony tomatoes"} <= titles
    # timestamps are the export's, not the import's
    page = (await client.get(f"/api/conversations/{message['message']['conversation_id']}"
                             "/messages")).json()
    assert min(m["created_at"] for m in page["messages"]) == "2026-01-01T00:00:01Z"


async def test_chat_recalls_an_imported_exchange(client: httpx.AsyncClient) -> None:
    await import_all(client)
    r = await client.post("/api/chat", json={"content": "what tyre pressure did we settle on "
                                             "for the 40 mm tubeless gravel tyres?"})
    assert r.status_code == 200, r.text
    assert r.json()["recall"]["injected"] >= 1


async def test_importing_the_same_file_again_adds_nothing(client: httpx.AsyncClient,
                                                          db: object) -> None:
    await import_all(client)
    before = table_counts(db)
    again = await import_all(client)
    assert [b["added"] for b in again] == [0, 0, 0]
    assert [b["already_present"] for b in again] == [4, 2, 4]
    assert table_counts(db) == before


async def test_a_dry_run_stores_nothing(client: httpx.AsyncClient, db: object) -> None:
    before = table_counts(db)
    r = await post_file(client, "chatgpt", "chatgpt_conversations.json", dry_run="1")
    assert r.status_code == 200 and r.json()["dry_run"] is True and r.json()["messages"] == 4
    assert table_counts(db) == before


@pytest.mark.parametrize(("fmt", "body", "status", "needle"), [
    ("chatgpt", b'{"conversations": []}', 400, "JSON list of conversations"),
    ("claude", b"[1, 2]", 422, "nothing in the file could be imported"),
    ("gemini", b"[]", 400, "format must be one of"),
    ("mallory", b"[]", 400, "mallory-export"),
    ("openwebui", b"[{", 400, "JSON"),
])
async def test_bad_files_are_clear_4xx_and_store_nothing(client: httpx.AsyncClient, db: object,
                                                        fmt: str, body: bytes, status: int,
                                                        needle: str) -> None:
    before = table_counts(db)
    r = await client.post("/api/import", params={"format": fmt}, content=body,
                          headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert needle.lower() in json.dumps(r.json()).lower()
    assert table_counts(db) == before


@pytest.fixture
async def empty_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    database = await migrated_db()
    app = WithRuntime(create_app(), Runtime(db=database, settings=settings, clock=Clock()))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as c:
        yield c
    database.close()


async def test_an_export_imported_into_an_empty_mallory_recalls_the_same(
        client: httpx.AsyncClient, empty_client: httpx.AsyncClient) -> None:
    await import_all(client)
    r = await client.post("/api/chat", json={"content": "remind me how often to feed the rye "
                                             "starter from the fridge"})
    assert r.status_code == 200
    exported = await client.get("/api/export")
    assert exported.status_code == 200
    doc = exported.json()
    assert doc["format"] == "mallory-export" and doc["saved_memories"] == []
    assert sum(len(c["messages"]) for c in doc["conversations"]) == 12
    back = await empty_client.post("/api/import", params={"format": "mallory"},
                                   content=exported.content,
                                   headers={"content-type": "application/json"})
    assert back.status_code == 200, back.text
    assert back.json()["added"] == 12
    for q in (*QUESTIONS, "rye starter fridge"):
        assert await hit_ids(empty_client, q) == await hit_ids(client, q), q
    again = (await empty_client.get("/api/export")).json()
    assert again["conversations"] == doc["conversations"]
    # What the answer was shown comes back with it: an answer that only repeats the past
    # messages it quoted is an echo of them in both (shared/rank/echoes.py).
    answer = r.json()["assistant_message"]["id"]
    assert doc["quotes"] and {q["answer_id"] for q in doc["quotes"]} == {answer}
    assert again["quotes"] == doc["quotes"]


async def test_an_incognito_conversation_stays_incognito_through_export_and_import(
        client: httpx.AsyncClient, empty_client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat", json={"content": "my locker code is 90210, the "
                                             "turquoise padlock", "incognito": True})
    assert r.status_code == 200 and r.json()["incognito"] is True
    exported = await client.get("/api/export")
    [conversation] = exported.json()["conversations"]
    assert conversation["incognito"] is True and len(conversation["messages"]) == 2
    back = await empty_client.post("/api/import", params={"format": "mallory"},
                                   content=exported.content,
                                   headers={"content-type": "application/json"})
    assert back.status_code == 200 and back.json()["added"] == 2
    assert await hit_ids(empty_client, "turquoise padlock locker") == []
    [listed] = (await empty_client.get("/api/conversations")).json()["conversations"]
    assert listed["incognito"] is True
    bad = json.loads(exported.content)
    bad["conversations"][0]["incognito"] = "yes"
    refused = await empty_client.post("/api/import", params={"format": "mallory"},
                                      content=json.dumps(bad),
                                      headers={"content-type": "application/json"})
    assert refused.status_code == 422 and "incognito" in refused.text


async def test_the_zip_holds_the_json_and_a_markdown_file_per_conversation(
        client: httpx.AsyncClient) -> None:
    await import_all(client)
    r = await client.get("/api/export", params={"as": "zip"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        names = z.namelist()
        doc = json.loads(z.read("mallory-export.json"))
        pages = [n for n in names if n.startswith("conversations/")]
        assert len(pages) == len(doc["conversations"]) == 4
        tyres = next(z.read(n).decode() for n in pages if "Bike tyre" in n)
    assert tyres.startswith("# Bike tyre pressure")
    assert "## You · 2026-01-01T00:00:01Z" in tyres and "## Mallory ·" in tyres
    assert (await client.get("/api/export", params={"as": "pdf"})).status_code == 400


@pytest.mark.parametrize("value", ["maybe", "2", "on"])
async def test_a_dry_run_value_not_understood_is_a_400_and_stores_nothing(
        client: httpx.AsyncClient, db: object, value: str) -> None:
    before = table_counts(db)
    r = await post_file(client, "chatgpt", "chatgpt_conversations.json", dry_run=value)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "bad_dry_run" and "dry_run" in r.text
    assert table_counts(db) == before


async def test_what_was_forgotten_stays_forgotten_in_a_new_mallory_fed_an_older_export(
        client: httpx.AsyncClient, empty_client: httpx.AsyncClient) -> None:
    """An export made before a forget, imported into a Mallory built from an export made
    after it, does not bring the forgotten message back: the later export names what was
    forgotten (ids only), and its import records them first."""
    await import_all(client)
    older = (await client.get("/api/export")).content
    [gone, *_] = await hit_ids(client, "rye sourdough starter fridge")
    assert (await client.delete(f"/api/messages/{gone}")).status_code == 200
    newer = (await client.get("/api/export")).json()
    assert gone in newer["forgotten"]
    assert all(gone != m["id"] for c in newer["conversations"] for m in c["messages"])
    for body in (json.dumps(newer).encode(), older):
        r = await empty_client.post("/api/import", params={"format": "mallory"}, content=body,
                                    headers={"content-type": "application/json"})
        assert r.status_code == 200, r.text
    assert r.json()["forgotten"] == 1  # the older export's copy of it, skipped
    assert gone not in await hit_ids(empty_client, "rye sourdough starter fridge")
    again = (await empty_client.get("/api/export")).json()
    assert gone in again["forgotten"]
    assert all(gone != m["id"] for c in again["conversations"] for m in c["messages"])


async def test_a_withdrawn_answer_comes_back_as_the_placeholder_it_was(
        client: httpx.AsyncClient, empty_client: httpx.AsyncClient, db: object) -> None:
    """Exported as `withdrawn: true` with no text, imported as a withdrawn answer under its
    own id: the conversation keeps its shape and links, nothing of the answer is recalled,
    and the owner's question before it is recalled alone, as it is where the export was
    made. The file's text for a withdrawn answer is never read back."""
    await sync(client, note("Garage/Door.md", "The garage door code is 4711, the keypad "
                            "left of the shutter.", title="Garage door"), batch_id="seed")
    chat = (await client.post("/api/chat", json={"content": "what is the garage door "
                                                 "keypad code?"})).json()
    answer = chat["assistant_message"]["id"]
    assert chat["assistant_message"]["sources"], chat
    gone = await sync(client, deletes=[{"path": "Garage/Door.md", "deleted_at": NOW_MS}],
                      batch_id="gone")
    assert gone.json()["withdrawn"] == 1
    exported = (await client.get("/api/export")).json()
    [conv] = exported["conversations"]
    by_id = {m["id"]: m for m in conv["messages"]}
    assert by_id[answer]["withdrawn"] is True and by_id[answer]["content"] == ""
    assert [m["withdrawn"] for m in conv["messages"]] == [False, True]
    asked = await hit_ids(client, "garage door keypad code")
    assert answer not in asked and asked  # the question, recalled alone
    # Words put back into a withdrawn answer by hand stay out too.
    conv["messages"][1]["content"] = "The garage door code is 4711."
    back = await empty_client.post("/api/import", params={"format": "mallory"},
                                   content=json.dumps(exported),
                                   headers={"content-type": "application/json"})
    assert back.status_code == 200, back.text
    assert back.json()["added"] == 2 and back.json()["problems"] == []
    history = (await empty_client.get(
        f"/api/conversations/{conv['id']}/messages")).json()["messages"]
    assert {m["id"]: (m["withdrawn"], m["content"]) for m in history}[answer] == (True, "")
    assert len(history) == 2
    assert await hit_ids(empty_client, "garage door keypad code") == asked
    assert await hit_ids(empty_client, "4711") == []
    again = (await empty_client.get("/api/export")).json()
    conv["messages"][1]["content"] = ""
    assert again["conversations"] == exported["conversations"]
    page = (await empty_client.get("/api/export", params={"as": "zip"})).content
    with zipfile.ZipFile(io.BytesIO(page)) as z:
        [name] = [n for n in z.namelist() if n.startswith("conversations/")]
        assert "Withdrawn: it was given with a note or message" in z.read(name).decode()


@pytest.mark.parametrize(("message", "problem"), [
    ({"id": "m1", "role": "assistant", "content": "", "created_at": 1, "withdrawn": "yes"},
     "withdrawn must be true or false"),
    ({"id": "m1", "role": "user", "content": "", "created_at": 1, "withdrawn": True},
     "only an answer of Mallory's"),
])
async def test_a_message_that_says_it_was_withdrawn_wrongly_is_reported_and_skipped(
        empty_client: httpx.AsyncClient, message: dict, problem: str) -> None:
    doc = {"format": "mallory-export", "version": 1, "exported_at": 1,
           "conversations": [{"id": "c1", "title": "t", "created_at": 1, "updated_at": 1,
                              "messages": [{"id": "m0", "role": "user", "content": "hello",
                                            "created_at": 1}, message]}]}
    r = await empty_client.post("/api/import", params={"format": "mallory"},
                                content=json.dumps(doc),
                                headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["added"] == 1
    [reported] = r.json()["problems"]
    assert reported["item"] == "conversation 0 (c1) message 1"
    assert problem in reported["message"] and reported["message"].endswith("skipped")

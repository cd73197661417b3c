"""worker/routes/manage.py through the ASGI app on real SQLite: forget and rename."""

from __future__ import annotations

import json

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from shared.api.wire import Source
from shared.block.citations import message_href
from tests.conftest import NOW_MS
from tests.rows import one
from worker.store import chats

MATCH_SQL = ("SELECT rowid FROM conversation_units_fts "
             "WHERE conversation_units_fts MATCH ?")


async def fts_count(db: SqliteDatabase, word: str) -> int:
    return len((await db.prepare(MATCH_SQL).bind(word).all()).results)


async def docs(db: SqliteDatabase) -> int:
    """The conversation index's document count, checked against its units."""
    row = await one(db.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'messages'"))
    units = await one(db.prepare("SELECT count(*) AS n FROM conversation_units"))
    assert row["docs"] == units["n"]
    return int(row["docs"])


async def snapshot(db: SqliteDatabase) -> list[dict]:
    rows = (await db.prepare("SELECT id, conversation_id, seq, content, sources FROM messages "
                             "ORDER BY rid").all()).results
    convs = (await db.prepare("SELECT * FROM conversations ORDER BY id").all()).results
    return [*rows, *convs, {"docs": await docs(db)}]


def cite(n: int, message_id: str, snippet: str) -> Source:
    return Source(n=n, kind="message", id=message_id, label="Keys", snippet=snippet,
                  href=message_href(message_id))


async def seed(db: SqliteDatabase) -> None:
    """Conversation "keys" holds the fact; "later" cites it; "other" stands by."""
    await chats.append_message(db, "keys", "user", "the spare keys are in the ceramic jar",
                               NOW_MS, message_id="fact", new_conversation=True)
    await chats.append_message(db, "keys", "assistant", "Noted.", NOW_MS + 1, message_id="ok")
    await chats.append_message(db, "later", "user", "where are my keys?", NOW_MS + 2,
                               message_id="ask", new_conversation=True)
    note = Source(n=2, kind="note", id="Home.md", label="Home", snippet="keys",
                  href="obsidian://open?vault=V&file=Home")
    await chats.append_message(db, "later", "assistant", "In the jar [1], see [2].",
                               NOW_MS + 3, message_id="answer",
                               sources=[cite(1, "fact", "the ceramic jar"), note])
    await chats.append_message(db, "other", "user", "an unrelated marmalade recipe",
                               NOW_MS + 4, message_id="other", new_conversation=True)


async def test_delete_message_forgets_text_citations_and_title(client: httpx.AsyncClient,
                                                               db: SqliteDatabase) -> None:
    await seed(db)
    assert await fts_count(db, "ceramic") == 1
    before = await docs(db)
    response = await client.delete("/api/messages/fact")
    assert response.status_code == 200, response.text
    assert response.json() == {"id": "fact", "conversation_id": "keys",
                               "messages_deleted": 1, "citations_removed": 1,
                               "answers_withdrawn": 1, "withdrawn_ids": ["ok"]}
    assert await fts_count(db, "ceramic") == 0
    # The reply to it was written with it as its prompt: withdrawn, redacted, unindexed.
    assert await fts_count(db, "noted") == 0 and await docs(db) == before - 1
    reply = await one(db.prepare(
        "SELECT content, withdrawn_at FROM messages WHERE id = 'ok'"))
    assert reply["content"] == "" and reply["withdrawn_at"] is not None
    answer = await one(db.prepare("SELECT sources FROM messages WHERE id = 'answer'"))
    assert [s["id"] for s in json.loads(answer["sources"])] == ["Home.md"]
    title = await db.prepare("SELECT title FROM conversations WHERE id = 'keys'").first()
    assert title == {"title": ""}
    assert (await client.get("/api/messages/fact")).status_code == 404
    remaining = (await client.get("/api/conversations/keys/messages")).json()["messages"]
    assert [(m["id"], m["withdrawn"], m["content"]) for m in remaining] == [("ok", True, "")]


async def test_deleting_twice_is_404_and_changes_nothing(client: httpx.AsyncClient,
                                                         db: SqliteDatabase) -> None:
    await seed(db)
    assert (await client.delete("/api/messages/fact")).status_code == 200
    assert (await client.delete("/api/conversations/other")).status_code == 200
    before = await snapshot(db)
    for path in ("/api/messages/fact", "/api/conversations/other", "/api/messages/nope",
                 "/api/conversations/nope"):
        response = await client.delete(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"
    assert await snapshot(db) == before


async def test_delete_conversation_cascades_through_the_fts_triggers(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await seed(db)
    before = await docs(db)
    response = await client.delete("/api/conversations/keys")
    assert response.status_code == 200, response.text
    assert response.json() == {"id": "keys", "conversation_id": "keys",
                               "messages_deleted": 2, "citations_removed": 1,
                               "answers_withdrawn": 0, "withdrawn_ids": []}
    assert await fts_count(db, "ceramic") == 0 and await fts_count(db, "noted") == 0
    assert await docs(db) == before - 1  # the one question-and-answer unit of "keys"
    await db.prepare("INSERT INTO conversation_units_fts (conversation_units_fts) "
                     "VALUES ('integrity-check')").run()
    assert (await client.get("/api/conversations/keys/messages")).status_code == 404
    listed = (await client.get("/api/conversations")).json()["conversations"]
    assert sorted(c["id"] for c in listed) == ["later", "other"]


async def test_an_invisible_title_is_a_422_and_changes_nothing(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await seed(db)
    before = await one(db.prepare("SELECT title FROM conversations WHERE id = 'keys'"))
    for title in ("\u200b\u200b", " \u2060 ", "\ufeff"):
        response = await client.patch("/api/conversations/keys", json={"title": title})
        assert response.status_code == 422 and "no visible character" in response.text
    assert await one(db.prepare("SELECT title FROM conversations WHERE id = 'keys'")) == before
    assert (await client.patch("/api/conversations/keys", json={"title": "\U0001f511"})
            ).status_code == 200  # an emoji is visible


async def test_renamed_title_survives_forgetting_the_first_message(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await seed(db)
    assert (await client.patch("/api/conversations/keys", json={"title": "Keys"})
            ).status_code == 200
    await client.delete("/api/messages/fact")
    row = await one(db.prepare("SELECT title FROM conversations WHERE id = 'keys'"))
    assert row == {"title": "Keys"}


async def test_forgetting_a_later_message_keeps_the_title(client: httpx.AsyncClient,
                                                          db: SqliteDatabase) -> None:
    await chats.append_message(db, "c", "user", "hello", NOW_MS, message_id="m1",
                               new_conversation=True)
    await chats.append_message(db, "c", "user", "hello", NOW_MS + 1, message_id="m2")
    await client.delete("/api/messages/m2")
    row = await one(db.prepare("SELECT title FROM conversations WHERE id = 'c'"))
    assert row == {"title": "hello"}


async def test_rename_trims_and_keeps_activity_order(client: httpx.AsyncClient,
                                                     db: SqliteDatabase) -> None:
    await seed(db)
    response = await client.patch("/api/conversations/keys",
                                  json={"title": "  Where the keys live  "})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == "keys" and body["title"] == "Where the keys live"
    listed = (await client.get("/api/conversations")).json()["conversations"]
    assert [c["id"] for c in listed] == ["other", "later", "keys"]
    assert listed[2]["title"] == "Where the keys live"
    assert (await client.patch("/api/conversations/keys", json={"title": "x" * 200})
            ).status_code == 200


@pytest.mark.parametrize(("body", "status", "fragment"), [
    ({"title": ""}, 422, "1 to 200"),
    ({"title": "   "}, 422, "1 to 200"),
    ({"title": "x" * 201}, 422, "201 characters"),
    ({"title": "two\nlines"}, 422, "one line"),
    ({"title": 5}, 422, "string"),
    ({}, 422, "title"),
    ({"title": "ok", "extra": 1}, 422, "extra"),
    ([], 400, "JSON object"),
])
async def test_bad_renames_are_refused_and_change_nothing(
        client: httpx.AsyncClient, db: SqliteDatabase, body: object, status: int,
        fragment: str) -> None:
    await seed(db)
    before = await snapshot(db)
    response = await client.patch("/api/conversations/keys", json=body)
    assert response.status_code == status, response.text
    assert fragment in json.dumps(response.json()["error"])
    assert await snapshot(db) == before


async def test_rename_body_over_the_limit_is_413(client: httpx.AsyncClient,
                                                 db: SqliteDatabase) -> None:
    await seed(db)
    response = await client.patch("/api/conversations/keys",
                                  content=json.dumps({"title": "x" * 5_000}),
                                  headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert "4000" in response.json()["error"]["message"]


async def test_rename_unknown_conversation_is_404(client: httpx.AsyncClient) -> None:
    response = await client.patch("/api/conversations/nope", json={"title": "New"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


"""History endpoints through the ASGI app on real SQLite."""

from __future__ import annotations

import httpx

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS
from worker.store import chats


async def seed_conversation(db: SqliteDatabase, n: int, conv: str = "c1") -> list[str]:
    await chats.create_conversation(db, "first", NOW_MS, conv)
    ids = []
    for i in range(n):
        m = await chats.append_message(db, conv, "user" if i % 2 == 0 else "assistant",
                                       f"message number {i}", NOW_MS + i, message_id=f"m{i}")
        ids.append(m.id)
    return ids


async def test_message_pages_are_newest_first_with_a_stable_cursor(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    ids = await seed_conversation(db, 25)
    seen, before = [], None
    while True:
        params = {"limit": 10, **({"before": before} if before else {})}
        page = (await client.get("/api/conversations/c1/messages", params=params)).json()
        seen += [m["id"] for m in page["messages"]]
        before = page["next_before"]
        if before is None:
            break
        await chats.append_message(db, "c1", "user", "a newer message", NOW_MS + 100)
    assert seen == ids[::-1]


async def test_get_message_tells_how_far_back_it_is(client: httpx.AsyncClient,
                                                    db: SqliteDatabase) -> None:
    await seed_conversation(db, 30)
    body = (await client.get("/api/messages/m5")).json()
    assert body["conversation_id"] == "c1"
    assert body["message"]["seq"] == 6
    assert body["newer_count"] == 24


async def test_unknown_ids_are_404(client: httpx.AsyncClient) -> None:
    for path in ("/api/messages/nope", "/api/conversations/nope/messages"):
        response = await client.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


async def test_conversations_list_pages_by_recent_activity(client: httpx.AsyncClient,
                                                           db: SqliteDatabase) -> None:
    for i in range(5):
        await chats.create_conversation(db, f"conv {i}", NOW_MS + i, f"c{i}")
    first = (await client.get("/api/conversations", params={"limit": 3})).json()
    assert [c["id"] for c in first["conversations"]] == ["c4", "c3", "c2"]
    rest = (await client.get("/api/conversations",
                             params={"limit": 3, "before": first["next_before"]})).json()
    assert [c["id"] for c in rest["conversations"]] == ["c1", "c0"]
    assert rest["next_before"] is None


async def test_unknown_route_is_json_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"

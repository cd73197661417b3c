"""POST /vault/sync and GET /vault/manifest through the ASGI app on real SQLite."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest

from local.migrate import MIGRATIONS_DIR
from shared.limits import MAX_BATCH_ITEMS, MAX_NOTE_BODY_BYTES, MAX_SYNC_BODY_BYTES
from tests.conftest import DAY_MS, NOW_MS, TOKEN, auth, batch, note, sync


async def search(client: httpx.AsyncClient, q: str, **params: str) -> list[dict]:
    response = await client.get("/api/search", params={"q": q, **params})
    assert response.status_code == 200, response.text
    return response.json()["hits"]


async def count_notes(client: httpx.AsyncClient) -> int:
    return (await client.get("/status")).json()["corpora"]["notes"]


async def test_properties_are_searchable(client: httpx.AsyncClient) -> None:
    book = note("Reading/Systems.md", "Stocks and flows.")
    await sync(client, book.model_copy(update={"properties": "author: Donella Meadows"}))
    hits = await search(client, "meadows")
    assert [h["id"] for h in hits] == ["Reading/Systems.md"]
    assert any(r.startswith("properties matches") for r in hits[0]["reasons"])


async def test_sync_makes_notes_searchable(client: httpx.AsyncClient) -> None:
    response = await sync(client, note("garden/tomatoes.md", "Blight hit the tomatoes in July",
                                       tags=["garden"]))
    assert response.json() == {"batch_id": "b1", "status": "applied", "upserted": 1,
                               "skipped_stale": 0, "deleted": 0}
    hits = await search(client, "tomato blight")
    assert [h["id"] for h in hits] == ["garden/tomatoes.md"]
    assert hits[0]["href"] == "obsidian://open?vault=Life&file=garden%2Ftomatoes"


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 401),
    ({"authorization": "Basic abc"}, 401),
    ({"authorization": "Bearer "}, 401),
    ({"authorization": "Bearer wrong"}, 403),
    ({"authorization": f"Bearer {TOKEN}x"}, 403),
])
async def test_bad_credentials_write_nothing(client: httpx.AsyncClient, headers: dict,
                                             status: int) -> None:
    body = batch("b1", [note("a.md", "secret plans")])
    response = await client.post("/vault/sync", json=body, headers=headers)
    assert response.status_code == status
    assert response.json()["error"]["code"] in ("unauthorized", "forbidden")
    assert await count_notes(client) == 0
    manifest = await client.get("/vault/manifest", headers=headers)
    assert manifest.status_code == status


async def test_no_configured_token_refuses_everything(client: httpx.AsyncClient,
                                                      runtime) -> None:
    runtime.settings = replace(runtime.settings, sync_tokens=())
    response = await client.post("/vault/sync", json=batch("b1", [note("a.md", "x")]),
                                 headers=auth())
    assert response.status_code == 403
    assert "SYNC_TOKEN" in response.json()["error"]["message"]
    assert await count_notes(client) == 0


async def test_rotation_accepts_current_and_next_token(client: httpx.AsyncClient,
                                                       runtime) -> None:
    runtime.settings = replace(runtime.settings, sync_tokens=("old", "new"))
    for i, token in enumerate(("old", "new")):
        response = await client.post("/vault/sync", json=batch(f"b{i}", [note(f"{i}.md", "x")]),
                                     headers=auth(token))
        assert response.status_code == 200


async def test_oversized_body_is_413_and_writes_nothing(client: httpx.AsyncClient) -> None:
    big = b'{"batch_id": "b", "vault": "v", "upserts": [], "pad": "' + \
        b"x" * MAX_SYNC_BODY_BYTES + b'"}'
    response = await client.post("/vault/sync", content=big, headers=auth())
    assert response.status_code == 413
    assert await count_notes(client) == 0


async def test_too_many_items_is_413(client: httpx.AsyncClient) -> None:
    notes = [note(f"n{i}.md", "x") for i in range(MAX_BATCH_ITEMS + 1)]
    response = await client.post("/vault/sync", json=batch("b", notes), headers=auth())
    assert response.status_code == 413


@pytest.mark.parametrize("content", [b"not json", b"\xff\xfe", b"[1, 2]", b""])
async def test_malformed_body_is_400(client: httpx.AsyncClient, content: bytes) -> None:
    response = await client.post("/vault/sync", content=content, headers=auth())
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


async def test_bad_items_reject_the_whole_batch_with_details(client: httpx.AsyncClient) -> None:
    good = note("good.md", "fine").model_dump()
    bad_path = {**good, "path": "../etc/passwd.md"}
    absolute = {**good, "path": "/abs/note.md"}
    huge = {**good, "path": "huge.md", "body": "x" * (MAX_NOTE_BODY_BYTES + 1)}
    no_hash = {**good, "path": "h.md", "content_hash": "nothex"}
    body = {"batch_id": "b1", "vault": "v", "upserts": [good, bad_path, absolute, huge, no_hash],
            "deletes": [{"path": "x.txt", "deleted_at": 1}]}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    details = response.json()["error"]["details"]
    assert {d["item"] for d in details} == {"upserts[1]", "upserts[2]", "upserts[3]",
                                            "upserts[4]", "deletes[0]"}
    assert any("'..'" in d["message"] for d in details)
    assert await count_notes(client) == 0


async def test_duplicate_paths_in_one_batch_are_422(client: httpx.AsyncClient) -> None:
    body = batch("b1", [note("a.md", "one")], [{"path": "a.md", "deleted_at": NOW_MS}])
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["item"] == "deletes[0]"


async def test_same_batch_twice_is_idempotent(client: httpx.AsyncClient) -> None:
    body = batch("b1", [note("a.md", "alpha beta")])
    first = await client.post("/vault/sync", json=body, headers=auth())
    second = await client.post("/vault/sync", json=body, headers=auth())
    assert first.json()["status"] == "applied"
    assert second.json()["status"] == "duplicate"
    assert await count_notes(client) == 1


async def test_older_version_never_overwrites_newer(client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "new words zebra", mtime=NOW_MS), batch_id="new")
    response = await sync(client, note("a.md", "old words yak", mtime=NOW_MS - DAY_MS),
                          batch_id="old")
    assert response.json()["skipped_stale"] == 1
    assert await search(client, "yak") == []
    assert [h["id"] for h in await search(client, "zebra")] == ["a.md"]


async def test_edit_replaces_the_indexed_text(client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "first draft mentions walrus", mtime=NOW_MS - 5), batch_id="1")
    await sync(client, note("a.md", "second draft mentions narwhal", mtime=NOW_MS), batch_id="2")
    assert await search(client, "walrus") == []
    assert [h["id"] for h in await search(client, "narwhal")] == ["a.md"]


async def test_delete_removes_from_every_index_and_cannot_be_resurrected(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "the quokka note", mtime=NOW_MS - DAY_MS), batch_id="1")
    response = await sync(client, deletes=[{"path": "a.md", "deleted_at": NOW_MS}], batch_id="2")
    assert response.json()["deleted"] == 1
    assert await search(client, "quokka") == []
    assert await count_notes(client) == 0
    # A retried stale upsert (older than the deletion) must not bring it back ...
    await sync(client, note("a.md", "the quokka note", mtime=NOW_MS - DAY_MS), batch_id="3")
    assert await search(client, "quokka") == []
    # ... but a genuinely newer version of the path is welcome.
    await sync(client, note("a.md", "quokka returns", mtime=NOW_MS + DAY_MS), batch_id="4")
    assert [h["id"] for h in await search(client, "quokka")] == ["a.md"]


async def test_manifest_pages_through_every_note(client: httpx.AsyncClient) -> None:
    notes = [note(f"n{i:02d}.md", f"body {i}") for i in range(25)]
    await sync(client, *notes)
    seen, after = {}, ""
    pages = 0
    while True:
        response = await client.get("/vault/manifest", params={"after": after, "limit": 10},
                                    headers=auth())
        assert response.status_code == 200
        page = response.json()
        seen.update({n["path"]: n["content_hash"] for n in page["notes"]})
        pages += 1
        if not page["next_after"]:
            break
        after = page["next_after"]
    assert pages == 3
    assert seen == {n.path: n.content_hash for n in notes}


async def test_status_reports_sync_freshness(client: httpx.AsyncClient) -> None:
    before = (await client.get("/status")).json()
    assert before["last_sync_at"] is None and before["stale"] is True
    assert before["schema_version"] == sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))[-1]
    await sync(client, note("a.md", "x"))
    after = (await client.get("/status")).json()
    assert after["corpora"]["notes"] == 1
    assert after["staleness_seconds"] == 0 and after["stale"] is False


async def test_unpaired_surrogate_in_a_note_is_400(client: httpx.AsyncClient) -> None:
    body = batch("b1", [note("a.md", "fine")])
    raw = json.dumps(body).replace('"fine"', '"\\udc80 broken"').encode()
    response = await client.post("/vault/sync", content=raw, headers=auth())
    assert response.status_code == 400
    assert await count_notes(client) == 0

"""POST /vault/sync, POST /vault/heartbeat and GET /vault/manifest through the ASGI app on
real SQLite: auth, validation, idempotency, the manifest and /status. Ordering, vault
isolation and withdrawal have their own files beside this one."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest

from local.migrate import MIGRATIONS_DIR
from local.sqlite_db import SqliteDatabase
from shared.api.limits import MAX_BATCH_ITEMS, MAX_NOTE_BODY_BYTES, MAX_SYNC_BODY_BYTES
from shared.time.durations import MS_PER_DAY
from tests.conftest import LIFE_ID, NOW_MS, TOKEN, auth, batch, heartbeat, note, sync
from tests.rows import stored

JSON = {"content-type": "application/json"}


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
                               "skipped_stale": 0, "deleted": 0, "withdrawn": 0}
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
    assert response.json()["error"]["code"] in ("unauthorized", "bearer_scheme_required",
                                                "forbidden")
    assert await count_notes(client) == 0
    manifest = await client.get("/vault/manifest", params={"vault": LIFE_ID}, headers=headers)
    assert manifest.status_code == status
    beat = await client.post("/vault/heartbeat", json={"vault_id": LIFE_ID, "vault": "Life"},
                             headers=headers)
    assert beat.status_code == status
    assert (await client.get("/status")).json()["vaults"] == []


@pytest.mark.parametrize(("header", "code", "says"), [
    (None, "unauthorized", "missing credentials"),
    (f"Basic {TOKEN}", "bearer_scheme_required", "Authorization must use the Bearer scheme"),
    (TOKEN, "bearer_scheme_required", "Authorization must use the Bearer scheme"),
    ("Bearer ", "bearer_scheme_required",
     "the Authorization header names the Bearer scheme but no token"),
])
async def test_a_401_says_what_is_wrong_with_the_credentials(client: httpx.AsyncClient,
                                                             header: str | None, code: str,
                                                             says: str) -> None:
    headers = {"authorization": header} if header is not None else {}
    for method, path in (("POST", "/vault/sync"), ("POST", "/vault/heartbeat"),
                         ("GET", "/vault/manifest?vault=" + LIFE_ID)):
        response = await client.request(method, path, headers=headers,
                                        json={} if method == "POST" else None)
        assert response.status_code == 401, path
        assert response.json()["error"] == {
            "code": code, "message": f"{says}: send 'Authorization: Bearer <SYNC_TOKEN>'"}, path
        assert TOKEN not in response.text  # a bare token is never echoed
        assert response.headers["www-authenticate"] == 'Bearer realm="mallory-hub"'


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
        beat = await client.post("/vault/heartbeat", json={"vault_id": LIFE_ID, "vault": "Life"},
                                 headers=auth(token))
        assert beat.status_code == 200
        response = await client.post("/vault/sync", json=batch(f"b{i}", [note(f"{i}.md", "x")],
                                                               seq=beat.json()["vault"]["seq"]),
                                     headers=auth(token))
        assert response.status_code == 200


async def test_oversized_body_is_413_and_writes_nothing(client: httpx.AsyncClient) -> None:
    big = b'{"batch_id": "b", "vault": "v", "upserts": [], "pad": "' + \
        b"x" * MAX_SYNC_BODY_BYTES + b'"}'
    response = await client.post("/vault/sync", content=big, headers={**JSON, **auth()})
    assert response.status_code == 413
    assert await count_notes(client) == 0


async def test_too_many_items_is_413(client: httpx.AsyncClient) -> None:
    notes = [note(f"n{i}.md", "x") for i in range(MAX_BATCH_ITEMS + 1)]
    response = await client.post("/vault/sync", json=batch("b", notes), headers=auth())
    assert response.status_code == 413


@pytest.mark.parametrize("path", ["/vault/sync", "/vault/heartbeat"])
@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded", None])
async def test_a_body_that_is_not_json_by_its_type_is_415(client: httpx.AsyncClient,
                                                         db: SqliteDatabase,
                                                         path: str,
                                                         content_type: str | None) -> None:
    # What the hub sends (hub/client.py), but for the type: /api/ routes answer 415 too.
    await heartbeat(client)
    body = (batch("b1", [note("a.md", "fine")]) if path == "/vault/sync"
            else {"vault_id": LIFE_ID, "vault": "Life"})
    before = await stored(db)
    request = client.build_request("POST", path, content=json.dumps(body), headers=auth())
    if content_type is not None:
        request.headers["content-type"] = content_type
    assert request.headers.get("content-type") == content_type
    response = await client.send(request)
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["code"] == "json_required"
    assert "Content-Type: application/json" in error["message"]
    assert await stored(db) == before
    # The token is checked first: without it the answer is 401, whatever the type.
    del request.headers["authorization"]
    assert (await client.send(request)).status_code == 401
    request.headers["authorization"] = auth()["authorization"]
    request.headers["content-type"] = "application/json; charset=utf-8"
    assert (await client.send(request)).status_code == 200


@pytest.mark.parametrize("content", [b"not json", b"\xff\xfe", b"[1, 2]", b""])
async def test_malformed_body_is_400(client: httpx.AsyncClient, content: bytes) -> None:
    response = await client.post("/vault/sync", content=content, headers={**JSON, **auth()})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


async def test_bad_items_reject_the_whole_batch_with_details(client: httpx.AsyncClient) -> None:
    good = note("good.md", "fine").model_dump()
    bad_path = {**good, "path": "../etc/passwd.md"}
    absolute = {**good, "path": "/abs/note.md"}
    huge = {**good, "path": "huge.md", "body": "x" * (MAX_NOTE_BODY_BYTES + 1)}
    no_hash = {**good, "path": "h.md", "content_hash": "nothex"}
    boolean = {**good, "path": "t.md", "mtime": True}  # was taken as 1 ms before 0002
    real = {**good, "path": "r.md", "note_date": 1.5e12}
    future = {**good, "path": "f.md", "mtime": NOW_MS + 2 * MS_PER_DAY}
    await heartbeat(client)
    body = {**batch("b1"), "upserts": [good, bad_path, absolute, huge, no_hash, boolean,
                                       real, future],
            "deletes": [{"path": "x.txt", "deleted_at": 1},
                        {"path": "gone.md", "deleted_at": 2**53 - 1}]}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    details = response.json()["error"]["details"]
    assert {(d["item"], d["field"]) for d in details} == {
        ("upserts[1]", "path"), ("upserts[2]", "path"), ("upserts[3]", "body"),
        ("upserts[4]", "content_hash"), ("upserts[5]", "mtime"), ("upserts[6]", "note_date"),
        ("upserts[7]", "mtime"), ("deletes[0]", "path"), ("deletes[1]", "deleted_at")}
    assert any("'..'" in d["message"] for d in details)
    assert any("2.0 days ahead of the Worker's clock" in d["message"] for d in details)
    assert await count_notes(client) == 0


@pytest.mark.parametrize(("field", "value", "message"), [
    ("vault_id", "not-a-uuid", "UUID"),
    ("vault_id", 7, "string"),
    ("seq", 0, "greater than or equal to 1"),
    ("seq", True, "integer"),
    ("seq", "3", "integer"),
    ("vault", "", "at least 1 character"),
    ("sections_version", 2, "sections_version 2 is unknown to this Worker (it reads 1)"),
    ("sections_version", 0, "sections_version 0 is unknown"),
    ("sections_version", True, "integer"),
    ("sections_version", "1", "integer"),
])
async def test_bad_envelope_fields_are_422_naming_them(client: httpx.AsyncClient, field: str,
                                                       value: object, message: str) -> None:
    await heartbeat(client)
    body = {**batch("b1", [note("a.md", "x")]), field: value}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == field and message in detail["message"]
    assert await count_notes(client) == 0


@pytest.mark.parametrize("version", [{}, {"sections_version": 1},
                                     {"sections_version": None}])
async def test_sections_version_1_or_none_is_read(client: httpx.AsyncClient,
                                                  version: dict) -> None:
    """A hub from before `sections_version` sends none: its sections are version 1."""
    await heartbeat(client)
    body = {**batch("b1", [note("a.md", "# A\nx", sections=[
        {"s": 0, "e": 5, "h": "A", "p": "A", "x": "0123456789abcdef"}])]), **version}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 200, response.text
    assert await count_notes(client) == 1


async def test_a_sequence_never_handed_out_is_refused(client: httpx.AsyncClient) -> None:
    seq = (await heartbeat(client))["vault"]["seq"]
    body = batch("b1", [note("a.md", "x")], seq=seq + 1)
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["field"] == "seq"
    assert await count_notes(client) == 0


async def test_an_unregistered_vault_is_409(client: httpx.AsyncClient) -> None:
    response = await client.post("/vault/sync", json=batch("b1", [note("a.md", "x")]),
                                 headers=auth())
    assert response.status_code == 409
    assert "POST /vault/heartbeat" in response.json()["error"]["message"]
    assert await count_notes(client) == 0


async def test_duplicate_paths_in_one_batch_are_422(client: httpx.AsyncClient) -> None:
    body = batch("b1", [note("a.md", "one")], [{"path": "a.md", "deleted_at": NOW_MS}])
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["item"] == "deletes[0]"


async def test_same_batch_twice_is_idempotent(client: httpx.AsyncClient) -> None:
    await heartbeat(client)
    body = batch("b1", [note("a.md", "alpha beta")])
    first = await client.post("/vault/sync", json=body, headers=auth())
    second = await client.post("/vault/sync", json=body, headers=auth())
    assert first.json()["status"] == "applied"
    assert second.json()["status"] == "duplicate"
    assert await count_notes(client) == 1


async def test_manifest_pages_through_every_note(client: httpx.AsyncClient) -> None:
    notes = [note(f"n{i:02d}.md", f"body {i}") for i in range(25)]
    await sync(client, *notes)
    seen, after = {}, ""
    pages = 0
    while True:
        response = await client.get("/vault/manifest", params={
            "vault": LIFE_ID, "after": after, "limit": 10}, headers=auth())
        assert response.status_code == 200
        page = response.json()
        seen.update({n["path"]: n["content_hash"] for n in page["notes"]})
        pages += 1
        if not page["next_after"]:
            break
        after = page["next_after"]
    assert pages == 3
    assert seen == {n.path: n.content_hash for n in notes}


@pytest.mark.parametrize(("params", "status"), [
    ({}, 400), ({"vault": "Life"}, 400), ({"vault": LIFE_ID + "0"}, 400),
    ({"vault": "22222222-2222-4222-8222-222222222222"}, 404),
])
async def test_manifest_needs_a_known_vault_id(client: httpx.AsyncClient, params: dict,
                                               status: int) -> None:
    await heartbeat(client)
    response = await client.get("/vault/manifest", params=params, headers=auth())
    assert response.status_code == status
    assert "vault" in response.json()["error"]["message"]


async def test_status_reports_sync_freshness(client: httpx.AsyncClient) -> None:
    before = (await client.get("/status")).json()
    assert before["last_sync_at"] is None and before["stale"] is True
    assert before["schema_version"] == sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))[-1]
    assert before["vaults"] == []
    await sync(client, note("a.md", "x"))
    after = (await client.get("/status")).json()
    assert after["corpora"]["notes"] == 1
    assert after["staleness_seconds"] == 0 and after["stale"] is False
    [life] = after["vaults"]
    assert (life["name"], life["id"], life["notes"], life["rejected"], life["stale"]) == (
        "Life", LIFE_ID, 1, 0, False)


async def test_unpaired_surrogate_in_a_note_is_400(client: httpx.AsyncClient) -> None:
    body = batch("b1", [note("a.md", "fine")])
    raw = json.dumps(body).replace('"fine"', '"\\udc80 broken"').encode()
    response = await client.post("/vault/sync", content=raw, headers={**JSON, **auth()})
    assert response.status_code == 400
    assert await count_notes(client) == 0

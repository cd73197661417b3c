"""Sync ordering over HTTP on real SQLite: writes are ordered by the sync sequence of the
run that sent them, never by file times. A later run always wins; a delayed batch of an
earlier run never does; a restored file with its old mtime comes back."""

from __future__ import annotations

import httpx

from tests.conftest import DAY_MS, LIFE_ID, NOW_MS, auth, heartbeat, note, sync

OLD = NOW_MS - 400 * DAY_MS  # a restored file keeps an mtime like this


async def search(client: httpx.AsyncClient, q: str) -> list[str]:
    response = await client.get("/api/search", params={"q": q})
    assert response.status_code == 200, response.text
    return [h["id"] for h in response.json()["hits"]]


async def manifest(client: httpx.AsyncClient) -> dict[str, str]:
    response = await client.get("/vault/manifest", params={"vault": LIFE_ID}, headers=auth())
    assert response.status_code == 200, response.text
    return {n["path"]: n["content_hash"] for n in response.json()["notes"]}


async def run_seq(client: httpx.AsyncClient) -> int:
    return (await heartbeat(client))["vault"]["seq"]


async def test_each_heartbeat_hands_out_the_next_sequence(client: httpx.AsyncClient) -> None:
    assert [await run_seq(client) for _ in range(3)] == [1, 2, 3]


async def test_an_earlier_runs_upsert_never_overwrites_a_later_runs(
        client: httpx.AsyncClient) -> None:
    early, late = await run_seq(client), await run_seq(client)
    # The later run read the file first, so its mtime is older: mtime does not decide.
    await sync(client, note("a.md", "new words zebra", mtime=OLD), batch_id="late", seq=late)
    response = await sync(client, note("a.md", "old words yak", mtime=NOW_MS), batch_id="early",
                          seq=early)
    assert response.json()["skipped_stale"] == 1
    assert await search(client, "yak") == []
    assert await search(client, "zebra") == ["a.md"]


async def test_a_resend_within_the_same_run_applies(client: httpx.AsyncClient) -> None:
    seq = await run_seq(client)
    await sync(client, note("a.md", "draft walrus", mtime=NOW_MS - 5), batch_id="1", seq=seq)
    await sync(client, note("a.md", "draft narwhal", mtime=NOW_MS - 9), batch_id="2", seq=seq)
    assert await search(client, "walrus") == []
    assert await search(client, "narwhal") == ["a.md"]


async def test_a_restored_note_comes_back_with_its_old_mtime(client: httpx.AsyncClient) -> None:
    quokka = note("Home/Quokka.md", "the quokka note", mtime=OLD)
    await sync(client, quokka, batch_id="1")
    response = await sync(client, deletes=[{"path": "Home/Quokka.md", "deleted_at": NOW_MS}],
                          batch_id="2")
    assert response.json()["deleted"] == 1
    assert await search(client, "quokka") == []
    restored = await sync(client, quokka, batch_id="3")  # trash restore: same file, same mtime
    assert restored.json()["upserted"] == 1
    assert await search(client, "quokka") == ["Home/Quokka.md"]


async def test_a_note_moved_out_and_back_is_recalled(client: httpx.AsyncClient) -> None:
    home = note("Home/Fern.md", "water the maidenhair fern", mtime=OLD)
    archived = home.model_copy(update={"path": "Archive/Fern.md"})
    await sync(client, home, batch_id="1")
    await sync(client, archived, deletes=[{"path": "Home/Fern.md", "deleted_at": NOW_MS}],
               batch_id="2")
    await sync(client, home, deletes=[{"path": "Archive/Fern.md", "deleted_at": NOW_MS}],
               batch_id="3")
    assert await search(client, "maidenhair") == ["Home/Fern.md"]
    assert set(await manifest(client)) == {"Home/Fern.md"}


async def test_a_delayed_upsert_never_resurrects_a_later_delete(
        client: httpx.AsyncClient) -> None:
    early = await run_seq(client)
    await sync(client, note("a.md", "the quokka note"), batch_id="1")  # run early + 1
    await sync(client, deletes=[{"path": "a.md", "deleted_at": NOW_MS}], batch_id="2")
    response = await sync(client, note("a.md", "the quokka note", mtime=NOW_MS), batch_id="3",
                          seq=early)
    assert response.json()["skipped_stale"] == 1
    assert await search(client, "quokka") == []


async def test_a_delayed_delete_never_removes_a_later_version(client: httpx.AsyncClient) -> None:
    early = await run_seq(client)
    await sync(client, note("a.md", "the capybara note"), batch_id="1")
    response = await sync(client, deletes=[{"path": "a.md", "deleted_at": NOW_MS}],
                          batch_id="2", seq=early)
    assert response.json()["deleted"] == 0
    assert await search(client, "capybara") == ["a.md"]
    # ... and it left no tombstone: the next run's upsert of the path applies as usual.
    await sync(client, note("a.md", "the capybara returns", mtime=OLD), batch_id="3")
    assert await search(client, "returns") == ["a.md"]


async def test_a_far_future_delete_is_refused_and_blocks_nothing(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "the wombat note"), batch_id="1")
    seq = await run_seq(client)
    body = {"batch_id": "2", "vault_id": LIFE_ID, "vault": "Life", "seq": seq,
            "upserts": [], "deletes": [{"path": "a.md", "deleted_at": 2**53 - 1}]}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["field"] == "deleted_at"
    assert await search(client, "wombat") == ["a.md"]
    await sync(client, deletes=[{"path": "a.md", "deleted_at": NOW_MS}], batch_id="3")
    await sync(client, note("a.md", "the wombat is back", mtime=OLD), batch_id="4")
    assert await search(client, "wombat") == ["a.md"]

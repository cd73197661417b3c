"""Several vaults over HTTP on real SQLite: the same paths coexist, nothing done to one
vault changes another, search ranks them together or filters by name, /status reports
each, and a heartbeat keeps a vault fresh without any batch."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import LIFE_ID, auth, batch, heartbeat, note, sync
from worker.store import chats

WORK_ID = "22222222-2222-4222-8222-222222222222"


async def search(client: httpx.AsyncClient, q: str, **params: str) -> list[dict]:
    response = await client.get("/api/search", params={"q": q, **params})
    assert response.status_code == 200, response.text
    return response.json()["hits"]


async def manifest(client: httpx.AsyncClient, vault_id: str) -> dict[str, str]:
    response = await client.get("/vault/manifest", params={"vault": vault_id}, headers=auth())
    assert response.status_code == 200, response.text
    return {n["path"]: n["content_hash"] for n in response.json()["notes"]}


async def two_vaults(client: httpx.AsyncClient) -> None:
    await sync(client, note("Home/Plants.md", "water the monstera on sunday"),
               note("Home/Books.md", "reading list"))
    await sync(client, note("Home/Plants.md", "office monstera needs a bigger pot"),
               vault="Work", vault_id=WORK_ID, batch_id="w1")


async def test_the_same_path_in_two_vaults_coexists(client: httpx.AsyncClient) -> None:
    await two_vaults(client)
    hits = await search(client, "monstera")
    assert sorted((h["vault"], h["id"]) for h in hits) == [("Life", "Home/Plants.md"),
                                                           ("Work", "Home/Plants.md")]
    assert {h["href"] for h in hits} == {"obsidian://open?vault=Life&file=Home%2FPlants",
                                         "obsidian://open?vault=Work&file=Home%2FPlants"}
    assert set(await manifest(client, LIFE_ID)) == {"Home/Plants.md", "Home/Books.md"}
    assert set(await manifest(client, WORK_ID)) == {"Home/Plants.md"}


async def test_deleting_in_one_vault_leaves_the_other_alone(client: httpx.AsyncClient) -> None:
    await two_vaults(client)
    response = await sync(client, deletes=[{"path": "Home/Plants.md", "deleted_at": 1}],
                          vault="Work", vault_id=WORK_ID, batch_id="w2")
    assert response.json()["deleted"] == 1
    assert [(h["vault"], h["id"]) for h in await search(client, "monstera")] == [
        ("Life", "Home/Plants.md")]
    # ... and Work's tombstone does not block Life's next write of the same path.
    await sync(client, note("Home/Plants.md", "water the monstera and the fern"),
               batch_id="l2")
    assert [h["vault"] for h in await search(client, "fern")] == ["Life"]


async def test_a_batch_id_taken_by_another_vault_changes_nothing(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "life text"), batch_id="same")
    seq = (await heartbeat(client, WORK_ID, "Work"))["vault"]["seq"]
    body = batch("same", [note("a.md", "work text")], vault="Work", vault_id=WORK_ID, seq=seq)
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 409
    assert "another vault" in response.json()["error"]["message"]
    assert await manifest(client, WORK_ID) == {}


async def test_search_filters_by_vault_name(client: httpx.AsyncClient, db) -> None:
    await two_vaults(client)
    await chats.create_conversation(db, "monstera", 1, "c1")
    await chats.append_message(db, "c1", "user", "my monstera has yellow leaves", 1,
                               message_id="m1")
    work = await search(client, "monstera", vault="Work")
    assert sorted((h["kind"], h["vault"]) for h in work) == [("message", None), ("note", "Work")]
    assert [h["vault"] for h in await search(client, "monstera", vault="Work",
                                             source="notes")] == ["Work"]


async def test_an_unknown_vault_name_is_a_400_naming_it(client: httpx.AsyncClient) -> None:
    await two_vaults(client)
    response = await client.get("/api/search", params={"q": "monstera", "vault": "Wrok"})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "'Wrok'" in message and "'Life', 'Work'" in message


async def test_a_rename_moves_links_and_status_to_the_new_name(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "the okapi note"))
    await heartbeat(client, LIFE_ID, "Personal")
    [hit] = await search(client, "okapi")
    assert hit["vault"] == "Personal" and hit["href"].startswith("obsidian://open?vault=Personal&")
    assert [v["name"] for v in (await client.get("/status")).json()["vaults"]] == ["Personal"]


async def test_status_per_vault_counts_rejections_and_heartbeats_keep_it_fresh(
        client: httpx.AsyncClient, clock, settings) -> None:
    await two_vaults(client)
    await heartbeat(client, WORK_ID, "Work", rejected=3)
    stale_after_ms = 2 * settings.sync_interval_s * 1000
    clock.now += stale_after_ms + 60_000
    await heartbeat(client, LIFE_ID, "Life", rejected=0)  # a no-op run: no batch at all
    status = (await client.get("/status")).json()
    by_name = {v["name"]: v for v in status["vaults"]}
    assert set(by_name["Life"]) >= {"name", "notes", "last_sync_at", "stale"}
    assert (by_name["Life"]["notes"], by_name["Life"]["rejected"],
            by_name["Life"]["stale"]) == (2, 0, False)
    assert by_name["Life"]["last_contact_at"] > by_name["Life"]["last_sync_at"]
    assert (by_name["Work"]["notes"], by_name["Work"]["rejected"],
            by_name["Work"]["stale"]) == (1, 3, True)
    # The top level is as stale as the stalest vault, and keeps its earlier fields.
    assert status["stale"] is True
    assert status["staleness_seconds"] == by_name["Work"]["staleness_seconds"]
    assert status["corpora"]["notes"] == 3 and status["last_sync_at"] is not None


@pytest.mark.parametrize(("body", "field"), [
    ({"vault": "Life"}, "vault_id"),
    ({"vault_id": LIFE_ID}, "vault"),
    ({"vault_id": LIFE_ID, "vault": "Life", "rejected": -1}, "rejected"),
    ({"vault_id": LIFE_ID, "vault": "Life", "rejected": True}, "rejected"),
    ({"vault_id": LIFE_ID, "vault": "Life", "extra": 1}, "extra"),
])
async def test_bad_heartbeats_are_422_and_register_nothing(client: httpx.AsyncClient,
                                                           body: dict, field: str) -> None:
    response = await client.post("/vault/heartbeat", json=body, headers=auth())
    assert response.status_code == 422
    assert field in {d["field"] for d in response.json()["error"]["details"]}
    assert (await client.get("/status")).json()["vaults"] == []


async def test_the_heartbeat_says_who_the_worker_is_and_what_it_holds(
        client: httpx.AsyncClient) -> None:
    first = await heartbeat(client)
    await sync(client, note("a.md", "x"))
    second = await heartbeat(client)
    assert first["worker_id"] == second["worker_id"] and len(first["worker_id"]) == 32
    assert (first["vault"]["notes"], second["vault"]["notes"]) == (0, 1)
    assert first["vault"]["checksum"] == 0 != second["vault"]["checksum"]
    assert second["vault"]["seq"] == first["vault"]["seq"] + 2


async def test_automatic_recall_injects_from_two_vaults_at_once(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("Home/Plants.md", "The monstera gets water every sunday."))
    # The same path in both: recall tells the notes apart by (vault, path).
    await sync(client, note("Home/Plants.md", "The office monstera gets water every "
                            "friday."), vault="Work", vault_id=WORK_ID, batch_id="w1")
    response = await client.post("/api/chat", json={"content": "when does the monstera "
                                                                "get water?"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["recall"]["injected"] == 2
    hrefs = sorted(s["href"] for s in body["assistant_message"]["sources"])
    assert hrefs == ["obsidian://open?vault=Life&file=Home%2FPlants",
                     "obsidian://open?vault=Work&file=Home%2FPlants"]
    block = " ".join(s["snippet"] for s in body["assistant_message"]["sources"])
    assert "sunday" in block and "friday" in block

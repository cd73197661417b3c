"""A vault name belongs to one vault id: POST /vault/heartbeat refuses a name another
vault holds (409 vault_name_taken, nothing stored), so `?vault=Name` and note links never
merge two vaults. Over HTTP on real SQLite."""

from __future__ import annotations

import httpx

from tests.conftest import LIFE_ID, auth, heartbeat, note, sync

WORK_ID = "22222222-2222-4222-8222-222222222222"


async def vaults(client: httpx.AsyncClient) -> list[tuple[str, str, int]]:
    status = (await client.get("/status")).json()
    return [(v["id"], v["name"], v["notes"]) for v in status["vaults"]]


async def beat(client: httpx.AsyncClient, vault_id: str, name: str) -> httpx.Response:
    return await client.post("/vault/heartbeat", json={"vault_id": vault_id, "vault": name},
                             headers=auth())


async def test_a_second_vault_cannot_take_a_name_in_use(client: httpx.AsyncClient) -> None:
    await sync(client, note("Home/Plants.md", "water the monstera"))
    before = await vaults(client)
    response = await beat(client, WORK_ID, "Life")
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["code"] == "vault_name_taken"
    assert "'Life'" in error["message"] and LIFE_ID in error["message"]
    assert "--vault-name" in error["message"] and "nothing was stored" in error["message"]
    assert await vaults(client) == before  # not registered, no sequence handed out
    assert (await heartbeat(client))["vault"]["seq"] == 2  # Life's next run


async def test_a_rename_onto_a_taken_name_is_refused(client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "the okapi note"))
    await sync(client, note("b.md", "the quokka note"), vault="Work", vault_id=WORK_ID,
               batch_id="w1")
    response = await beat(client, WORK_ID, "Life")
    assert response.status_code == 409 and WORK_ID not in response.json()["error"]["message"]
    assert await vaults(client) == [(LIFE_ID, "Life", 1), (WORK_ID, "Work", 1)]
    hits = (await client.get("/api/search", params={"q": "okapi quokka",
                                                    "vault": "Life"})).json()["hits"]
    assert [h["id"] for h in hits] == ["a.md"]


async def test_the_same_vault_keeps_and_changes_its_own_name(
        client: httpx.AsyncClient) -> None:
    await heartbeat(client)
    await heartbeat(client)  # its own name is no conflict
    await heartbeat(client, LIFE_ID, "Personal")
    await heartbeat(client, WORK_ID, "Life")  # a name given up is free again
    assert [(i, n) for i, n, _ in await vaults(client)] == [(WORK_ID, "Life"),
                                                           (LIFE_ID, "Personal")]


async def test_a_batch_never_renames_onto_a_taken_name(client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "x"))
    seq = (await heartbeat(client, WORK_ID, "Work"))["vault"]["seq"]
    await sync(client, note("b.md", "y"), vault="Life", vault_id=WORK_ID, seq=seq,
               batch_id="w1")
    assert [(i, n) for i, n, _ in await vaults(client)] == [(LIFE_ID, "Life"),
                                                           (WORK_ID, "Work")]


async def test_stored_answers_link_to_the_vault_by_its_current_name(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("Home/Plants.md", "# Plants\n\n## Watering\n\nWater the monstera "
                            "every sunday.", title="Plants"))
    asked = await client.post("/api/chat", json={"content": "when do I water the monstera?"})
    answer = asked.json()["assistant_message"]
    [stored] = [s["href"] for s in answer["sources"]]
    assert stored.startswith("obsidian://open?vault=Life&file=Home%2FPlants")
    await heartbeat(client, LIFE_ID, "Home & Garden")  # the owner renamed the vault
    renamed = stored.replace("vault=Life&", "vault=Home%20%26%20Garden&")
    page = await client.get(f"/api/conversations/{asked.json()['conversation_id']}/messages")
    [reply] = [m for m in page.json()["messages"] if m["id"] == answer["id"]]
    assert [s["href"] for s in reply["sources"]] == [renamed]
    one = (await client.get(f"/api/messages/{answer['id']}")).json()["message"]
    assert [s["href"] for s in one["sources"]] == [renamed]
    [hit] = (await client.get("/api/search", params={"q": "monstera sunday",
                                                      "source": "notes"})).json()["hits"]
    assert hit["href"].split("&file=")[0] == renamed.split("&file=")[0]  # as search says

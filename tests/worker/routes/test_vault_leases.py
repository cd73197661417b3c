"""One hub run at a time per vault (migrations/0010), and a vault name ordered by sync
sequence. Over HTTP on real SQLite."""

from __future__ import annotations

import httpx

from shared.api.protocol import LEASE_MS
from tests.conftest import LIFE_ID, Clock, auth, batch, note

HUB_A, HUB_B = "hub-aaaaaaaaaaaa", "hub-bbbbbbbbbbbb"


async def beat(client: httpx.AsyncClient, **body: object) -> httpx.Response:
    return await client.post("/vault/heartbeat", headers=auth(),
                             json={"vault_id": LIFE_ID, "vault": "Life", **body})


async def status_vault(client: httpx.AsyncClient) -> dict:
    [vault] = (await client.get("/status")).json()["vaults"]
    return vault


async def test_a_second_hub_is_refused_while_a_run_holds_the_vault(
        client: httpx.AsyncClient) -> None:
    first = await beat(client, holder=HUB_A)
    assert first.status_code == 200, first.text
    seq = first.json()["vault"]["seq"]
    before = await status_vault(client)
    refused = await beat(client, holder=HUB_B, vault="Renamed")
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert error["code"] == "vault_busy"
    assert "another hub run" in error["message"] and "nothing was stored" in error["message"]
    assert error["details"]["lease_until"] > 0
    assert await status_vault(client) == before  # no sequence, no rename, no contact
    # A hub without an id (an older hub) is refused too.
    assert (await beat(client)).status_code == 409
    # The run's last heartbeat gives the lease up; the other hub's next run goes on.
    done = await beat(client, holder=HUB_A, seq=seq, rejected=0)
    assert done.status_code == 200, done.text
    assert done.json()["vault"]["seq"] == seq  # a last heartbeat takes no new sequence
    after = await beat(client, holder=HUB_B)
    assert after.status_code == 200 and after.json()["vault"]["seq"] == seq + 1


async def test_the_same_hub_takes_its_own_lease_over(client: httpx.AsyncClient) -> None:
    """A hub killed mid-run resumes at once from the same state (the same hub id)."""
    assert (await beat(client, holder=HUB_A)).status_code == 200
    again = await beat(client, holder=HUB_A)
    assert again.status_code == 200 and again.json()["vault"]["seq"] == 2


async def test_a_lapsed_lease_is_free_and_batches_extend_it(client: httpx.AsyncClient,
                                                            clock: Clock) -> None:
    seq = (await beat(client, holder=HUB_A)).json()["vault"]["seq"]
    clock.now += LEASE_MS - 1000
    sent = await client.post("/vault/sync", headers=auth(),
                             json=batch("b1", [note("a.md", "the okapi note")], seq=seq))
    assert sent.status_code == 200, sent.text
    clock.now += 2000  # past the first lease, within the one the batch extended
    assert (await beat(client, holder=HUB_B)).status_code == 409
    clock.now += LEASE_MS
    assert (await beat(client, holder=HUB_B)).status_code == 200  # a killed hub lapses


async def test_a_stalled_older_run_cannot_rename_the_vault_back(
        client: httpx.AsyncClient) -> None:
    old = (await beat(client)).json()["vault"]["seq"]
    new = (await beat(client, vault="Personal")).json()["vault"]["seq"]  # a later run
    assert new > old
    late = await client.post("/vault/sync", headers=auth(), json=batch(
        "late", [note("a.md", "the okapi note")], vault="Life", seq=old))
    assert late.status_code == 200, late.text
    assert (await status_vault(client))["name"] == "Personal"
    end = await beat(client, seq=old)  # the stalled run's last heartbeat
    assert end.status_code == 200, end.text
    assert (await status_vault(client))["name"] == "Personal"
    # The later run's own last heartbeat still names it.
    await beat(client, vault="Personal", seq=new)
    assert (await status_vault(client))["name"] == "Personal"

"""The heartbeat's name check on the local SQLite adapter and on real D1 in Miniflare: a
name another vault id holds is refused in the heartbeat's own batch, nothing stored."""

from __future__ import annotations

import pytest

from shared.api.errors import VaultBusy, VaultNameTaken
from tests.conftest import LIFE_ID, NOW_MS
from worker.db import Database
from worker.store import vaults

pytestmark = pytest.mark.miniflare

WORK_ID = "22222222-2222-4222-8222-222222222222"


async def test_a_taken_name_is_refused_and_nothing_stored(port: Database) -> None:
    first = await vaults.heartbeat(port, LIFE_ID, "Life", NOW_MS)
    with pytest.raises(VaultNameTaken, match=LIFE_ID):
        await vaults.heartbeat(port, WORK_ID, "Life", NOW_MS + 1)
    assert [(v.uuid, v.name, v.seq) for v in await vaults.list_vaults(port)] == [
        (LIFE_ID, "Life", first.vault.seq)]
    await vaults.heartbeat(port, WORK_ID, "Work", NOW_MS + 2)
    with pytest.raises(VaultNameTaken):
        await vaults.heartbeat(port, LIFE_ID, "Work", NOW_MS + 3)
    assert [(v.name, v.last_contact_at) for v in await vaults.list_vaults(port)] == [
        ("Life", NOW_MS), ("Work", NOW_MS + 2)]


async def test_a_held_lease_refuses_another_hub_and_nothing_is_stored(port: Database) -> None:
    """migrations/0010 on both: a live lease of another hub refuses the heartbeat in its
    own batch; the run's last heartbeat gives it up and renames only if no later run
    started."""
    first = await vaults.heartbeat(port, LIFE_ID, "Life", NOW_MS, holder_id="hub-aaaaaaaa")
    with pytest.raises(VaultBusy):
        await vaults.heartbeat(port, LIFE_ID, "Other", NOW_MS + 1, holder_id="hub-bbbbbbbb")
    [held] = await vaults.list_vaults(port)
    assert (held.name, held.seq, held.lease_holder) == ("Life", first.vault.seq, "hub-aaaaaaaa")
    await vaults.heartbeat(port, LIFE_ID, "Life", NOW_MS + 2, rejected=0,
                           seq=first.vault.seq, holder_id="hub-aaaaaaaa")
    later = await vaults.heartbeat(port, LIFE_ID, "Renamed", NOW_MS + 3,
                                   holder_id="hub-bbbbbbbb")
    await vaults.heartbeat(port, LIFE_ID, "Life", NOW_MS + 4, seq=first.vault.seq)
    [now] = await vaults.list_vaults(port)
    assert (now.name, now.seq, now.lease_holder) == ("Renamed", later.vault.seq,
                                                     "hub-bbbbbbbb")

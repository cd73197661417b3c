"""The heartbeat's name check on the local SQLite adapter and on real D1 in Miniflare: a
name another vault id holds is refused in the heartbeat's own batch, nothing stored."""

from __future__ import annotations

import pytest

from shared.api.errors import VaultNameTaken
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

"""Two real hub processes (`mallory-hub sync`, each with its own state: a cron job beside
`mallory serve --sync-vault`) started at the same moment over three rounds of edits,
against the real local server. One run holds the vault at a time (the heartbeat's lease,
migrations/0010): the other is refused with exit 5 and sends nothing, or runs after it.
After every round the Worker's manifest equals the vault, each edit was sent once, and
the FTS indexes are intact. Two first runs racing share one vault id."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from bench.sync import make_vault
from hub.identity import read_vault_id
from local.thread_server import run_coroutine, running_server
from tests.e2e.hubs import hub_args, vault_notes, worker_notes
from tests.reliability.conftest import FTS_TABLES, fts_integrity, settings
from tests.reliability.hostile import TOKEN

pytestmark = pytest.mark.reliability
# The default run races over 100 notes; .ci/run over 400 (RELIABILITY_HUB_NOTES).
NOTES = int(os.environ.get("RELIABILITY_HUB_NOTES", "100"))
EDITS, ROUNDS = max(NOTES * 3 // 20, 1), 3
OK, BUSY = 0, 5


def race(server: object, vault: Path, states: tuple[Path, Path]) -> list[dict]:
    """Both hubs at once; their --json reports."""
    env = {**os.environ, "SYNC_TOKEN": TOKEN}
    hubs = [subprocess.Popen(hub_args(server, vault, state, "--json"),  # type: ignore[arg-type]
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env) for state in states]
    reports = []
    for hub in hubs:
        out, err = hub.communicate(timeout=300)
        assert hub.returncode in (OK, BUSY), err
        report = json.loads(out)
        assert report["exit_code"] == hub.returncode
        if hub.returncode == BUSY:
            assert report["status"] == "busy" and report["sent"] == 0
            assert "another hub run" in report["error"] or "another mallory-hub" in report["error"]
        reports.append(report)
    return reports


def test_two_hubs_racing_over_three_rounds_leave_the_worker_equal_to_the_vault(
        tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    make_vault(vault, NOTES)
    rng = random.Random(26)
    states = (tmp_path / "hub-a", tmp_path / "hub-b")
    with running_server(tmp_path / "race.sqlite", token=TOKEN, settings=settings()) as server:
        first = race(server, vault, states)  # two first runs: one id between them
        assert read_vault_id(vault) and {r["vault"]["id"] for r in first} == {
            read_vault_id(vault)}
        assert worker_notes(server, vault) == vault_notes(vault)
        busy = 0
        for round_ in range(ROUNDS):
            pages = sorted(vault.rglob("*.md"))
            for page in rng.sample(pages, EDITS):
                page.write_text(page.read_text() + f"\nedited in round {round_}\n")
            reports = race(server, vault, states)
            assert worker_notes(server, vault) == vault_notes(vault), f"round {round_}"
            # Each edit went up once: a refused run sent nothing, a later one found
            # nothing left to send.
            assert sum(r["sent"] for r in reports) == EDITS, reports
            busy += sum(r["status"] == "busy" for r in reports)
        print(f"\n{busy} of {ROUNDS} rounds had a run refused as busy")
        assert run_coroutine(fts_integrity(server.db)) == FTS_TABLES

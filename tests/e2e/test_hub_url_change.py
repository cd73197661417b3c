"""The hub's state names another Worker URL (hub/sync.py `drift`): real `mallory-hub`
processes against real local servers. The run reconciles from the manifest before it
diffs, says why, and leaves the Worker at the new URL equal to the vault; the next run
trusts the state again."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from local.thread_server import running_server
from tests.e2e.hubs import run_hub, vault_notes, worker_notes, write


def test_a_state_written_for_another_url_is_reconciled(tmp_path: Path) -> None:
    vault, state = tmp_path / "vault", tmp_path / "state"
    for i in range(12):
        write(vault, f"Notes/n{i}.md", f"note {i} about the harbour lantern")
    with running_server(tmp_path / "a.sqlite", token="t") as first:
        run_hub(first, vault, state)
        # The same database moves behind another URL (a copy taken now: same Worker id,
        # so only the URL tells the hub its picture may be out of date) ...
        with sqlite3.connect(tmp_path / "b.sqlite") as copy:
            first.db.connection.backup(copy)
        # ... while the hub goes on syncing to the old one.
        (vault / "Notes/n0.md").unlink()
        (vault / "Notes/n1.md").unlink()
        write(vault, "Notes/n2.md", "note 2, edited: the lantern moved to the pier")
        write(vault, "Notes/new.md", "a new note about the pier")
        run_hub(first, vault, state)
        assert worker_notes(first, vault) == vault_notes(vault)
    with running_server(tmp_path / "b.sqlite", token="t") as second:
        moved = run_hub(second, vault, state)
        out = moved.stdout
        assert f"reconciled with the Worker: the state was written for {first.url}" in out
        # The copy missed the last run: its two deletes and two upserts go out again.
        assert out.startswith("sent 2, unchanged 9, deleted 2,"), out
        assert worker_notes(second, vault) == vault_notes(vault)
        again = run_hub(second, vault, state)
        assert "reconciled" not in again.stdout
        assert again.stdout.startswith("sent 0, unchanged 11, deleted 0,"), again.stdout
        # Another name for the same server is another URL too: reconciled, nothing sent.
        alias = replace(second, url=second.url.replace("127.0.0.1", "localhost"))
        renamed = run_hub(alias, vault, state)
        assert f"the state was written for {second.url}" in renamed.stdout
        assert renamed.stdout.startswith("sent 0, unchanged 11, deleted 0,"), renamed.stdout

"""A vault's identity and the guards around it, end to end against the real local server:
an identity file that lost its earlier id heals, a run that would delete most of a vault
stops until told, and a second hub arriving mid-run is refused so that the run that read
the newest files is the one the Worker keeps."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

from hub.client import WorkerClient
from hub.identity import id_path, read_vault_id
from hub.notes import Rejection
from hub.reading import Page, Unstable, read_page
from hub.runs import sync_once
from hub.sync import Syncer
from local.thread_server import running_server
from tests.e2e.hubs import hub_args, run_hub, status, vault_notes, worker_notes, write
from tests.e2e.test_vault_sync import make_vault


def test_a_name_held_by_the_folders_earlier_id_heals(tmp_path: Path) -> None:
    """Two first runs raced (before ids were created exclusively): the notes went up
    under one id, the file kept the other, and every later run was refused 409."""
    vault, state = tmp_path / "Notes", tmp_path / "state"
    make_vault(vault, 12, seed=4)
    with running_server(tmp_path / "w.sqlite", token="t") as server:
        run_hub(server, vault, state)
        synced_under = read_vault_id(vault)
        id_path(vault).write_text(json.dumps({"vault_id": str(uuid.uuid4())}))
        healed = run_hub(server, vault, state)
        assert "vault id repaired" in healed.stdout, healed.stdout
        assert read_vault_id(vault) == synced_under
        assert [(v["id"], v["notes"]) for v in status(server)["vaults"]] == [
            (synced_under, 12)]  # nothing pushed twice
        assert worker_notes(server, vault) == vault_notes(vault)


def test_a_copied_vault_folder_is_refused_until_it_has_an_identity_of_its_own(
        tmp_path: Path) -> None:
    """A copy of a synced folder, `.mallory/` included, holds its identity: synced under
    another name it renamed the vault and replaced its notes with the copy's, and the
    original's next run did the reverse. The hub refuses the copy, sending nothing, until
    its identity file is deleted; a folder moved (the old one gone) keeps its id."""
    vault, copy, moved = tmp_path / "Notes", tmp_path / "Notes copy", tmp_path / "Moved"
    states = tmp_path / "states"
    make_vault(vault, 8, seed=7)
    with running_server(tmp_path / "w.sqlite", token="t") as server:
        env = {**os.environ, "SYNC_TOKEN": server.token}
        run_hub(server, vault, states / "notes")
        original = read_vault_id(vault)
        shutil.copytree(vault, copy)
        (copy / "Folder 0/note 0.md").unlink()  # the copy drifts from the original
        # Its own state, beside the original's, and the original's state itself (as
        # `mallory serve --sync-vault` keys states by vault id): refused either way.
        for state in (states / "copy", states / "notes"):
            for extra in ((), ("--dry-run",)):
                refused = subprocess.run(hub_args(server, copy, state, *extra, name="Copy"),
                                         env=env, capture_output=True, text=True,
                                         timeout=120)
                assert refused.returncode == 2, refused.stdout + refused.stderr
                assert f"holds the identity of {vault}" in refused.stderr, refused.stderr
                assert str(copy / ".mallory") in refused.stderr
        assert [(v["id"], v["name"], v["notes"]) for v in status(server)["vaults"]] == [
            (original, "Notes", 8)]
        assert worker_notes(server, vault) == vault_notes(vault)
        assert "sent 0, unchanged 8, deleted 0" in run_hub(server, vault, states / "notes").stdout
        shutil.rmtree(copy / ".mallory")
        run_hub(server, copy, states / "copy", name="Copy")
        assert read_vault_id(copy) not in (None, original)
        assert sorted((v["name"], v["notes"]) for v in status(server)["vaults"]) == [
            ("Copy", 7), ("Notes", 8)]
        assert worker_notes(server, copy) == vault_notes(copy)
        assert worker_notes(server, vault) == vault_notes(vault)
        vault.rename(moved)
        run_hub(server, moved, states / "moved", name="Notes")
        assert read_vault_id(moved) == original
        assert sorted((v["name"], v["notes"]) for v in status(server)["vaults"]) == [
            ("Copy", 7), ("Notes", 8)]


def test_a_run_that_would_empty_the_vault_stops_until_told(tmp_path: Path) -> None:
    vault, state = tmp_path / "Notes", tmp_path / "state"
    make_vault(vault, 40, seed=5)
    with running_server(tmp_path / "w.sqlite", token="t") as server:
        env = {**os.environ, "SYNC_TOKEN": server.token}
        run_hub(server, vault, state)
        for i in range(9):  # 9 of 40: fewer than 10 is never a mass delete
            (vault / f"Folder {i % 12}/note {i}.md").unlink()
        assert "deleted 9" in run_hub(server, vault, state).stdout
        for i in range(9, 19):  # 10 of 31, over 20%
            (vault / f"Folder {i % 12}/note {i}.md").unlink()
        stopped = subprocess.run(hub_args(server, vault, state, "--json"), env=env,
                                 capture_output=True, text=True, timeout=120)
        assert stopped.returncode == 4, stopped.stderr
        report = json.loads(stopped.stdout)
        assert (report["status"], report["synced"], report["mass_delete"]) == (
            "mass_delete", False, 10)
        assert "--allow-mass-delete" in report["error"] and "nothing was sent" in report["error"]
        [held] = status(server)["vaults"]
        assert held["notes"] == 31
        # The lease was given up: another hub (another state) is not kept waiting.
        other = subprocess.run(hub_args(server, vault, tmp_path / "other", "--json"),
                               env=env, capture_output=True, text=True, timeout=120)
        assert json.loads(other.stdout)["status"] == "mass_delete"
        allowed = run_hub(server, vault, state, "--allow-mass-delete")
        assert "deleted 10" in allowed.stdout
        assert worker_notes(server, vault) == vault_notes(vault)


def test_a_second_hub_mid_run_is_refused_and_the_worker_ends_as_the_vault(
        tmp_path: Path) -> None:
    """Hub A takes its sequence; hub B (another state: a cron job beside `mallory serve`)
    starts while A reads and would read a page before it is edited; A reads the edit.
    Before the lease, B's later sequence won with the older text."""
    vault = tmp_path / "Notes"
    make_vault(vault, 6, seed=6)
    target = "Folder 3/note 3.md"
    with running_server(tmp_path / "w.sqlite", token="t") as server:
        run_hub(server, vault, tmp_path / "a")
        write(vault, target, "# Note 3\nthe first edit of the kiln\n")
        seen: dict[str, object] = {}

        def read_while_b_runs(root: Path, path: str, now_ms: int) -> Page | Rejection | Unstable:
            if path == target and "b" not in seen:
                seen["b"] = sync_once(vault, server.url, server.token, None, tmp_path / "b")
                write(vault, target, "# Note 3\nthe second edit of the kiln, made later\n")
            return read_page(root, path, now_ms)

        client = WorkerClient(server.url, server.token)
        try:
            Syncer(vault, client, "Notes", tmp_path / "a", read=read_while_b_runs).run()
        finally:
            client.close()
        assert worker_notes(server, vault) == vault_notes(vault)
        b = seen["b"]
        assert b.status.label == "busy", b.error  # type: ignore[attr-defined]
        assert "another hub run" in b.error  # type: ignore[attr-defined]
        assert b.summary.sent == 0  # type: ignore[attr-defined]

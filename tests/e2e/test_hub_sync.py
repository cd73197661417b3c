"""The hub against the real Worker app over real HTTP (uvicorn) on real SQLite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.client import AuthFailed, WorkerClient
from hub.identity import read_vault_id
from hub.reading import Page, read_page
from hub.runs import run_watch
from hub.sync import Syncer
from local.migrate import MIGRATIONS_DIR, migrate
from local.sqlite_db import SqliteDatabase
from local.thread_server import RunningServer, run_coroutine, running_server
from shared.api.limits import MAX_NOTE_BODY_BYTES
from shared.api.sync_payload import SyncBatch, SyncResult
from shared.time.durations import MS_PER_DAY
from tests.conftest import ROOT
from tests.e2e.hubs import APPLIED, Hook, vault_notes, worker_notes


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "worker.sqlite", token="e2e-token") as running:
        yield running


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "My Vault"
    (root / "Projects").mkdir(parents=True)
    (root / "Projects" / "Lighthouse.md").write_text(
        "---\ntags: [restoration]\n---\n# Lighthouse restoration\nRepaint the lantern room.")
    (root / "Recipes.md").write_text("Grandma's plum dumplings need cinnamon sugar.")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.md").write_text("settings, never synced")
    return root


def run(server: RunningServer, vault: Path, tmp_path: Path, *, full: bool = False,
        token: str | None = None, client: WorkerClient | None = None, batch_items: int = 100):
    client = client or WorkerClient(server.url, token or server.token)
    try:
        return Syncer(vault, client, vault.name, tmp_path / "hub-state",
                      batch_items=batch_items).run(full=full)
    finally:
        client.close()


def search(server: RunningServer, q: str) -> list[str]:
    response = httpx.get(f"{server.url}/api/search", params={"q": q})
    assert response.status_code == 200
    return [h["id"] for h in response.json()["hits"]]


def status(server: RunningServer) -> dict:
    return httpx.get(f"{server.url}/status").json()


def manifest(server: RunningServer, vault: Path) -> dict[str, str]:
    return worker_notes(server, vault)


def test_create_edit_rename_delete_are_followed(server: RunningServer, vault: Path,
                                                tmp_path: Path) -> None:
    first = run(server, vault, tmp_path)
    assert (first.sent, first.deleted, len(first.rejected)) == (2, 0, 0)
    assert search(server, "lantern") == ["Projects/Lighthouse.md"]
    hit = httpx.get(f"{server.url}/api/search", params={"q": "lantern"}).json()["hits"][0]
    assert hit["href"] == "obsidian://open?vault=My%20Vault&file=Projects%2FLighthouse"
    assert status(server)["corpora"]["notes"] == 2

    assert run(server, vault, tmp_path).sent == 0  # no-op: nothing sent

    note = vault / "Recipes.md"
    note.write_text("Grandma's plum dumplings need poppy seeds.")
    os.utime(note, (note.stat().st_atime, note.stat().st_mtime + 5))
    assert run(server, vault, tmp_path).sent == 1
    assert search(server, "cinnamon") == [] and search(server, "poppy") == ["Recipes.md"]

    (vault / "Projects" / "Lighthouse.md").rename(vault / "Projects" / "Beacon.md")
    renamed = run(server, vault, tmp_path)
    assert (renamed.sent, renamed.deleted) == (1, 1)
    assert search(server, "lantern") == ["Projects/Beacon.md"]

    (vault / "Recipes.md").unlink()
    assert run(server, vault, tmp_path).deleted == 1
    assert search(server, "poppy") == []
    assert status(server)["corpora"]["notes"] == 1


def test_a_broken_page_is_reported_and_the_rest_syncs(server: RunningServer, vault: Path,
                                                      tmp_path: Path) -> None:
    (vault / "Broken.md").write_text("---\ntitle: [oops\n---\nbody")
    summary = run(server, vault, tmp_path)
    assert [r.path for r in summary.rejected] == ["Broken.md"]
    assert summary.sent == 2


class KilledAfter(WorkerClient):
    """A hub process that dies (Ctrl-C) after `pushes` accepted batches."""

    def __init__(self, url: str, token: str, pushes: int) -> None:
        super().__init__(url, token)
        self.left = pushes

    def push(self, batch: SyncBatch) -> SyncResult:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().push(batch)


def test_killed_between_batches_resumes_without_loss(server: RunningServer,
                                                     tmp_path: Path) -> None:
    vault = tmp_path / "big"
    vault.mkdir()
    for i in range(45):
        (vault / f"n{i:02d}.md").write_text(f"note {i} about topic{i}")
    with pytest.raises(KeyboardInterrupt):
        run(server, vault, tmp_path, client=KilledAfter(server.url, server.token, 2),
            batch_items=10)
    assert status(server)["corpora"]["notes"] == 20
    resumed = run(server, vault, tmp_path, batch_items=10)
    assert resumed.sent == 25
    assert status(server)["corpora"]["notes"] == 45
    assert search(server, "topic44") == ["n44.md"]


@pytest.mark.parametrize("full", [True, False])
def test_lost_state_is_repaired(server: RunningServer, vault: Path, tmp_path: Path,
                                full: bool) -> None:
    run(server, vault, tmp_path)
    shutil.rmtree(tmp_path / "hub-state")
    (vault / "Recipes.md").unlink()
    (vault / "New.md").write_text("fresh idea about kites")
    repaired = run(server, vault, tmp_path, full=full)
    assert (repaired.sent, repaired.deleted, repaired.unchanged) == (1, 1, 1)
    assert repaired.reconciled == ("--full" if full else "first contact with this Worker")
    assert set(manifest(server, vault)) == {"Projects/Lighthouse.md", "New.md"}
    assert run(server, vault, tmp_path).sent == 0  # the rebuilt state is complete


def test_a_lost_identity_file_is_restored_from_the_state(server: RunningServer, vault: Path,
                                                         tmp_path: Path) -> None:
    run(server, vault, tmp_path)
    before = read_vault_id(vault)
    shutil.rmtree(vault / ".mallory")
    again = run(server, vault, tmp_path)
    assert read_vault_id(vault) == before and again.sent == 0
    assert [v["notes"] for v in status(server)["vaults"]] == [2]  # still one vault


def test_wrong_token_writes_nothing(server: RunningServer, vault: Path,
                                    tmp_path: Path) -> None:
    with pytest.raises(AuthFailed):
        run(server, vault, tmp_path, token="not-the-token")
    assert status(server)["corpora"]["notes"] == 0


def hub_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hub.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, **(env or {})})


def test_cli_dry_run_then_sync(server: RunningServer, vault: Path, tmp_path: Path) -> None:
    common = ["--vault", str(vault), "--url", server.url, "--state-dir", str(tmp_path / "s")]
    dry = hub_cli("sync", *common, "--dry-run", env={"SYNC_TOKEN": server.token})
    assert dry.returncode == 0, dry.stderr
    assert "would upsert Recipes.md" in dry.stdout
    assert status(server)["corpora"]["notes"] == 0
    real = hub_cli("sync", *common, "--token", server.token)
    assert real.returncode == 0, real.stderr
    assert real.stdout.startswith("sent 2, unchanged 0, deleted 0, rejected 0")
    missing = hub_cli("sync", *common, env={"SYNC_TOKEN": ""})
    assert missing.returncode == 2 and "no sync token" in missing.stderr


def test_watch_repairs_a_worker_that_lost_its_data(tmp_path: Path, vault: Path) -> None:
    state = tmp_path / "state"
    with running_server(tmp_path / "one.sqlite", token="t") as first:
        run_watch(vault, first.url, "t", None, state, interval_s=0, max_runs=1, quiet=True)
        assert status(first)["corpora"]["notes"] == 2
    with running_server(tmp_path / "fresh.sqlite", token="t") as second:  # empty database
        run_watch(vault, second.url, "t", None, state, interval_s=0, max_runs=1, quiet=True)
        assert status(second)["corpora"]["notes"] == 2


def test_watch_syncs_again_soon_after_an_edit_made_during_a_run(tmp_path: Path,
                                                                vault: Path) -> None:
    """The poll compares with the stats from before the run, so an edit made while a run
    was sending is seen at the next poll, not an interval (here an hour) later."""
    hooks: list[Hook] = []
    edited = vault / "Recipes.md"

    def wrap(app: Any) -> Hook:
        hooks.append(Hook(app))
        return hooks[0]

    def edit_during_the_run() -> None:
        edited.write_text("plum dumplings with poppy seeds, edited while the first run was "
                          "sending")

    with running_server(tmp_path / "w.sqlite", token="t", wrap=wrap) as server:
        hooks[0].on_request = lambda path, n: APPLIED if path == "/vault/sync" else None
        hooks[0].act = edit_during_the_run
        watcher = threading.Thread(target=run_watch, kwargs=dict(
            vault=vault, url=server.url, token="t", vault_name=None, state_dir=tmp_path / "s",
            interval_s=3600, poll_s=0.1, max_runs=2, quiet=True), daemon=True)
        watcher.start()
        watcher.join(timeout=60)
        hooks[0].on_request = None
        assert not watcher.is_alive(), "the edit made during the first run was not synced"
        assert worker_notes(server, vault) == vault_notes(vault)


def test_cli_status_reports_state_and_worker(server: RunningServer, vault: Path,
                                             tmp_path: Path) -> None:
    state = str(tmp_path / "s")
    hub_cli("sync", "--vault", str(vault), "--url", server.url, "--state-dir", state,
            "--token", server.token)
    result = hub_cli("status", "--vault", str(vault), "--state-dir", state, "--url", server.url)
    assert result.returncode == 0, result.stderr
    assert "2 notes pushed" in result.stdout and '"notes": 2' in result.stdout


def test_the_first_sync_after_0002_adopts_the_notes_pushed_before(tmp_path: Path,
                                                                  vault: Path) -> None:
    """A Worker and a hub state from before vault ids: the first run adopts the old notes
    (nothing is pushed twice) and repairs what the old state got wrong."""
    db_path, state = tmp_path / "worker.sqlite", tmp_path / "state"
    only_first = tmp_path / "migrations-0001"
    only_first.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", only_first)
    old = SqliteDatabase(db_path)
    run_coroutine(migrate(old, only_first))
    notes = vault_notes(vault)
    stale = "Recipes.md"  # an edit the old hub recorded as pushed while it was not
    for path, digest in notes.items():
        old.connection.execute(
            "INSERT INTO vault_notes (path, vault, title, name, body, mtime, note_date, "
            "content_hash, synced_at) VALUES (?, 'My Vault', ?, ?, 'old text', 1, 1, ?, 1)",
            (path, path, path, "0" * 64 if path == stale else digest))
    old.close()
    (state).mkdir()
    (state / "state.json").write_text(json.dumps({"version": 1, "vault": "My Vault", "notes": {
        p: {"hash": d, "mtime_ns": (vault / p).stat().st_mtime_ns,
            "size": (vault / p).stat().st_size, "pushed_at": 1} for p, d in notes.items()}}))
    with running_server(db_path, token="t") as server:  # applies 0002
        assert [v["legacy"] for v in status(server)["vaults"]] == [True]
        result = hub_cli("sync", "--vault", str(vault), "--url", server.url, "--state-dir",
                         str(state), "--token", "t")
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("sent 1, unchanged 1, deleted 0"), result.stdout
        assert "the hub state predates vault ids" in result.stdout
        [adopted] = status(server)["vaults"]
        assert (adopted["id"], adopted["name"], adopted["notes"], adopted["legacy"]) == (
            read_vault_id(vault), "My Vault", 2, False)
        assert worker_notes(server, vault) == notes
        again = hub_cli("sync", "--vault", str(vault), "--url", server.url, "--state-dir",
                        str(state), "--token", "t")
        assert again.stdout.startswith("sent 0, unchanged 2") and "reconciled" not in \
            again.stdout, again.stdout


def clock_ahead_for(target: str, ahead_ms: int):
    """The hub's page reader, with a clock `ahead_ms` fast for the one file `target`."""
    def read(root: Path, rel: str, now_ms: int):
        page = read_page(root, rel, now_ms)
        if rel == target and isinstance(page, Page):
            ahead = page.note.model_copy(update={"mtime": now_ms + ahead_ms})
            return Page(ahead, page.mtime_ns, page.size, page.read_ns)
        return page
    return read


def test_an_item_the_worker_refuses_is_reported_and_the_rest_arrives(
        server: RunningServer, vault: Path, tmp_path: Path) -> None:
    """A hub whose clock runs two days fast for one file: the Worker refuses that item
    (422 naming it and the field), the hub drops it and resends the rest of the batch."""
    fast_clock = clock_ahead_for("Recipes.md", 2 * MS_PER_DAY)
    client = WorkerClient(server.url, server.token)
    try:
        summary = Syncer(vault, client, vault.name, tmp_path / "s", read=fast_clock).run()
    finally:
        client.close()
    assert [(r.path, "mtime" in r.reason and "ahead" in r.reason) for r in summary.rejected] \
        == [("Recipes.md", True)]
    assert summary.sent == 1 and set(worker_notes(server, vault)) == {"Projects/Lighthouse.md"}
    assert status(server)["vaults"][0]["rejected"] == 1


def test_four_bad_pages_are_reported_with_their_reasons_and_every_good_page_arrives(
        server: RunningServer, vault: Path, tmp_path: Path) -> None:
    """Broken frontmatter, a body over the limit and invalid UTF-8 are refused by the hub;
    a page dated beyond the Worker's clock (a hub clock two years fast for that file, as
    a camera or a sync tool with a wrong clock leaves it) is refused by the Worker, item
    by item. A file time merely ahead of the hub's own clock is not bad: it is sent as the
    hub's now (hub/reading.py), so that page is among the good ones."""
    (vault / "Broken frontmatter.md").write_text("---\ntitle: [oops\n---\nbody")
    (vault / "Huge.md").write_text("# Huge\n" + "word " * (MAX_NOTE_BODY_BYTES // 5 + 100))
    (vault / "Latin-1.md").write_bytes("# Café\nCrème brûlée".encode("latin-1"))
    (vault / "Future.md").write_text("# Future\nThe orbital station opens.")
    (vault / "Inbox").mkdir()
    (vault / "Inbox" / "Ahead of the hub.md").write_text("Tomorrow's ferry timetable.")
    ahead_s = (vault / "Inbox" / "Ahead of the hub.md").stat().st_mtime + 3 * 86_400
    os.utime(vault / "Inbox" / "Ahead of the hub.md", (ahead_s, ahead_s))
    (vault / "Garden.md").write_text("---\ntags: [garden]\n---\nPlant the tulip bulbs.")

    years_ahead = clock_ahead_for("Future.md", 730 * MS_PER_DAY)
    client = WorkerClient(server.url, server.token)
    try:
        summary = Syncer(vault, client, vault.name, tmp_path / "s", read=years_ahead).run()
    finally:
        client.close()
    reasons = {r.path: r.reason for r in summary.rejected}
    assert sorted(reasons) == ["Broken frontmatter.md", "Future.md", "Huge.md", "Latin-1.md"]
    assert reasons["Broken frontmatter.md"].startswith("broken YAML frontmatter (line 2)")
    assert f"the limit is {MAX_NOTE_BODY_BYTES}" in reasons["Huge.md"]
    assert "body" in reasons["Huge.md"]
    assert reasons["Latin-1.md"].startswith("not UTF-8 (byte ") and "re-save" in \
        reasons["Latin-1.md"]
    assert "refused by the Worker" in reasons["Future.md"]
    assert "mtime is 730.0 days ahead of the Worker's clock" in reasons["Future.md"]
    good = {p: h for p, h in vault_notes(vault).items() if p not in reasons}
    assert sorted(good) == ["Garden.md", "Inbox/Ahead of the hub.md",
                            "Projects/Lighthouse.md", "Recipes.md"]
    assert worker_notes(server, vault) == good  # every good page, as the vault holds it
    assert summary.sent == 4
    assert search(server, "ferry timetable") == ["Inbox/Ahead of the hub.md"]
    assert search(server, "tulip") == ["Garden.md"]
    assert status(server)["vaults"][0]["rejected"] == 4

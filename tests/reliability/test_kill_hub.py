"""kill -9 of a real hub process (`uv run mallory-hub sync`) in the middle of a sync
against the real local server; a second run resumes, and the Worker's manifest then
equals the vault exactly. FTS indexes intact."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bench.sync import make_vault
from hub.client import WorkerClient
from hub.identity import read_vault_id
from hub.notes import content_hash
from hub.walk import walk_vault
from local.thread_server import RunningServer, run_coroutine, running_server
from tests.conftest import ROOT
from tests.reliability.conftest import FTS_TABLES, fts_integrity, settings
from tests.reliability.hostile import TOKEN

pytestmark = pytest.mark.reliability
NOTES = 1_000  # 10 batches of 100: the kill lands after the first
KILL_TIMEOUT_S = 60


def hub_command(vault: Path, url: str, state_dir: Path) -> list[str]:
    uv = shutil.which("uv")
    prefix = [uv, "run", "--no-sync", "mallory-hub"] if uv else [sys.executable, "-m", "hub.cli"]
    return [*prefix, "sync", "--vault", str(vault), "--url", url, "--state-dir", str(state_dir)]


def stored_notes(server: RunningServer) -> int:
    """Through the server (its own connection), never beside it on the same one."""
    return int(httpx.get(f"{server.url}/status", timeout=10).json()["corpora"]["notes"])


def vault_manifest(vault: Path) -> dict[str, str]:
    return {f.path: content_hash((vault / f.path).read_bytes()) for f in walk_vault(vault)}


def worker_manifest(server: RunningServer, vault: Path) -> dict[str, str]:
    client = WorkerClient(server.url, TOKEN)
    try:
        vault_id = read_vault_id(vault)
        assert vault_id, "the hub gave the vault its id"
        return client.manifest(vault_id)
    finally:
        client.close()


def test_kill_9_mid_sync_then_resume(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    make_vault(vault, NOTES)
    expected = vault_manifest(vault)
    assert len(expected) == NOTES
    env = {**os.environ, "SYNC_TOKEN": TOKEN}
    with running_server(tmp_path / "kill.sqlite", token=TOKEN,
                        settings=settings(local_owner=True)) as server:
        command = hub_command(vault, server.url, tmp_path / "hub-state")
        # Its own process group: `uv run` starts the hub as a child, and kill -9 of uv
        # alone would leave that child running.
        hub = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + KILL_TIMEOUT_S
        while stored_notes(server) == 0 and hub.poll() is None:
            assert time.monotonic() < deadline, "the hub sent nothing in time"
            time.sleep(0.02)
        os.killpg(hub.pid, signal.SIGKILL)
        hub.wait(timeout=10)
        hub_errors = hub.stderr.read() if hub.stderr else b""
        if hub.stderr:
            hub.stderr.close()
        assert hub.returncode == -signal.SIGKILL, hub_errors
        time.sleep(0.5)  # a request already in flight lands or fails; nothing follows it
        at_kill = stored_notes(server)
        assert 0 < at_kill < NOTES, f"killed with {at_kill} of {NOTES} notes stored"
        assert stored_notes(server) == at_kill  # the hub is really gone

        resumed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        print(f"\nkilled at {at_kill}/{NOTES} notes; resume: {resumed.stdout.strip()}")
        assert worker_manifest(server, vault) == expected
        assert stored_notes(server) == NOTES
        assert run_coroutine(fts_integrity(server.db)) == FTS_TABLES
        # Nothing is left to send: the state the resumed run wrote matches the Worker.
        again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                               timeout=120)
        assert again.returncode == 0 and "sent 0" in again.stdout, again.stdout

"""The README's `VAULT=/path/to/your/vault ./scripts/run`, switched between three folders
(the demo vault and two of the owner's) on one database: `mallory serve --sync-vault`, as
scripts/run starts it, each time. No folder loses a note or takes another's id."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from hub.identity import read_vault_id
from local.thread_server import free_port
from tests.conftest import ROOT
from tests.e2e.hubs import vault_notes
from tests.e2e.test_vault_sync import make_vault

MALLORY = Path(sys.executable).with_name("mallory")
TOKEN = "switch-token"
SYNC_TIMEOUT_S = 120


def held(url: str) -> dict[str, int]:
    """Vault id → notes, from the Worker's /status."""
    try:
        answer = httpx.get(f"{url}/status", timeout=5)
    except httpx.HTTPError:
        return {}
    return {v["id"]: v["notes"] for v in answer.json()["vaults"]} if answer.is_success else {}


def serve_until_synced(db: Path, folder: Path, cwd: Path) -> dict[str, int]:
    """`mallory serve --sync-vault folder` until the Worker holds every note of the folder
    under the folder's id, then stopped; what the Worker then holds."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen(
        [str(MALLORY), "serve", "--db", str(db), "--create-dir", "--port", str(port),
         "--sync-vault", str(folder), "--log-level", "warning"], cwd=cwd,
        # Lexical: what a folder switch keeps does not depend on the mode, and loading the
        # embedder and indexing each folder cost 2.5 s of this test's 7.
        env={**os.environ, "SYNC_TOKEN": TOKEN, "RETRIEVAL_MODE": "lexical"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + SYNC_TIMEOUT_S
        while time.monotonic() < deadline:
            vault_id, now = read_vault_id(folder), held(url)
            if vault_id and now.get(vault_id) == len(vault_notes(folder)):
                return now
            assert serve.poll() is None, serve.communicate()[0]
            time.sleep(0.3)
        raise AssertionError(f"{folder} was not synced in {SYNC_TIMEOUT_S} s: {held(url)}")
    finally:
        serve.send_signal(signal.SIGTERM)
        output = serve.communicate(timeout=30)[0]
        assert not re.search(r"deleted [1-9]", output), output


def test_switching_vault_keeps_every_folder_whole(tmp_path: Path) -> None:
    demo, mine, work = tmp_path / "vault", tmp_path / "mine", tmp_path / "work"
    shutil.copytree(ROOT / "examples" / "vault", demo, ignore=shutil.ignore_patterns(".mallory"))
    make_vault(mine, 14, seed=21)
    make_vault(work, 9, seed=22)
    db = tmp_path / ".data" / "mallory.sqlite"
    expected: dict[str, int] = {}
    for folder in (demo, mine, work):
        now = serve_until_synced(db, folder, tmp_path)
        expected[str(read_vault_id(folder))] = len(vault_notes(folder))
        assert now == expected, folder  # every folder synced so far keeps all its notes
    ids = [read_vault_id(f) for f in (demo, mine, work)]
    assert len(set(ids)) == 3, ids  # each folder keeps its own id

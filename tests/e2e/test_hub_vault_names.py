"""Real `mallory-hub` processes against the real local server: a second vault folder
synced under a name another vault holds stops with a message naming the conflict and
what to do, and the Worker stores nothing of it; renamed, it syncs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hub.identity import read_vault_id
from local.thread_server import running_server
from tests.e2e.hubs import hub_args, run_hub, search, status, write


def vaults(server) -> list[tuple]:
    return [(v["id"], v["name"], v["notes"], v["last_contact_at"])
            for v in status(server)["vaults"]]


def test_a_taken_vault_name_stops_the_hub_and_stores_nothing(tmp_path: Path) -> None:
    life, other = tmp_path / "Life", tmp_path / "Other"
    write(life, "Home/Plants.md", "water the monstera on sunday")
    write(other, "Home/Plants.md", "the office monstera needs a bigger pot")
    with running_server(tmp_path / "worker.sqlite", token="t") as server:
        run_hub(server, life, tmp_path / "s-life", name="Life")
        vaults_before = vaults(server)
        env = {"SYNC_TOKEN": server.token, "PATH": "/usr/bin:/bin"}
        for extra in ((), ("--json",)):
            done = subprocess.run(hub_args(server, other, tmp_path / "s-other", *extra,
                                           name="Life"),
                                  capture_output=True, text=True, timeout=120, env=env)
            assert done.returncode != 0
            said = done.stdout + done.stderr
            assert "refused this vault's name" in said and "'Life'" in said, said
            life_id = read_vault_id(life)
            assert life_id is not None and life_id in said and "--vault-name" in said, said
            if extra:  # --json for cron and monitoring carries the same words
                assert "refused this vault's name" in json.loads(done.stdout)["error"]
        assert vaults(server) == vaults_before
        assert search(server, "monstera") == [("Life", "Home/Plants.md")]
        run_hub(server, other, tmp_path / "s-other", name="Office")
        assert search(server, "monstera") == [("Life", "Home/Plants.md"),
                                              ("Office", "Home/Plants.md")]

"""Helpers for end-to-end tests that run the real `mallory-hub` executable (the console
script `uv run mallory-hub` starts) against a real local server, and compare what the
Worker holds with what the vault holds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from hub.client import WorkerClient
from hub.identity import read_vault_id
from hub.walk import walk_vault
from local.thread_server import RunningServer

HUB = Path(sys.executable).with_name("mallory-hub")
OLD_MTIME_S = 1_600_000_000  # 2020: what a restored file keeps


def hub_args(server: RunningServer, vault: Path, state: Path, *extra: str,
             name: str | None = None) -> list[str]:
    args = [str(HUB), "sync", "--vault", str(vault), "--url", server.url,
            "--state-dir", str(state), *extra]
    return [*args, "--vault-name", name] if name else args


def run_hub(server: RunningServer, vault: Path, state: Path, *extra: str,
            name: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(hub_args(server, vault, state, *extra, name=name),
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, "SYNC_TOKEN": server.token})
    assert done.returncode == 0, done.stderr
    return done


def start_hub(server: RunningServer, vault: Path, state: Path, *extra: str,
              name: str | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(hub_args(server, vault, state, *extra, name=name),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "SYNC_TOKEN": server.token})


def worker_notes(server: RunningServer, vault: Path) -> dict[str, str]:
    """What the Worker holds of this vault: path → content hash."""
    vault_id = read_vault_id(vault)
    assert vault_id, f"{vault} has no identity file: it was never synced"
    client = WorkerClient(server.url, server.token)
    try:
        return client.manifest(vault_id)
    finally:
        client.close()


def vault_notes(vault: Path) -> dict[str, str]:
    """What the vault holds: path → SHA-256 of the file's bytes (the hub's content hash)."""
    return {f.path: hashlib.sha256((vault / f.path).read_bytes()).hexdigest()
            for f in walk_vault(vault)}


def write(vault: Path, rel: str, text: str, mtime_s: float | None = None) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime_s is not None:
        os.utime(path, (mtime_s, mtime_s))


def search(server: RunningServer, q: str, **params: str) -> list[tuple[str | None, str]]:
    response = httpx.get(f"{server.url}/api/search", params={"q": q, **params})
    assert response.status_code == 200, response.text
    return sorted((h["vault"], h["id"]) for h in response.json()["hits"])


def status(server: RunningServer) -> dict:
    return httpx.get(f"{server.url}/status").json()


LOST, APPLIED = "lost", "applied"


class Hook:
    """ASGI middleware that asks `on_request(path, n)` about the n-th /vault/* request
    (counting from 1) and calls `act()` for LOST (before the Worker sees the request, which
    is then answered 503 unapplied) or APPLIED (once the Worker has applied it, before the
    answer leaves)."""

    def __init__(self, app: Any) -> None:
        self.app, self.count = app, 0
        self.on_request: Callable[[str, int], str | None] | None = None
        self.act: Callable[[], None] = lambda: None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        when = None
        if scope["type"] == "http" and scope["path"].startswith("/vault/") and self.on_request:
            self.count += 1
            when = self.on_request(scope["path"], self.count)
        if when == LOST:
            self.act()
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if when == APPLIED:
            async def send_after_act(message: dict) -> None:
                if message["type"] == "http.response.start":
                    self.act()
                await send(message)

            await self.app(scope, receive, send_after_act)
            return
        await self.app(scope, receive, send)

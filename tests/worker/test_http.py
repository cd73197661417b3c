"""worker/http.py: the Runtime of a Worker request is built from its `env` once, and the
middleware's checks and the route read that one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from tests.asgi import WithEnv
from worker.app import create_app

ROUTE_ID = "11111111-1111-4111-8111-111111111111"


class CountingEnv(Mapping[str, Any]):
    """A Worker env of vars and secrets (the Workers adapter hands one to the app as
    `scope["env"]`) that counts how often the settings are read from it."""

    def __init__(self, values: dict[str, str]) -> None:
        self.vars, self.reads = values, 0
        # The D1 binding: the request below is refused before the database is used.
        self.DB = object()

    def __getitem__(self, key: str) -> Any:
        return self.vars[key]

    def get(self, key: str, default: Any = None) -> Any:
        if key == "SYNC_TOKEN":  # read once per parse of the Settings
            self.reads += 1
        return self.vars.get(key, default)

    def __iter__(self) -> Any:
        return iter(self.vars)

    def __len__(self) -> int:
        return len(self.vars)


async def test_a_worker_request_parses_its_settings_once() -> None:
    env = CountingEnv({"SYNC_TOKEN": "right-token"})
    transport = httpx.ASGITransport(app=WithEnv(create_app(), env))
    async with httpx.AsyncClient(transport=transport, base_url="https://w.example") as client:
        # The middleware reads the allowed hosts, the route the sync tokens: one parse.
        answer = await client.get(f"/vault/manifest?vault={ROUTE_ID}",
                                  headers={"authorization": "Bearer wrong-token"})
    assert answer.status_code == 403, answer.text  # a wrong sync token
    assert env.reads == 1

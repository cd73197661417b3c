"""Fixtures for the security tests: settings switched per test, a clean JWKS cache."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from tests.asgi import WithEnv
from tests.conftest import BASE_URL
from worker.app import create_app
from worker.config import Runtime
from worker.security import access


@pytest.fixture(autouse=True)
def fresh_jwks() -> Iterator[None]:
    access.JWKS.clear()
    yield
    access.JWKS.clear()


def configure(runtime: Runtime, **changes: Any) -> None:
    """Change the settings the running test app sees (it reads them per request)."""
    runtime.settings = replace(runtime.settings, **changes)


@pytest.fixture
async def env_client() -> AsyncIterator[Any]:
    clients: list[httpx.AsyncClient] = []

    def make(env: dict[str, str]) -> httpx.AsyncClient:
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=WithEnv(create_app(), env)),
                                   base_url=BASE_URL, headers={"origin": BASE_URL})
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()

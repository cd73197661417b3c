"""Fixtures for the end-to-end tests: the real local server (uvicorn on SQLite) in a
thread, seeded through the real sync route, and `mallory serve`'s server in each retrieval
mode. The browser tests (tests/e2e/browser/) add Chromium to them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from shared.api.sync_payload import NoteUpsert
from tests.conftest import note
from worker.config import Settings

VAULT_IDS = {"Home Vault": "22222222-2222-4222-8222-222222222222",
             "Work Vault": "33333333-3333-4333-8333-333333333333"}


def sync_notes(server: RunningServer, *upserts: NoteUpsert, vault: str = "Home Vault",
               batch_id: str = "e2e",
               deletes: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """One hub run: a heartbeat for the run's sequence, then the batch."""
    headers = {"authorization": f"Bearer {server.token}"}
    vault_id = VAULT_IDS.get(vault, "44444444-4444-4444-8444-444444444444")
    beat = httpx.post(f"{server.url}/vault/heartbeat", json={"vault_id": vault_id,
                                                            "vault": vault}, headers=headers)
    assert beat.status_code == 200, beat.text
    body = {"batch_id": batch_id, "vault_id": vault_id, "vault": vault,
            "seq": beat.json()["vault"]["seq"],
            "upserts": [u.model_dump() for u in upserts], "deletes": list(deletes)}
    response = httpx.post(f"{server.url}/vault/sync", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "e2e.sqlite", token="e2e-token", serve_static=True) as s:
        sync_notes(s,
                   note("Travel/Iceland.md", "We hiked the glacier at Sólheimajökull; crampons "
                        "are rented at the car park.", title="Iceland trip"),
                   note("Inbox/Evil.md", "A note about xylophone tuning, with <b>bold</b> "
                        "markup.", title="<img src=x onerror=alert(1)>"))
        yield s


@pytest.fixture
def empty_server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "empty.sqlite", token="e2e-token", serve_static=True) as s:
        yield s


# What the mode-parametrised tests give semantic recall: they test what it finds, and a
# semantic_timeout under a loaded suite would step them down to lexical.
SEMANTIC_BUDGET_S = 10.0


@pytest.fixture
def serve_mode(tmp_path: Path) -> Iterator[Callable[..., RunningServer]]:
    """Start `mallory serve`'s server in a retrieval mode (the local MiniLM in the semantic
    ones), one database per mode; every server started is stopped at the end. `budget_s`:
    the semantic budget (None: the Runtime's own)."""
    stack: list[Any] = []

    def start(mode: str, budget_s: float | None = SEMANTIC_BUDGET_S) -> RunningServer:
        settings = settings_for_bind(Settings(sync_tokens=("e2e-token",),
                                              retrieval_mode=mode), "127.0.0.1")
        ctx = running_server(tmp_path / f"{mode}.sqlite", token="e2e-token",
                             settings=settings,
                             semantic_env=None if mode == "lexical" else {},
                             semantic_budget_s=budget_s)
        stack.append(ctx)
        return ctx.__enter__()

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)

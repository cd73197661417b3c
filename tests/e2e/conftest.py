"""Browser fixtures for the web client's end-to-end tests: Debian's chromium, headless,
driven by Playwright against the real local server (uvicorn on SQLite). The same pattern
as tests/test_web.py; screenshots go to test-output/."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Page, ViewportSize, sync_playwright

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from shared.api.sync_payload import NoteUpsert
from tests.conftest import ROOT, note
from worker.config import Settings

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "test-output"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync"]
TIMEZONE = "Europe/Rome"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
LOCALE = "en-GB"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium per test file. Not per process: Playwright's sync API keeps its event
    loop marked running in the main thread while it is open, and every later test of the
    process that calls asyncio.run fails. Each test gets its own context (`page`), so no
    state crosses tests."""
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `apt-get install chromium` (.ci/run does)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        yield b
        b.close()


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


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 800},
                                  timezone_id=TIMEZONE, locale=LOCALE)
    pg = context.new_page()
    record_dialogs(pg)
    yield pg
    context.close()


def record_dialogs(pg: Page) -> None:
    """Dismisses every dialog, keeping its message in `pg.dialogs` (a test asserts none)."""
    dialogs: list[str] = []

    def dismiss(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", dismiss)
    pg.dialogs = dialogs  # type: ignore[attr-defined]  # Playwright's Page has no slot for it


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / name))


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

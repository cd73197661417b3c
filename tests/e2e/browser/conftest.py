"""Browser fixtures for the web client's end-to-end tests: Debian's chromium, headless,
driven by Playwright against the real local server (tests/e2e/conftest.py's fixtures);
screenshots go to test-output/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog, Page, ViewportSize, sync_playwright

from tests.conftest import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "test-output"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync"]
TIMEZONE = "Europe/Rome"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
LOCALE = "en-GB"


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One Chromium for this whole folder: starting Playwright's driver and Chromium costs
    about 1.5 CPU-s, once per file before. Not wider: Playwright's sync API keeps its event
    loop marked running in the main thread while it is open, and any asyncio.run in the
    same process fails meanwhile. So the folder goes whole to one test process
    (tests/schedule.py), and the browser closes when the process leaves it. Each test gets
    its own context (`page`), so no state crosses tests."""
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `apt-get install chromium` (.ci/run does)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        yield b
        b.close()


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

"""The web client in owner-token mode (`mallory serve` on a non-loopback address): a
browser signs in once at /login.html, and the chat then works with the cookie alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from tests.e2e.browser.conftest import shot
from worker.config import Settings

pytestmark = pytest.mark.browser
OWNER_TOKEN = "owner-token-for-the-browser-test"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = settings_for_bind(Settings(sync_tokens=("t",), owner_token=OWNER_TOKEN),
                                 "127.0.0.1")
    with running_server(tmp_path / "login.sqlite", serve_static=True,
                        settings=settings) as s:
        yield s


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    pg = context.new_page()
    console: list[str] = []
    pg.on("console", lambda message: console.append(message.text))
    pg.console = console  # type: ignore[attr-defined]
    yield pg
    context.close()


def test_sign_in_then_chat(page: Page, server: RunningServer) -> None:
    page.goto(f"{server.url}/login.html")
    page.fill("#token", "not the token")
    page.click("button[type=submit]")
    expect(page.locator("#wrong-token")).to_be_visible()
    assert page.url.endswith("/login.html#wrong-token")

    page.fill("#token", OWNER_TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/")
    cookie = next(c for c in page.context.cookies() if c["name"] == "mallory_owner")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert OWNER_TOKEN not in cookie["value"]

    page.fill("#input", "remember that the spare keys are in the blue jar")
    page.keyboard.press("Enter")
    expect(page.locator("article[data-role='assistant']")).to_have_count(1)
    shot(page, "owner-token-signed-in.png")
    # The CSP response header blocks nothing the pages need.
    assert not [m for m in page.console if "Content Security Policy" in m]  # type: ignore[attr-defined]


def test_opening_the_client_unsigned_lands_on_the_sign_in_page(page: Page,
                                                              server: RunningServer) -> None:
    page.goto(server.url)
    assert page.url == f"{server.url}/login.html"
    expect(page.locator("#token")).to_be_visible()
    page.fill("#token", OWNER_TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/")
    page.goto(server.url)  # signed in: the web client itself
    expect(page.locator("#input")).to_be_visible()
    assert page.url == f"{server.url}/"


def test_without_signing_in_the_api_refuses(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    status = page.evaluate("fetch('/api/conversations').then(r => r.status)")
    assert status == 401

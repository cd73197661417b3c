"""The web client at phone size (390×844) and desktop size (1280×800) in real chromium:
on a phone every view (new chat, search, saved memories, history, status) is reached
through the Menu drawer, the composer's placeholder fits, and nothing scrolls sideways; on
a desktop the sidebar stays where it was. Screenshots go to test-output/ (and with
UPDATE_DOCS=1 to docs/, where the README shows them)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from local.thread_server import RunningServer
from tests.conftest import ROOT
from tests.e2e.browser.conftest import DESKTOP, PHONE, shot
from tests.e2e.browser.test_web import server  # noqa: F401  (test_web's seeded server fixture)

pytestmark = pytest.mark.browser


def screens(page: Page, name: str) -> None:
    shot(page, name)
    if os.environ.get("UPDATE_DOCS") == "1":
        page.screenshot(path=str(ROOT / "docs" / name))


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    yield context.new_page()
    context.close()


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_phone_reaches_every_view_through_the_menu(phone: Page,
                                                     server: RunningServer) -> None:  # noqa: F811
    phone.goto(server.url)
    expect(phone.locator("#open-menu")).to_be_visible()
    expect(phone.locator("#sidebar")).to_be_hidden()
    assert phone.locator("#input").get_attribute("placeholder") == "Message Mallory…"
    phone.fill("#input", "how do I deal with tomato blight?")
    phone.click("#send")
    expect(phone.locator(".message[data-role='assistant'] .sources")).to_be_visible()
    no_sideways_scroll(phone)
    screens(phone, "phone-chat.png")

    phone.click("#open-menu")
    expect(phone.locator("#sidebar")).to_be_visible()
    assert phone.locator("#open-menu").get_attribute("aria-expanded") == "true"
    for view in ("#new-chat", "#open-search", "#open-memories", "#conversations li",
                 "#status-panel"):
        expect(phone.locator(view).first).to_be_visible()
    screens(phone, "phone-menu.png")

    phone.click("#new-chat")  # choosing something closes the drawer
    expect(phone.locator("#sidebar")).to_be_hidden()
    expect(phone.locator("#empty")).to_be_visible()

    phone.click("#open-menu")
    phone.locator("#conversations li .conv-open").first.click()
    expect(phone.locator("#sidebar")).to_be_hidden()
    expect(phone.locator(".message[data-role='user']")).to_have_count(1)

    phone.click("#open-menu")
    phone.keyboard.press("Escape")
    expect(phone.locator("#sidebar")).to_be_hidden()
    phone.click("#mobile-search")
    expect(phone.locator("#search-view")).to_be_visible()
    no_sideways_scroll(phone)
    phone.keyboard.press("Escape")

    fact = "The tomato bed gets copper spray every second Sunday in June"
    saved = httpx.post(f"{server.url}/api/memories", json={"fact": fact}, timeout=30,
                       headers={"origin": server.url})
    assert saved.status_code == 200, saved.text
    phone.click("#open-menu")
    phone.click("#open-memories")
    expect(phone.locator("#sidebar")).to_be_hidden()
    expect(phone.locator("dialog#memories")).to_be_visible()
    expect(phone.locator("#memories-list li").filter(has_text="copper spray")).to_have_count(1)
    no_sideways_scroll(phone)
    screens(phone, "phone-memories.png")


def test_a_desktop_keeps_its_sidebar(browser: Browser, server: RunningServer) -> None:  # noqa: F811
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        page.goto(server.url)
        expect(page.locator("#sidebar")).to_be_visible()
        expect(page.locator("#open-menu")).to_be_hidden()
        placeholder = page.locator("#input").get_attribute("placeholder", timeout=5000)
        assert placeholder is not None \
            and placeholder.startswith("Message Mallory…  (Enter sends")
        screens(page, "desktop-chat.png")
    finally:
        context.close()

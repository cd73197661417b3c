"""Incognito conversations and the memory pause in the web client, in real Chromium
against the real local server: the toggle when a conversation starts, the banner while
it is open (and when it is opened again from the history), nothing of it found by memory
search; Pause memory in the status panel, its banner, and Resume."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from local.thread_server import RunningServer
from tests.e2e.browser.conftest import shot
from tests.e2e.browser.test_web_manage import chat_in_page

pytestmark = pytest.mark.browser
NOT_REMEMBERED = "Mallory does not remember this conversation"
PAUSED = "Memory is paused"
SECRET = "my locker code at the pool is 8126, a lilac padlock"


def test_an_incognito_conversation_says_so_and_is_never_found(page: Page,
                                                              server: RunningServer) -> None:
    page.goto(server.url)
    banner, toggle = page.locator("#incognito-banner"), page.locator("#incognito-toggle")
    expect(toggle).to_be_visible()
    expect(banner).to_be_hidden()
    page.check("#incognito")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(NOT_REMEMBERED)
    chat_in_page(page, SECRET)
    expect(banner).to_contain_text(NOT_REMEMBERED)
    expect(toggle).to_be_hidden()  # chosen when it starts; it stays as it began
    shot(page, "incognito-chat.png")
    item = page.locator("#conversations li[data-incognito='true']")
    expect(item).to_have_count(1)
    expect(item.locator(".badge")).to_have_text("incognito")
    chat_in_page(page, "and the lilac padlock is on locker 12")  # still incognito

    page.click("#new-chat")  # an ordinary conversation: no banner, the toggle is back
    expect(banner).to_be_hidden()
    expect(toggle).to_be_visible()
    expect(page.locator("#incognito")).not_to_be_checked()
    chat_in_page(page, "the wifi password at the cottage is heliotrope")
    expect(banner).to_be_hidden()
    page.locator("#conversations li[data-incognito='true'] .conv-open").click()
    expect(banner).to_be_visible()  # opened again from the history

    page.keyboard.press("Escape")
    page.click("#open-search")
    page.fill("#search-input", "lilac padlock locker")
    page.keyboard.press("Enter")
    expect(page.locator("#search-state")).to_contain_text("Nothing found")
    expect(page.locator("#search-results li")).to_have_count(0)
    found = httpx.get(f"{server.url}/api/search", params={"q": "heliotrope wifi"}).json()
    assert found["hits"], "ordinary memory is found, so the empty search was a real one"


def test_pause_and_resume_from_the_status_panel(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    pause_button, banner = page.locator("#pause-memory"), page.locator("#pause-banner")
    expect(pause_button).to_have_text("Pause memory")
    expect(banner).to_be_hidden()
    pause_button.click()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(PAUSED)
    expect(pause_button).to_have_text("Resume memory")
    expect(page.locator("#status-facts")).to_contain_text("paused")
    assert httpx.get(f"{server.url}/status").json()["memory"]["paused"] is True
    chat_in_page(page, "the plumber Ottavio comes on Thursday")
    shot(page, "memory-paused.png")
    assert httpx.get(f"{server.url}/api/search",
                     params={"q": "plumber Ottavio"}).json()["hits"] == []

    page.click("#resume-memory")  # the banner's own button
    expect(banner).to_be_hidden()
    expect(pause_button).to_have_text("Pause memory")
    assert httpx.get(f"{server.url}/status").json()["memory"]["paused"] is False
    hits = httpx.get(f"{server.url}/api/search", params={"q": "plumber Ottavio"}).json()
    assert hits["hits"], "resuming indexed what was written while paused"

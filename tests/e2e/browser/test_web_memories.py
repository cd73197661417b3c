"""Saved memories in the web client, in real Chromium against the real local server:
"Remember that …" shows the proposed fact for the owner to confirm or edit (nothing is
saved before), the Remember button on any message does the same, and the Saved memories
page lists them, corrects one and deletes one (after a confirmation)."""

from __future__ import annotations

import os

import httpx
import pytest
from playwright.sync_api import Page, expect

from local.thread_server import RunningServer
from tests.conftest import ROOT
from tests.e2e.browser.conftest import shot
from tests.e2e.browser.test_web_manage import chat_in_page

pytestmark = pytest.mark.browser


def screens(page: Page, name: str) -> None:
    """A screenshot in test-output/, and in docs/ with UPDATE_DOCS=1 (the README's)."""
    shot(page, name)
    if os.environ.get("UPDATE_DOCS") == "1":
        page.screenshot(path=str(ROOT / "docs" / name))


def saved(server: RunningServer) -> list[str]:
    return [m["fact"] for m in httpx.get(f"{server.url}/api/memories").json()["memories"]]


def test_remember_that_asks_first_and_the_memory_page_edits_and_deletes(
        page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    approve = page.locator("dialog#remember")
    chat_in_page(page, "Remember that my bike lock code is 4173")
    expect(approve).to_be_visible()
    expect(page.locator("#remember-fact")).to_have_value("My bike lock code is 4173")
    assert saved(server) == []  # nothing before the owner confirms
    screens(page, "remember-approve.png")
    page.fill("#remember-fact", "My bike lock code is 4173 (the red D-lock)")
    page.click("#remember-save")
    expect(approve).to_be_hidden()
    assert saved(server) == ["My bike lock code is 4173 (the red D-lock)"]

    # The Remember button on any message, here Mallory's reply; "Not now" saves nothing.
    reply = page.locator("article[data-role='assistant']").last
    reply.hover()
    reply.locator("button[data-remember-message]").click()
    expect(approve).to_be_visible()
    page.click("#remember-form button[value='cancel']")
    expect(approve).to_be_hidden()
    assert len(saved(server)) == 1
    chat_in_page(page, "the spare shed key is under the blue geranium pot")
    fact = page.locator("article[data-role='user']").last
    fact.hover()
    fact.locator("button[data-remember-message]").click()
    expect(page.locator("#remember-fact")).to_have_value(
        "the spare shed key is under the blue geranium pot")
    page.click("#remember-save")
    expect(approve).to_be_hidden()

    page.click("#open-memories")
    items = page.locator("#memories-list li")
    expect(items).to_have_count(2)
    expect(page.locator("#memories-state")).to_contain_text("2 saved memories")
    screens(page, "saved-memories.png")
    lock_id = items.filter(has_text="4173").get_attribute("data-memory-id")
    lock = page.locator(f"#memories-list li[data-memory-id='{lock_id}']")
    lock.locator("[data-memory-edit]").click()
    lock.locator("textarea").fill("My bike lock code is 4174")
    lock.locator("[data-memory-save]").click()
    expect(page.locator("#memories-list li").filter(has_text="4174")).to_have_count(1)
    assert "My bike lock code is 4174" in saved(server)
    assert not any("4173" in f for f in saved(server))

    page.locator("#memories-list li").filter(has_text="geranium") \
        .locator("[data-memory-delete]").click()
    expect(page.locator("dialog#confirm")).to_contain_text("Delete this saved memory?")
    page.click("#confirm-accept")
    expect(page.locator("#memories-list li")).to_have_count(1)
    assert saved(server) == ["My bike lock code is 4174"]
    found = httpx.get(f"{server.url}/api/search", params={"q": "bike lock code"}).json()
    assert "4174" in found["hits"][0]["snippet"]
    assert page.dialogs == []  # type: ignore[attr-defined]  # never window.confirm

"""Standing and contradictions in the web client, in a real browser (Debian's chromium,
headless, Playwright) against the real local server with the offline responder: the demo
vault synced by the hub, a question whose answer has a superseded note, the footer
showing both notes with their labels, and the search view's badges. Screenshots go to
test-output/ (UPDATE_DOCS=1 also writes docs/contradictions.png)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from hub.runs import run_sync
from local.thread_server import RunningServer
from tests.conftest import ROOT
from tests.e2e.browser.conftest import shot

pytestmark = pytest.mark.browser
SOURCES = "article[data-role='assistant']:not(.pending) [data-sources]"


@pytest.fixture
def demo(empty_server: RunningServer, tmp_path: Path) -> RunningServer:
    summary = run_sync(ROOT / "examples" / "vault", empty_server.url, empty_server.token,
                       "Demo vault", tmp_path / "hub-state")
    assert not summary.rejected
    return empty_server


def ask(page: Page, server: RunningServer, text: str) -> None:
    page.goto(server.url)
    page.fill("#input", text)
    page.keyboard.press("Enter")
    expect(page.locator(SOURCES)).to_be_visible()


def test_the_footer_shows_a_superseded_note_beside_its_replacement(
        page: Page, demo: RunningServer) -> None:
    ask(page, demo, "how do I brew my morning coffee?")
    items = page.locator(f"{SOURCES} li")
    expect(items).to_have_count(2)
    expect(items.nth(0).locator("a[data-source-kind='note']")).to_have_text("Coffee: AeroPress")
    expect(items.nth(0).locator(".standing")).to_have_text("stable — supersedes [2]")
    expect(items.nth(1).locator("a[data-source-kind='note']")).to_have_text(
        "Coffee: French press")
    badge = items.nth(1).locator(".standing")
    expect(badge).to_have_text("deprecated — superseded by [1]")
    expect(badge).to_have_attribute("data-standing", "deprecated")
    answer = page.locator("article[data-role='assistant']:not(.pending) .content")
    expect(answer).to_contain_text("“Coffee: French press” (deprecated — superseded by [1])")
    expect(answer).to_contain_text("These notes disagree or one replaces another")
    shot(page, "contradictions.png")
    if os.environ.get("UPDATE_DOCS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "docs" / "contradictions.png"))


def test_a_draft_and_its_contradiction_are_labelled(page: Page, demo: RunningServer) -> None:
    ask(page, demo, "is the team stand-up still a daily call?")
    badges = page.locator(f"{SOURCES} .standing")
    expect(badges).to_have_text(["stable — contradicts [2]", "draft — contradicts [1]"])
    expect(badges.nth(1)).to_have_attribute("data-standing", "draft")


def test_a_plain_note_carries_no_badge(page: Page, demo: RunningServer) -> None:
    ask(page, demo, "what temperature do I bake the sourdough at?")
    expect(page.locator(f"{SOURCES} li").first).to_be_visible()
    expect(page.locator(f"{SOURCES} .standing")).to_have_count(0)


def test_search_hits_show_a_status_worth_noticing(page: Page, demo: RunningServer) -> None:
    page.goto(demo.url)
    page.locator("#open-search").click()
    page.keyboard.type("french press coffee")
    hit = page.locator(".hit[data-hit-id='Decisions/Coffee - French press.md']")
    expect(hit.locator(".standing")).to_have_text("deprecated")
    expect(page.locator(".hit[data-hit-id='Decisions/Coffee - AeroPress.md'] .standing")
           ).to_have_count(0)

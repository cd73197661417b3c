"""The memory search view in a real browser: shortcuts, search as you type, highlighted
matches, filters, keyboard navigation and every state (empty, nothing to search for,
loading, error)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, Route, expect

from hub.runs import run_sync
from local.thread_server import RunningServer
from tests.conftest import ROOT
from tests.e2e.browser.conftest import shot

pytestmark = pytest.mark.browser
FORM = "[role='search']"
INPUT = "[role='search'] input[type='search']"
GLACIER_CHAT = "the glacier hike was the best day of the trip"


def tell(server: RunningServer, text: str) -> dict:
    response = httpx.post(f"{server.url}/api/chat", json={"content": text}, timeout=30,
                          headers={"origin": server.url})
    assert response.status_code == 200, response.text
    return response.json()


def open_by_slash(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    expect(page.locator("#open-search")).to_be_visible()
    page.locator("body").click(position={"x": 700, "y": 300})
    page.keyboard.press("/")
    expect(page.locator("#search-view")).to_be_visible()
    expect(page.locator(INPUT)).to_be_focused()


def test_search_form_is_on_the_page_from_first_load(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    expect(page.locator(FORM)).to_have_count(1)
    expect(page.locator(INPUT)).to_have_count(1)
    expect(page.locator(INPUT)).to_be_hidden()  # until opened
    for hook in ("#messages", "#conversations"):
        expect(page.locator(hook)).to_have_count(1)


def test_typing_finds_a_note_and_a_message_with_highlights(page: Page,
                                                           server: RunningServer) -> None:
    told = tell(server, GLACIER_CHAT)
    open_by_slash(page, server)
    page.keyboard.type("glacier")  # no Enter: search as you type
    hits = page.locator("#search-results .hit")
    note = hits.filter(has=page.locator("[data-hit-kind='note']"))
    expect(note).to_have_count(1)
    expect(note.locator(".hit-primary")).to_have_text("Iceland trip")
    assert note.locator(".hit-primary").get_attribute("href") == \
        "obsidian://open?vault=Home%20Vault&file=Travel%2FIceland"
    expect(note.locator("mark")).to_have_text(["glacier"])
    expect(note.locator(".hit-snippet")).to_contain_text("We hiked the glacier at Sólheimajökull")
    expect(note.locator("time")).not_to_be_empty()
    # The exchange is one hit, linked to one of its turns (both say "glacier": the owner's
    # message, and Mallory's reply quoting the note).
    message = hits.filter(has=page.locator("[data-hit-kind='message']"))
    expect(message).to_have_count(1)
    turn = message.get_attribute("data-hit-id")
    assert turn in (told["user_message"]["id"], told["assistant_message"]["id"])
    expect(message.locator("mark").first).to_have_text("glacier")
    assert message.locator(".hit-primary").get_attribute("href") == f"/?msg={turn}"
    expect(page.locator("#search-state")).to_have_text(re.compile(r"^\d+ results?$"))
    shot(page, "search-results.png")


def test_filters_limit_hits_to_notes_or_conversations(page: Page, server: RunningServer
                                                      ) -> None:
    tell(server, GLACIER_CHAT)
    open_by_slash(page, server)
    page.keyboard.type("glacier")
    page.keyboard.press("Enter")
    kinds = page.locator("#search-results .hit")
    expect(kinds.filter(has=page.locator("[data-hit-kind='note']"))).to_have_count(1)
    with page.expect_request(lambda r: "source=notes" in r.url):
        page.locator("#search-source").get_by_text("Notes").click()
    expect(kinds).to_have_count(1)
    expect(kinds.first).to_have_attribute("data-hit-kind", "note")
    with page.expect_request(lambda r: "source=messages" in r.url):
        page.locator("#search-source").get_by_text("Conversations").click()
    expect(kinds.first).to_have_attribute("data-hit-kind", "message")
    assert kinds.filter(has=page.locator("[data-hit-kind='note']")).count() == 0
    shot(page, "search-filter-conversations.png")


def test_keyboard_moves_through_hits_and_enter_opens_a_message(page: Page,
                                                               server: RunningServer) -> None:
    told = tell(server, GLACIER_CHAT)
    open_by_slash(page, server)
    page.locator("#search-source").get_by_text("Conversations").click()
    page.locator(INPUT).fill("glacier hike")
    page.keyboard.press("Enter")
    primaries = page.locator("#search-results .hit-primary")
    expect(primaries.first).to_be_visible()
    page.locator(INPUT).press("ArrowDown")
    expect(primaries.nth(0)).to_be_focused()
    if primaries.count() > 1:
        page.keyboard.press("ArrowDown")
        expect(primaries.nth(1)).to_be_focused()
        page.keyboard.press("ArrowUp")
        expect(primaries.nth(0)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(page.locator(INPUT)).to_be_focused()
    # The exchange's hit opens the turn holding more of the query: the owner's message
    # says "glacier hike", the reply only "glacier" (shared/text/turns.py).
    target = told["user_message"]["id"]
    page.locator(f".hit[data-hit-id='{target}'] .hit-primary").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#search-view")).to_be_hidden()
    expect(page.locator(f"[data-message-id='{target}']")).to_have_attribute("aria-current",
                                                                            "true")
    assert page.url.endswith(f"/?msg={target}")


def test_escape_closes_and_returns_focus(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.click("#open-search")
    expect(page.locator(INPUT)).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#search-view")).to_be_hidden()
    expect(page.locator("#open-search")).to_be_focused()
    page.click("#input")
    page.keyboard.type("a/b")  # "/" in a text field is just a character
    expect(page.locator("#search-view")).to_be_hidden()
    page.keyboard.press("Control+k")
    expect(page.locator(INPUT)).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#input")).to_be_focused()
    expect(page.locator("#input")).to_have_value("a/b")
    page.keyboard.press("Meta+k")  # Cmd+K on a Mac
    expect(page.locator(INPUT)).to_be_focused()


def test_nothing_found_and_nothing_to_search_for(page: Page, server: RunningServer) -> None:
    open_by_slash(page, server)
    page.keyboard.type("zebrafishes")
    expect(page.locator("#search-state")).to_have_text("Nothing found for “zebrafishes”.")
    expect(page.locator("#search-results .hit")).to_have_count(0)
    page.locator(INPUT).fill("the and of")
    page.keyboard.press("Enter")
    state = page.locator("#search-state")
    expect(state).to_have_attribute("data-state", "nothing-to-search")
    expect(state).to_contain_text("Nothing to search for")
    shot(page, "search-nothing-to-search.png")


def test_loading_then_error_states(page: Page, server: RunningServer) -> None:
    held: list[Route] = []
    page.route("**/api/search?*", lambda route: held.append(route))
    open_by_slash(page, server)
    page.locator(INPUT).fill("glacier")
    page.keyboard.press("Enter")  # at once, so the debounced search never starts
    expect(page.locator("#search-state")).to_have_text("Searching…")
    expect(page.locator("#search-results")).to_have_attribute("aria-busy", "true")
    for _ in range(100):  # the route handler runs when Playwright next dispatches events
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    held[0].fulfill(status=503, content_type="application/json", body=json.dumps(
        {"error": {"code": "database_error", "message": "the database failed"}}))
    state = page.locator("#search-state")
    expect(state).to_have_text("Search failed: the database failed")
    expect(state).to_have_attribute("data-state", "error")
    shot(page, "search-error.png")


def test_snippets_render_as_text(page: Page, server: RunningServer) -> None:
    open_by_slash(page, server)
    page.keyboard.type("xylophone")
    hit = page.locator("#search-results .hit").first
    expect(hit.locator(".hit-primary")).to_have_text("<img src=x onerror=alert(1)>")
    expect(hit.locator(".hit-snippet")).to_contain_text("<b>bold</b>")
    assert page.locator("#search-results img, #search-results b").count() == 0
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_vault_filter_appears_with_several_vaults(page: Page, server: RunningServer) -> None:
    def with_vaults(route: Route) -> None:
        status = route.fetch().json()
        status["vaults"] = [{"name": "Home Vault", "notes": 2}, {"name": "Work", "notes": 0}]
        route.fulfill(json=status)

    page.route("**/status", with_vaults)
    page.goto(server.url)
    expect(page.locator("#status-vaults li")).to_have_count(2)
    page.keyboard.press("Control+k")
    select = page.locator("#search-vault")
    expect(select).to_be_visible()
    expect(select.locator("option")).to_have_text(["All vaults", "Home Vault", "Work"])
    page.keyboard.type("glacier")
    with page.expect_request(lambda r: "vault=Work" in r.url):
        select.select_option("Work")


def test_vault_filter_stays_hidden_with_one_vault(page: Page, server: RunningServer) -> None:
    open_by_slash(page, server)
    expect(page.locator("#search-vault")).to_be_hidden()


def test_docs_screenshot_of_the_search_view(page: Page, empty_server: RunningServer,
                                            tmp_path: Path) -> None:
    """The demo vault synced by the hub, two chats, a search: test-output/search-view.png,
    and with UPDATE_DOCS=1 also the README's docs/search-view.png."""
    summary = run_sync(ROOT / "examples" / "vault", empty_server.url, empty_server.token,
                       "Demo vault", tmp_path / "hub-state")
    assert not summary.rejected
    tell(empty_server, "Remind me to book the car service at the garage on Via Roma before "
                       "the October deadline")
    tell(empty_server, "what was the car service mileage again?")
    open_by_slash(page, empty_server)
    page.keyboard.type("car service")
    expect(page.locator("#search-state")).to_have_attribute("data-state", "results")
    assert page.locator("#search-results .hit[data-hit-kind='note']").count() >= 1
    assert page.locator("#search-results .hit[data-hit-kind='message']").count() >= 1
    page.locator(INPUT).press("ArrowDown")
    shot(page, "search-view.png")
    if os.environ.get("UPDATE_DOCS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "docs" / "search-view.png"))


def test_hit_fields_render_safely(page: Page, server: RunningServer) -> None:
    """Fields the API is about to add (vault, heading), spans counted in code points (the
    emoji is one code point but two UTF-16 units), and a link the client must refuse."""
    hits = [
        {"kind": "note", "id": "Garden.md", "label": "Garden", "snippet": "🍅 tomato blight",
         "highlights": [[2, 8]], "href": "obsidian://open?vault=Home&file=Garden%23Pests",
         "timestamp": "2026-11-20T10:00:00Z", "score": 1.0, "relevance": 0.9,
         "reasons": ["title matches tomato"], "vault": "Home", "heading": "Pests"},
        {"kind": "message", "id": "m1", "label": "Evil", "snippet": "click me",
         "highlights": [[0, 99], [3, 1]], "href": "javascript:alert(1)",
         "timestamp": "not a date", "score": 0.5, "relevance": 0.4, "reasons": []},
    ]
    page.route("**/api/search?*", lambda route: route.fulfill(
        json={"query": "tomato", "terms": ['"tomato"*'], "hits": hits}))
    open_by_slash(page, server)
    page.keyboard.type("tomato")
    garden = page.locator(".hit[data-hit-id='Garden.md']")
    expect(garden.locator("mark")).to_have_text(["tomato"])
    expect(garden.locator(".hit-where")).to_have_text("Home › Pests")
    expect(garden.locator(".hit-why")).to_have_text("title matches tomato")
    evil = page.locator(".hit[data-hit-id='m1']")
    expect(evil.locator(".hit-primary")).to_have_text("Evil")
    assert evil.locator("a").count() == 0  # javascript: is never a link
    expect(evil.locator("mark")).to_have_text(["click me"])
    expect(evil.locator("time")).to_be_empty()

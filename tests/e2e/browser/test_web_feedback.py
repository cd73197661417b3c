"""👍/👎 on Sources in a real browser (Debian's chromium, headless) against the real local
server: the click posts POST /api/feedback, the button stays pressed across a reload, and
a 👎 keeps that note out of the next answer to the same question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from local.thread_server import RunningServer, run_coroutine, running_server
from tests.conftest import NOW_MS, note
from tests.e2e.browser.conftest import shot
from tests.e2e.conftest import sync_notes

pytestmark = pytest.mark.browser
QUESTION = "how do I prune the tomato plants?"
TOMATOES = "Prune tomato plants: pinch out side shoots weekly."
NEWER, OLDER = "Garden/A/Tomatoes.md", "Garden/B/Tomatoes.md"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "feedback.sqlite", token="e2e-token",
                        serve_static=True) as s:
        sync_notes(s, note(NEWER, TOMATOES, title="Tomato care", mtime=NOW_MS - 1_000),
                   note(OLDER, TOMATOES, title="Tomato care", mtime=NOW_MS - 2_000),
                   note("Kitchen/Bread.md", "Bake the sourdough at 250 C."))
        yield s


def stored(server: RunningServer) -> list[tuple[int, str]]:
    rows = run_coroutine(server.db.prepare(
        "SELECT n, judgment FROM recall_feedback ORDER BY n").all()).results
    return [(r["n"], r["judgment"]) for r in rows]


def source_item(page: Page, path: str):
    href = "obsidian://open?vault=Home%20Vault&file=" + path[:-3].replace("/", "%2F")
    answer = page.locator("article[data-role='assistant']:not(.pending)").last
    return answer.locator("[data-sources] li").filter(has=page.locator(f"a[href='{href}']"))


def ask(page: Page, text: str) -> None:
    page.fill("#input", text)
    page.keyboard.press("Enter")
    expect(page.locator("article[data-role='assistant']:not(.pending)").last
           .locator("[data-sources]")).to_be_visible()


def test_thumbs_record_feedback_and_thumbs_down_keeps_a_note_out(
        page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    ask(page, QUESTION)
    older, newer = source_item(page, OLDER), source_item(page, NEWER)
    up = older.locator("button[data-feedback='relevant']")
    down = newer.locator("button[data-feedback='irrelevant']")
    expect(up).to_have_attribute("aria-pressed", "false")
    expect(up).to_have_attribute("aria-label", f"Source {up.get_attribute('data-source-n')} "
                                 "was useful")
    with page.expect_response("**/api/feedback") as response:
        up.click()
    assert response.value.status == 200
    expect(up).to_have_attribute("aria-pressed", "true")
    with page.expect_response("**/api/feedback"):
        down.click()
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(newer.locator("button[data-feedback='relevant']")).to_have_attribute(
        "aria-pressed", "false")
    n_older, n_newer = int(up.get_attribute("data-source-n")), int(
        down.get_attribute("data-source-n"))
    assert stored(server) == sorted([(n_older, "relevant"), (n_newer, "irrelevant")])
    shot(page, "sources-feedback.png")

    page.reload()  # the conversation is gone from the view: open it from the list
    page.locator("#conversations li").first.click()
    expect(source_item(page, OLDER).locator("button[data-feedback='relevant']")
           ).to_have_attribute("aria-pressed", "true")

    # Asked again in the same conversation: a new chat would recall the first exchange
    # itself (the same words), which outranks both notes.
    ask(page, QUESTION)
    notes = page.locator("article[data-role='assistant']:not(.pending)").last.locator(
        "[data-sources] a[data-source-kind='note']")
    expect(notes).to_have_count(1)
    expect(source_item(page, OLDER)).to_have_count(1)
    expect(source_item(page, NEWER)).to_have_count(0)


def test_a_refused_judgment_shows_the_error(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    ask(page, QUESTION)
    page.route("**/api/feedback", lambda route: route.fulfill(
        status=409, content_type="application/json",
        body='{"error": {"code": "source_gone", "message": "source [1] is no longer in '
             'the vault"}}'))
    button = page.locator("button[data-feedback='relevant']").first
    button.click()
    expect(page.locator("#error")).to_contain_text("no longer in the vault")
    expect(button).to_have_attribute("aria-pressed", "false")
    assert stored(server) == []

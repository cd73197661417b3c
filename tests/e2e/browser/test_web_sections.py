"""The Sources footer names the section a note was recalled from, in a real browser:
the long note of tests/e2e/long_note.py synced over HTTP as the hub parses it, a question typed
in the
chat, the footer's link reading "Note › Heading" and opening that heading in Obsidian.

Screenshot: test-output/sources-heading.png, and with UPDATE_DOCS=1 also the README's
docs/sources-heading.png."""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from hub.notes import parse_note
from local.thread_server import RunningServer
from shared.api.sync_payload import NoteUpsert
from tests.conftest import NOW_MS, ROOT
from tests.e2e import long_note
from tests.e2e.browser.conftest import shot
from tests.e2e.conftest import sync_notes

pytestmark = pytest.mark.browser


def test_the_sources_footer_shows_the_section_heading(page: Page,
                                                      server: RunningServer) -> None:
    parsed = parse_note(long_note.PATH, long_note.body().encode(), NOW_MS)
    assert isinstance(parsed, NoteUpsert) and len(parsed.sections) > 40
    sync_notes(server, parsed, batch_id="long-note")
    page.goto(server.url)
    page.fill("#input", long_note.QUESTION)
    page.keyboard.press("Enter")
    answer = page.locator("article[data-role='assistant']").last
    footer = answer.locator("[data-sources]")
    expect(footer).to_be_visible()
    link = footer.locator("a[data-source-kind='note']").first
    expect(link).to_have_text(f"{long_note.TITLE} › {long_note.FACT_HEADING}")
    assert link.get_attribute("href") == (
        "obsidian://open?vault=Home%20Vault&file=Home%2FHouse%20manual%23"
        + quote(long_note.FACT_HEADING, safe=""))
    expect(footer).to_contain_text("1.3 bar")  # the snippet is that section's
    shot(page, "sources-heading.png")
    if os.environ.get("UPDATE_DOCS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        answer.screenshot(path=str(ROOT / "docs" / "sources-heading.png"))

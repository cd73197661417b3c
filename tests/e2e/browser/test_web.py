"""The web client in a real browser: Debian's chromium, headless, driven by Playwright,
against the real local server. Screenshots go to test-output/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from local.thread_server import RunningServer, run_coroutine, running_server
from shared.api.wire import Source
from tests.conftest import NOW_MS, note
from tests.e2e.browser.conftest import record_dialogs, shot
from worker.store import chats

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "web.sqlite", token="web-token", serve_static=True) as s:
        upserts = [
            note("Garden/Tomatoes.md", "Tomato blight shows as brown spots; remove affected "
                 "leaves and water at the base in the morning.", title="Tomato care"),
            note("Inbox/Evil.md", "A note about xylophone tuning, with <b>bold</b> markup.",
                 title="<img src=x onerror=alert(1)>"),
        ]
        hub = {"authorization": f"Bearer {s.token}"}
        vault = {"vault_id": "0b0e0a0d-5e5e-4000-8000-000000000001", "vault": "Home Vault"}
        contact = httpx.post(f"{s.url}/vault/heartbeat", json=vault, headers=hub)
        assert contact.status_code == 200
        body = {"batch_id": "web", **vault, "seq": contact.json()["vault"]["seq"],
                "upserts": [u.model_dump() for u in upserts], "deletes": []}
        response = httpx.post(f"{s.url}/vault/sync", json=body, headers=hub)
        assert response.status_code == 200
        yield s


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    pg = context.new_page()
    record_dialogs(pg)
    yield pg
    context.close()


def seed_long_conversation(server: RunningServer, total: int = 320) -> list[str]:
    async def seed() -> list[str]:
        await chats.create_conversation(server.db, "A long conversation", NOW_MS, "long")
        ids = []
        for i in range(total):
            m = await chats.append_message(
                server.db, "long", "user" if i % 2 == 0 else "assistant",
                f"Message {i}: notes about day {i} of the expedition.", NOW_MS + i * 1000)
            ids.append(m.id)
        return ids

    return run_coroutine(seed())


def test_chat_about_a_note_shows_the_sources_footer(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", "how do I deal with tomato blight?")
    page.keyboard.press("Enter")
    answer = page.locator("article[data-role='assistant']").last
    expect(answer.locator("[data-sources]")).to_be_visible()
    link = answer.locator("[data-sources] a[data-source-kind='note']").first
    expect(link).to_have_text("Tomato care")
    assert link.get_attribute("href") == \
        "obsidian://open?vault=Home%20Vault&file=Garden%2FTomatoes"
    cite = answer.locator("a.cite").first
    expect(cite).to_have_text("[1]")
    cite_href = cite.get_attribute("href")
    assert cite_href is not None and cite_href.endswith("-1")
    expect(page.locator("#input")).to_have_value("")
    shot(page, "chat-with-sources.png")


def test_less_certain_sources_are_listed_apart(page: Page, server: RunningServer) -> None:
    """A stored answer with a confident and a less certain source: the footer lists the
    second under its own heading, after the first (README, "Recall that knows when it
    knows")."""
    href = "obsidian://open?vault=Home%20Vault&file=Garden%2FTomatoes"

    async def seed() -> None:
        await chats.create_conversation(server.db, "Tomatoes", NOW_MS, "conf")
        await chats.append_message(server.db, "conf", "user", "tomato blight?", NOW_MS)
        await chats.append_message(
            server.db, "conf", "assistant", "Remove the leaves [1]; maybe water less [2].",
            NOW_MS + 1, sources=[
                Source(n=1, kind="note", id="Garden/Tomatoes.md", label="Tomato care",
                       snippet="remove affected leaves", href=href, confidence=0.93),
                Source(n=2, kind="note", id="Inbox/Evil.md", label="Watering",
                       snippet="water at the base", href=href, confidence=0.55,
                       less_certain=True)])

    run_coroutine(seed())
    page.goto(server.url)
    page.get_by_text("Tomatoes").first.click()
    footer = page.locator("article[data-role='assistant'] [data-sources]").last
    expect(footer.locator("h4")).to_have_text(["Sources", "Less certain"])
    lists = footer.locator("ol")
    expect(lists.nth(0).locator("a")).to_have_text(["Tomato care"])
    expect(lists.nth(1).locator("a")).to_have_text(["Watering"])
    shot(page, "sources-less-certain.png")


def test_shift_enter_adds_a_line_and_does_not_send(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", "first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    expect(page.locator("#input")).to_have_value("first line\nsecond line")
    expect(page.locator("article[data-message-id]")).to_have_count(0)


def test_deep_link_pages_back_300_messages(page: Page, server: RunningServer) -> None:
    ids = seed_long_conversation(server)
    target = ids[10]  # 309 messages newer than it
    page.goto(f"{server.url}/?msg={target}")
    node = page.locator(f"[data-message-id='{target}']")
    expect(node).to_have_attribute("aria-current", "true", timeout=15_000)
    expect(node).to_be_in_viewport()
    expect(node).to_contain_text("Message 10:")
    shot(page, "deep-linked-message.png")


def test_message_source_link_jumps_to_the_message(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", "I stored the spare keys in the blue ceramic jar")
    page.keyboard.press("Enter")
    # Not the "thinking…" placeholder (also an assistant article): the stored answer.
    expect(page.locator("article[data-role='assistant']:not(.pending)")).to_have_count(1)
    page.click("#new-chat")
    page.fill("#input", "where are the spare keys, the ceramic jar?")
    page.keyboard.press("Enter")
    link = page.locator("[data-sources] a[data-source-kind='message']").first
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href is not None and href.startswith("/?msg=")
    link.click()
    target = href.split("=", 1)[1]
    expect(page.locator(f"[data-message-id='{target}']")).to_have_attribute("aria-current",
                                                                             "true")
    assert page.url.endswith(href)


def test_unknown_message_id_shows_a_notice(page: Page, server: RunningServer) -> None:
    page.goto(f"{server.url}/?msg=does-not-exist")
    expect(page.locator("#notice")).to_contain_text("could not be found")
    assert page.url.endswith("/?msg=does-not-exist")


def test_invalid_msg_parameter_is_refused(page: Page, server: RunningServer) -> None:
    page.goto(f"{server.url}/?msg=%3Cscript%3E")
    expect(page.locator("#notice")).to_contain_text("does not point at a message")


def test_stored_text_renders_as_text_never_html(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", "what about xylophone tuning?")
    page.keyboard.press("Enter")
    link = page.locator("[data-sources] a[data-source-kind='note']").first
    expect(link).to_have_text("<img src=x onerror=alert(1)>")
    assert page.locator("article img").count() == 0
    assert page.locator("article b").count() == 0
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_failed_send_keeps_the_typed_text(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.route("**/api/chat", lambda route: route.fulfill(
        status=502, content_type="application/json",
        body='{"error": {"code": "model_unavailable", "message": "the model is down"}}'))
    page.fill("#input", "please remember this")
    page.click("#send")
    expect(page.locator("#error")).to_contain_text("the model is down")
    expect(page.locator("#input")).to_have_value("please remember this")
    expect(page.locator("#send")).to_be_enabled()

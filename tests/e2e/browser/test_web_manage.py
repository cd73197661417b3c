"""Forgetting, renaming, paging the conversation list, the status panel and the message
context, in a real browser against the real local server."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from local.thread_server import RunningServer, run_coroutine
from tests.conftest import NOW_MS, note
from tests.e2e.browser.conftest import LOCALE, TIMEZONE, shot
from tests.e2e.conftest import sync_notes
from worker.store import chats

pytestmark = pytest.mark.browser
DELETE_DIALOG = "dialog#confirm"
WITHDRAWN_TEXT = ("Withdrawn: this answer drew on something you have since deleted or "
                  "changed, so its text and sources were removed.")


def chat_in_page(page: Page, text: str) -> None:
    count = page.locator("article[data-role='assistant']").count()
    page.fill("#input", text)
    page.keyboard.press("Enter")
    expect(page.locator("article[data-role='assistant']")).to_have_count(count + 1)


def message_id_of(article: Locator) -> str:
    message_id = article.get_attribute("data-message-id")
    assert message_id is not None, "a message's article names its id"
    return message_id


def delete_button(page: Page, message_id: str) -> Locator:
    article = page.locator(f"article[data-message-id='{message_id}']")
    article.hover()
    return article.locator("button[data-delete-message]")


def test_forgetting_a_message_asks_first_then_it_is_gone(page: Page,
                                                         server: RunningServer) -> None:
    page.goto(server.url)
    chat_in_page(page, "my locker code at the pool is 4417, a turquoise padlock")
    fact = message_id_of(page.locator("article[data-role='user']").last)
    delete_button(page, fact).click()
    dialog = page.locator(DELETE_DIALOG)
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Delete this message?")
    expect(page.locator("#confirm-cancel")).to_be_focused()
    shot(page, "forget-confirm.png")
    page.click("#confirm-cancel")  # cancelling keeps it
    expect(dialog).to_be_hidden()
    expect(page.locator(f"[data-message-id='{fact}']")).to_have_count(1)
    assert httpx.get(f"{server.url}/api/messages/{fact}").status_code == 200

    reply = page.locator("article[data-role='assistant']").last
    reply_id = reply.get_attribute("data-message-id")
    expect(dialog).to_be_hidden()
    delete_button(page, fact).click()
    expect(dialog).to_contain_text("her reply to it")  # says what goes with it
    page.click("#confirm-accept")
    expect(page.locator(f"[data-message-id='{fact}']")).to_have_count(0)
    # Its reply was written with it as the prompt: withdrawn in place, its text gone.
    expect(reply.locator("[data-withdrawn]")).to_have_text(WITHDRAWN_TEXT)
    shot(page, "forget-withdrawn-reply.png")
    shown = httpx.get(f"{server.url}/api/messages/{reply_id}").json()["message"]
    assert (shown["withdrawn"], shown["content"]) == (True, "")
    assert httpx.get(f"{server.url}/api/messages/{fact}").status_code == 404
    hits = httpx.get(f"{server.url}/api/search", params={"q": "turquoise padlock"}).json()
    assert fact not in [h["id"] for h in hits["hits"]]
    assert page.dialogs == []  # type: ignore[attr-defined]  # never window.confirm

    page.goto(f"{server.url}/?msg={fact}")
    notice = page.locator("#notice")
    expect(notice).to_contain_text("You deleted this message")
    expect(notice).not_to_contain_text("4417")
    shot(page, "deep-link-deleted.png")


def test_deep_link_to_a_deleted_message_in_a_fresh_tab(browser: Browser,
                                                       server: RunningServer) -> None:
    response = httpx.post(f"{server.url}/api/chat", json={"content": "remember the okapi"},
                          headers={"origin": server.url})
    fact = response.json()["user_message"]["id"]
    assert httpx.delete(f"{server.url}/api/messages/{fact}",
                        headers={"origin": server.url}).status_code == 200
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server.url}/?msg={fact}")
    expect(page.locator("#notice")).to_contain_text(
        "That message could not be found; it may have been deleted.")
    context.close()


def test_forgetting_a_cited_message_removes_the_citation_on_screen(
        page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    chat_in_page(page, "I stored the spare keys in the blue ceramic jar")
    fact = message_id_of(page.locator("article[data-role='user']").last)
    page.click("#new-chat")
    chat_in_page(page, "where are the spare keys, the ceramic jar?")
    answer = page.locator("article[data-role='assistant']").last
    expect(answer.locator(f"[data-sources] a[href='/?msg={fact}']")).to_have_count(1)
    page.goto(f"{server.url}/?msg={fact}")
    delete_button(page, fact).click()
    page.click("#confirm-accept")
    expect(page.locator(f"[data-message-id='{fact}']")).to_have_count(0)
    page.locator("#conversations button[data-conversation-id]").first.click()
    answer = page.locator("article[data-role='assistant']").last
    # It repeated the forgotten message: withdrawn, with its text and Sources gone.
    expect(answer.locator("[data-withdrawn]")).to_have_text(WITHDRAWN_TEXT)
    expect(answer).not_to_contain_text("ceramic jar")
    expect(answer.locator("[data-sources]")).to_have_count(0)


def test_forgetting_a_conversation(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    chat_in_page(page, "the marmalade needs seville oranges")
    item = page.locator("#conversations li").first
    conversation = item.get_attribute("data-conversation")
    item.hover()
    item.locator("button[data-action='delete']").click()
    dialog = page.locator(DELETE_DIALOG)
    expect(dialog).to_contain_text("Delete this conversation?")
    expect(dialog).to_contain_text("2 messages")
    page.click("#confirm-accept")
    expect(page.locator("#conversations li")).to_have_count(0)
    expect(page.locator("article[data-message-id]")).to_have_count(0)
    assert httpx.get(f"{server.url}/api/conversations/{conversation}/messages"
                     ).status_code == 404
    expect(page.locator("#status-facts")).to_contain_text("Messages0")
    assert page.dialogs == []  # type: ignore[attr-defined]


def seed_conversations(server: RunningServer, total: int) -> None:
    async def seed() -> None:
        for i in range(total):
            await chats.append_message(server.db, f"c{i:03d}", "user", f"Topic number {i}",
                                       NOW_MS - (total - i) * 3_600_000,
                                       new_conversation=True)

    run_coroutine(seed())


def test_conversation_list_pages_in_as_it_scrolls(page: Page, server: RunningServer) -> None:
    seed_conversations(server, 120)
    page.goto(server.url)
    items = page.locator("#conversations li")
    expect(items).to_have_count(50)
    expect(items.first).to_contain_text("Topic number 119")
    expect(items.first.locator("time")).to_have_attribute("datetime", "2026-05-28T19:26:40Z")
    expect(items.first.locator("time")).not_to_be_empty()
    scroller = page.locator("#conversation-scroll")
    scroller.evaluate("node => node.scrollTo(0, node.scrollHeight)")
    expect(items).to_have_count(100)
    scroller.evaluate("node => node.scrollTo(0, node.scrollHeight)")
    expect(items).to_have_count(120)
    expect(items.last).to_contain_text("Topic number 0")
    expect(page.locator("#conversations-more")).to_be_hidden()
    ids = [li.get_attribute("data-conversation") for li in items.all()]
    assert ids == [f"c{i:03d}" for i in range(119, -1, -1)]
    shot(page, "conversations-paged.png")


def test_rename_inline(page: Page, server: RunningServer) -> None:
    seed_conversations(server, 3)
    page.goto(server.url)
    item = page.locator("#conversations li[data-conversation='c001']")
    item.hover()
    item.locator("button[data-action='rename']").click()
    field = item.locator("input.conv-rename-input")
    expect(field).to_be_focused()
    expect(field).to_have_value("Topic number 1")
    field.fill("   ")
    field.press("Enter")
    expect(page.locator("#status")).to_contain_text("1 to 200 characters")
    expect(field).to_have_attribute("aria-invalid", "true")
    field.fill("Escape keeps the old title")
    field.press("Escape")
    expect(item.locator(".conv-title")).to_have_text("Topic number 1")
    item.locator(".conv-open").dblclick()  # also opens it: twice, yet rendered once
    item.locator("input.conv-rename-input").fill("  Swimming lessons  ")
    expect(page.locator("article[data-message-id]")).to_have_count(1)
    shot(page, "rename.png")
    item.locator("input.conv-rename-input").press("Enter")
    expect(item.locator(".conv-title")).to_have_text("Swimming lessons")
    page.reload()
    expect(page.locator("#conversations li[data-conversation='c001'] .conv-title")
           ).to_have_text("Swimming lessons")
    listed = httpx.get(f"{server.url}/api/conversations").json()["conversations"]
    assert [c["id"] for c in listed] == ["c002", "c001", "c000"]  # renaming is not activity


def test_status_panel_warns_when_never_synced(page: Page, empty_server: RunningServer) -> None:
    page.goto(empty_server.url)
    warning = page.locator("#stale-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("never been synced")
    expect(page.locator("#status-facts")).to_contain_text("Last syncnever")


def test_status_panel_warns_when_sync_is_stale(page: Page, server: RunningServer) -> None:
    three_hours_ago = httpx.get(f"{server.url}/status").json()
    run_coroutine(server.db.batch([  # the hub's last contact and sync, 3 hours back
        server.db.prepare("UPDATE vault_sync_batches SET applied_at = applied_at - 10800000"),
        server.db.prepare("UPDATE vaults SET last_sync_at = last_sync_at - 10800000, "
                          "last_contact_at = last_contact_at - 10800000")]))
    assert three_hours_ago["stale"] is False
    page.goto(server.url)
    warning = page.locator("#stale-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("the last vault sync was 3 h ago")
    expect(warning).to_contain_text("every 15 min")
    facts = page.locator("#status-facts")
    expect(facts).to_contain_text("Notes2")
    expect(facts).to_contain_text("Last sync3 h ago")
    shot(page, "status-stale.png")


def test_status_panel_shows_vaults_and_retrieval_mode(page: Page,
                                                      server: RunningServer) -> None:
    """Everything from the real /status: a second vault synced by a real hub request, made
    stale in the database, and the retrieval mode the server runs."""
    sync_notes(server, note("Plans/Q3.md", "Quarterly plan: ship the kiln controller."),
               vault="Work Vault", batch_id="e2e-work")
    run_coroutine(server.db.prepare(
        "UPDATE vaults SET last_contact_at = last_contact_at - 10800000 WHERE name = ?"
    ).bind("Work Vault").run())
    assert httpx.get(f"{server.url}/status").json()["retrieval"]["mode"] == "lexical"
    page.goto(server.url)
    expect(page.locator("#status-facts")).to_contain_text("Retrievallexical")
    rows = page.locator("#status-vaults li")
    expect(rows).to_have_count(2)
    home, work = rows.filter(has_text="Home Vault"), rows.filter(has_text="Work Vault")
    expect(home).to_contain_text("2 notes")
    expect(home.locator(".badge")).to_have_count(0)
    expect(work).to_contain_text("1 note ·")
    expect(work.locator(".badge")).to_have_text("stale")
    expect(page.locator("#stale-warning")).to_be_visible()
    shot(page, "status-vaults.png")


RENDER = """async (status) => {
  const { StatusPanel } = await import("/status.js");
  const [facts, warning, vaults] = [document.createElement("dl"),
    document.createElement("p"), document.createElement("ul")];
  new StatusPanel({ facts, warning, vaults }).render(status);
  const dds = [...facts.querySelectorAll("dt")].map((dt) => [dt.textContent,
    dt.nextElementSibling.textContent, dt.nextElementSibling.title]);
  return Object.fromEntries(dds.map(([term, value, title]) => [term, [value, title]]));
}"""


@pytest.mark.parametrize(("retrieval", "shown"), [
    ("absent", None),
    (None, None),
    ({"mode": 3}, None),
    ({"mode": ""}, None),
    ({"mode": "hybrid", "configured": "hybrid", "embedder": {"model": "bge-small"},
      "reranker": None, "vectors": {"notes": 12}, "notes": []}, ["hybrid", ""]),
    ({"mode": "lexical", "configured": "hybrid", "embedder": None, "reranker": None,
      "vectors": None, "notes": ["no embedder is configured: lexical"]},
     ["lexical", "no embedder is configured: lexical"]),
    ({"mode": "adaptive", "indexing": {"behind": True, "pending": 1472, "running": True,
                                       "rate_per_s": 5.0, "eta_s": 294},
      "notes": ["indexing is behind: 1472 of 4000 units have no vector yet"]},
     ["adaptive · 1,472 to index", "indexing is behind: 1472 of 4000 units have no vector yet"]),
    ({"mode": "adaptive", "indexing": {"behind": False, "pending": 0}, "notes": []},
     ["adaptive", ""]),
])
def test_the_retrieval_row_renders_from_status_retrieval_mode(
        page: Page, server: RunningServer, retrieval: object, shown: list | None) -> None:
    """The panel's rendering in the browser, on /status as the real server answers it with
    `retrieval` as an older Worker (absent) or a newer one (with more fields) sends it."""
    status = httpx.get(f"{server.url}/status").json()
    del status["retrieval"]
    if retrieval != "absent":
        status["retrieval"] = retrieval
    page.goto(server.url)
    facts = page.evaluate(RENDER, status)
    assert facts["Notes"][0] == "2"
    assert facts.get("Retrieval") == shown


def test_every_message_carries_the_client_context(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", "hello there, what do you know about glaciers?")
    with page.expect_request("**/api/chat") as request:
        page.keyboard.press("Enter")
    posted = request.value.post_data_json
    assert posted is not None
    sent = posted["context"]
    version = page.evaluate("import('/app.js').then((m) => m.APP_VERSION)")
    assert sent == {"client": "mallory-web", "version": version, "timezone": TIMEZONE,
                    "locale": LOCALE}
    expect(page.locator("article[data-role='assistant']")).to_have_count(1)
    row = run_coroutine(server.db.prepare(
        "SELECT context FROM messages WHERE role = 'user'").first())
    assert row is not None
    assert json.loads(row["context"]) == sent


def test_a_reply_that_arrives_after_the_owner_moved_on_stays_in_its_conversation(
        page: Page, server: RunningServer) -> None:
    held = []
    page.route("**/api/chat", lambda route: held.append(route))
    page.goto(server.url)
    page.fill("#input", "the heron came back to the pond")
    page.keyboard.press("Enter")
    expect(page.locator("article.pending")).to_have_count(1)
    for _ in range(100):  # the route handler runs when Playwright next dispatches events
        if held:
            break
        page.wait_for_timeout(50)
    page.click("#new-chat")
    page.fill("#input", "a new thought")
    held[0].continue_()
    expect(page.locator("#conversations li")).to_have_count(1)
    expect(page.locator("#conversations li .conv-title")).to_have_text(
        "the heron came back to the pond")
    expect(page.locator("article[data-message-id]")).to_have_count(0)
    expect(page.locator("#input")).to_have_value("a new thought")
    page.locator("#conversations button[data-conversation-id]").click()
    expect(page.locator("article[data-message-id]")).to_have_count(2)

"""The retrieval inspector's panel in real chromium, at desktop (1280×800) and phone
(390×844) sizes: "why these memories" on an answer and on the search view, every
candidate with its scores and the gate's reason, and "why is this missing" for a note.
Screenshots go to test-output/ (and with UPDATE_DOCS=1 to docs/, where the README shows
them)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from local.thread_server import RunningServer, running_server
from shared.rank.confidence_models import LEXICAL
from tests.conftest import ROOT, note
from tests.e2e.browser.conftest import DESKTOP, PHONE, TIMEZONE, shot
from tests.e2e.conftest import sync_notes

pytestmark = pytest.mark.browser
QUESTION = "how do I treat tomato blight on the leaves?"


def screens(page: Page, name: str) -> None:
    shot(page, name)
    if os.environ.get("UPDATE_DOCS") == "1":
        page.screenshot(path=str(ROOT / "docs" / name))


@pytest.fixture
def server(tmp_path) -> Iterator[RunningServer]:  # type: ignore[no-untyped-def]
    with running_server(tmp_path / "inspect.sqlite", token="inspect-token",
                        serve_static=True) as s:
        sync_notes(s,
                   note("Garden/Tomatoes.md", "Tomato blight shows as brown spots on the "
                        "leaves; remove affected leaves and water at the base.",
                        title="Tomato care"),
                   note("Garden/Basil.md", "Basil likes the sun; pinch the tips, and keep "
                        "it away from tomato plants' wet leaves.", title="Basil"),
                   note("Garden/Compost.md", "Compost: turn the heap every two weeks.",
                        title="Compost"),
                   # More of the garden, so that "tomato" and "leaves" are rare words.
                   *(note(f"Garden/{name}.md", text, title=name) for name, text in (
                       ("Roses", "Prune the roses in late February, above an outward bud."),
                       ("Lawn", "Mow the lawn high in summer; feed it in April."),
                       ("Beans", "Runner beans climb the canes by the fence."),
                       ("Shed", "The spare key of the shed is under the blue pot."),
                       ("Apples", "Thin the apples in June to one per cluster."))))
        yield s


def _page(browser: Browser, viewport: ViewportSize, **kwargs: Any
          ) -> Page:
    context = browser.new_context(viewport=viewport, timezone_id=TIMEZONE, **kwargs)
    return context.new_page()


def _ask(page: Page, server: RunningServer) -> None:
    page.goto(server.url)
    page.fill("#input", QUESTION)
    page.click("#send")
    expect(page.locator(".message[data-role='assistant'] .sources")).to_be_visible()


def _why_these(page: Page) -> None:
    page.locator(".message[data-role='assistant'] [data-inspect-answer]").click()
    dialog = page.locator("#inspector")
    expect(dialog).to_be_visible()
    expect(page.locator("#inspector-title")).to_have_text("Why these memories")
    tomato = dialog.locator(".inspect-candidate[data-inspect-id='Garden/Tomatoes.md']")
    expect(tomato).to_have_attribute("data-hit", "true")
    expect(tomato.locator(".inspect-badge.injected")).to_have_text("given to the answer")
    expect(tomato.locator(".inspect-badge.cited")).to_have_text("cited [1]")
    expect(tomato.locator(".inspect-figures")).to_contain_text("relevance 0.")
    expect(tomato.locator(".inspect-figures")).to_contain_text("confidence 0.")
    expect(tomato.locator(".inspect-decision")).to_contain_text(
        "✓ confident: its estimated relevance 0.")
    expect(tomato.locator(".inspect-decision")).to_contain_text(
        f"reaches the threshold {LEXICAL.threshold:.2f} (lexical model)")
    # The basil note matched "tomato" and "leaves" too, and the gate says why it stayed out.
    basil = dialog.locator(".inspect-candidate[data-inspect-id='Garden/Basil.md']")
    expect(basil).to_have_attribute("data-hit", "false")
    expect(basil.locator(".inspect-decision")).to_contain_text("✗ ")
    expect(page.locator("#inspector-replay")).to_contain_text("re-run")


def _why_missing(page: Page) -> None:
    page.fill("#missing-form input[name='path']", "Garden/Compost.md")
    page.click("#missing-form button[type='submit']")
    reason = page.locator("#missing-result .missing-reason")
    expect(reason).to_have_attribute("data-rule", "no_query_term")
    expect(reason).to_contain_text("Compost: missing — no_query_term: not retrieved at all: "
                                   "no query term in it")


def test_why_these_memories_and_why_missing_on_a_desktop(browser: Browser,
                                                          server: RunningServer) -> None:
    page = _page(browser, DESKTOP)
    _ask(page, server)
    _why_these(page)
    _why_missing(page)
    screens(page, "inspect-answer.png")
    page.keyboard.press("Escape")
    expect(page.locator("#inspector")).to_be_hidden()
    expect(page.locator("[data-inspect-answer]")).to_be_focused()

    page.click("#open-search")
    page.fill("#search-input", "tomato leaves")
    page.keyboard.press("Enter")
    expect(page.locator("#search-results .hit")).not_to_have_count(0)
    page.click("#search-inspect")
    expect(page.locator("#inspector-title")).to_have_text("Why these results")
    expect(page.locator("#inspector-summary")).to_contain_text("explicit policy")
    hits = page.locator("#inspector-candidates .inspect-candidate[data-hit='true']")
    expect(hits).to_have_count(page.locator("#search-results .hit").count())
    screens(page, "inspect-search.png")
    page.context.close()


def test_the_inspector_fits_a_phone(browser: Browser, server: RunningServer
                                    ) -> None:
    page = _page(browser, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    _ask(page, server)
    _why_these(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#inspector").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    screens(page, "phone-inspect.png")
    _why_missing(page)
    page.context.close()

"""CSRF in a real browser: a page on another origin (a second local port) tries a form
post and a `no-cors` fetch to the real local server's /api/chat. Both are refused and
nothing is stored; the same request from Mallory's own page goes through."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from local.thread_server import RunningServer, run_coroutine, running_server

pytestmark = pytest.mark.browser

ATTACK_PAGE = """<!doctype html>
<html><head><title>cute cats</title></head><body>
<form id="plain" method="POST" action="{target}/api/chat" enctype="text/plain">
  <input name='{{"content": "planted by a text/plain form", "x": "' value='"}}'>
</form>
<form id="urlencoded" method="POST" action="{target}/api/chat">
  <input name="content" value="planted by an urlencoded form">
</form>
<script>
  window.fetchDone = fetch("{target}/api/chat", {{
    method: "POST", mode: "no-cors", headers: {{"content-type": "text/plain"}},
    body: JSON.stringify({{content: "planted by a no-cors fetch"}})
  }}).then(() => "sent", (e) => "failed: " + e);
</script>
</body></html>"""


def attacker_site(target: str) -> tuple[ThreadingHTTPServer, str]:
    page = ATTACK_PAGE.format(target=target).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "csrf.sqlite", serve_static=True) as s:
        yield s


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    yield context.new_page()
    context.close()


def stored_messages(server: RunningServer) -> list[str]:
    async def read() -> list[str]:
        rows = (await server.db.prepare("SELECT content FROM messages").all()).results
        return [r["content"] for r in rows]

    return run_coroutine(read())


def test_another_origin_cannot_post_chats(page: Page, server: RunningServer) -> None:
    httpd, attacker = attacker_site(server.url)
    assert attacker.rsplit(":", 1)[1] != server.url.rsplit(":", 1)[1]
    statuses: dict[str, int] = {}

    def record(response) -> None:  # type: ignore[no-untyped-def]
        if response.url.endswith("/api/chat"):
            kind = response.request.resource_type
            statuses[f"{kind}:{len(statuses)}"] = response.status

    page.on("response", record)
    try:
        page.goto(attacker)
        assert page.evaluate("window.fetchDone") == "sent"  # the browser did send it
        for form in ("plain", "urlencoded"):
            with page.expect_navigation():
                page.evaluate(f"document.getElementById('{form}').submit()")
            assert "planted" not in page.content()
            page.goto(attacker)
            page.evaluate("window.fetchDone")
    finally:
        httpd.shutdown()
        httpd.server_close()
    # Refused on the Origin check (403) before anything else is looked at.
    assert set(statuses.values()) == {403}, statuses
    assert sum(1 for k in statuses if k.startswith("document")) == 2  # both forms
    assert sum(1 for k in statuses if k.startswith("fetch")) >= 1     # the no-cors fetch
    assert stored_messages(server) == []

    # The same chat from Mallory's own page is accepted: the refusals above are the
    # origin check at work, not a broken endpoint.
    page.goto(server.url)
    status = page.evaluate("""fetch('/api/chat', {method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({content: 'hello from my own page'})}).then(r => r.status)""")
    assert status == 200
    assert "hello from my own page" in stored_messages(server)

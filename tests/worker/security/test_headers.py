"""Security headers on every response of the app, and the same in `_headers` for static
assets at the edge."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ROOT, auth
from tests.worker.security.conftest import configure
from worker.config import Runtime
from worker.security.headers import CONTENT_SECURITY_POLICY, SECURITY_HEADERS, headers_file

HEADERS_FILE = ROOT / "worker" / "static" / "_headers"


def assert_secured(response: httpx.Response) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (response.request.url, name)


@pytest.mark.parametrize(("method", "path", "kwargs"), [
    ("GET", "/", {}), ("GET", "/app.js", {}), ("GET", "/style.css", {}),
    ("GET", "/login.html", {}), ("GET", "/status", {}), ("GET", "/api/conversations", {}),
    ("GET", "/api/search?q=x", {}), ("GET", "/api/messages/nope", {}),
    ("GET", "/no-such-file.txt", {}), ("GET", "/api/%ff", {}),
    ("POST", "/api/chat", {"content": b"x"}), ("POST", "/api/chat", {"json": {"content": ""}}),
    ("POST", "/vault/sync", {}), ("GET", "/vault/manifest", {"headers": auth()}),
])
async def test_every_response_carries_the_headers(client: httpx.AsyncClient, method: str,
                                                  path: str, kwargs: dict) -> None:
    assert_secured(await client.request(method, path, **kwargs))


async def test_refusals_before_routing_carry_them_too(client: httpx.AsyncClient,
                                                      runtime: Runtime) -> None:
    configure(runtime, local_owner=False)
    response = await client.get("/status")
    assert response.status_code == 403
    assert_secured(response)


async def test_owner_data_is_not_cached(client: httpx.AsyncClient) -> None:
    for path in ("/status", "/api/conversations"):
        assert (await client.get(path)).headers["cache-control"] == "no-store"


def test_csp_forbids_framing_and_inline_code() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["frame-ancestors"] == "'none'"
    assert directives["script-src"] == "'self'" and "unsafe" not in CONTENT_SECURITY_POLICY
    assert SECURITY_HEADERS["x-content-type-options"] == "nosniff"
    assert SECURITY_HEADERS["referrer-policy"] == "no-referrer"


def test_the_web_client_has_no_inline_script_or_style() -> None:
    for page in ("index.html", "login.html"):
        html = (ROOT / "worker" / "static" / page).read_text()
        assert "<script>" not in html and "<style" not in html and " style=" not in html
        assert "onclick=" not in html and "javascript:" not in html


def _parse_headers_file(text: str) -> dict[str, dict[str, str]]:
    rules: dict[str, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith((" ", "\t")):
            current = rules.setdefault(line.strip(), {})
            continue
        name, _, value = line.strip().partition(":")
        assert current is not None
        current[name.strip().lower()] = value.strip()
    return rules


def test_static_headers_file_matches_the_app() -> None:
    text = HEADERS_FILE.read_text()
    assert text == headers_file()
    assert _parse_headers_file(text) == {"/*": SECURITY_HEADERS}

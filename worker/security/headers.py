"""Security response headers, on every response of the app; `worker/static/_headers`
repeats them for static assets served at the edge (a test keeps the two equal)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

# The web client is same-origin HTML, CSS and a JS module with no inline code, so
# 'self' covers it; data: images are the client's icons. frame-ancestors 'none' stops
# click-jacking, base-uri/form-action stop injected markup from redirecting the page.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'", "img-src 'self' data:", "style-src 'self'", "script-src 'self'",
    "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
    "frame-ancestors 'none'",
])
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
# Owner data must not sit in shared or browser caches.
NO_STORE = {"cache-control": "no-store"}

Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def headers_file() -> str:
    """The text `worker/static/_headers` must hold (Workers static assets rules)."""
    lines = ["# Written from worker/security/headers.py; tests/worker/security/test_headers.py",
             "# checks the two stay equal.", "/*"]
    lines += [f"  {name}: {value}" for name, value in SECURITY_HEADERS.items()]
    return "\n".join(lines) + "\n"


def adding_headers(send: Send, extra: dict[str, str]) -> Send:
    """Wrap an ASGI `send` so the response start carries `extra` headers it lacks."""
    encoded = [(k.encode(), v.encode()) for k, v in extra.items()]

    async def wrapped(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            message = {**message, "headers": [*message.get("headers", []),
                                              *[(k, v) for k, v in encoded
                                                if k not in present]]}
        await send(message)

    return wrapped

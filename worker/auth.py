"""Service-token auth for the hub-only endpoints (/vault/*).

Checked from headers alone, before any body is read: in production the Workers ASGI
adapter buffers the whole body before the app runs, so `worker.entry` calls this first.
Cloudflare Access (service-token headers) guards the route at the edge; this shared
secret is the Worker's own second lock, compared in constant time.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence

from shared.api.errors import Forbidden, Unauthorized
from shared.api.limits import MAX_SYNC_BODY_BYTES, check_declared_size

SCHEME = "bearer "


def check_sync_auth(headers: Mapping[str, str], tokens: Sequence[str]) -> None:
    """Raise Unauthorized (no credentials) or Forbidden (wrong, or none configured)."""
    if not tokens:
        raise Forbidden("sync is disabled: the Worker has no SYNC_TOKEN secret configured")
    header = headers.get("authorization", "")
    if not header.lower().startswith(SCHEME) or not header[len(SCHEME):].strip():
        raise Unauthorized("missing credentials: send 'Authorization: Bearer <SYNC_TOKEN>'")
    offered = header[len(SCHEME):].strip().encode()
    matches = [hmac.compare_digest(offered, t.encode()) for t in tokens]
    if not any(matches):
        raise Forbidden("wrong sync token; check SYNC_TOKEN on the hub and the Worker")


def precheck_hub_request(path: str, headers: Mapping[str, str], tokens: Sequence[str]) -> None:
    """What the Worker entrypoint checks before the ASGI adapter buffers a body: hub-only
    routes need credentials, and a declared body over the sync limit is refused."""
    if not path.startswith("/vault/"):
        return
    check_sync_auth(headers, tokens)
    check_declared_size(headers.get("content-length"), MAX_SYNC_BODY_BYTES)

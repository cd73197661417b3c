"""Service-token auth for the hub-only endpoints (/vault/*).

Checked from headers alone, before any body is read: in production the Workers ASGI
adapter buffers the whole body before the app runs, so `worker.entry` calls this first.
Cloudflare Access (service-token headers) guards the route at the edge; this shared
secret is the Worker's own second lock, compared in constant time.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence

from shared.errors import Forbidden, Unauthorized

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

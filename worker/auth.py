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
# The challenge of a 401 from the hub routes (RFC 7235 asks every 401 for one; RFC 6750's
# scheme, without an error code: the request carried no usable token).
HUB_CHALLENGE = 'Bearer realm="mallory-hub"'


def bearer_token(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, else None."""
    if header.lower().startswith(SCHEME) and header[len(SCHEME):].strip():
        return header[len(SCHEME):].strip()
    return None


def no_bearer_token(header: str, token_name: str, challenge: str, *,
                    missing: str | None = None, code: str = "unauthorized") -> Unauthorized:
    """The 401 for an Authorization header that carries no bearer token, saying why: none
    sent (`missing`, with `code`), another scheme (Basic, or a bare token), or Bearer with
    nothing after it. The header is never echoed: a bare token would come back in the
    answer."""
    send = f"send 'Authorization: Bearer <{token_name}>'"
    header = header.strip()
    if not header:
        message = missing or f"missing credentials: {send}"
    else:
        code = "bearer_scheme_required"
        if header.lower() == SCHEME.strip():
            message = f"the Authorization header names the Bearer scheme but no token: {send}"
        else:
            message = f"Authorization must use the Bearer scheme: {send}"
    return Unauthorized(message, code=code, headers={"www-authenticate": challenge})


def check_sync_auth(headers: Mapping[str, str], tokens: Sequence[str]) -> None:
    """Raise Unauthorized (no credentials) or Forbidden (wrong, or none configured)."""
    if not tokens:
        raise Forbidden("sync is disabled: the Worker has no SYNC_TOKEN secret configured")
    header = headers.get("authorization", "")
    token = bearer_token(header)
    if token is None:
        raise no_bearer_token(header, "SYNC_TOKEN", HUB_CHALLENGE)
    offered = token.encode()
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

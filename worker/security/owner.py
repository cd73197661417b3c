"""Owner authentication, fail closed: Access JWT, else owner token, else local owner,
else refuse. Which applies is `Settings.owner_auth` (see worker/config.py)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from shared.api.errors import Forbidden, Unauthorized
from worker.auth import bearer_token, no_bearer_token
from worker.config import OwnerAuth, Settings
from worker.security.access import HEADER as ACCESS_HEADER
from worker.security.access import JWKS, MISSING_JWT, JwksCache, verify_access_jwt

OWNER_COOKIE = "mallory_owner"
# The challenge of a 401 in owner-token mode (Access's 401s ask for its JWT, no scheme).
OWNER_CHALLENGE = 'Bearer realm="mallory-owner"'
# The cookie holds a MAC of the token, not the token: rotating OWNER_TOKEN signs every
# browser out, and the raw token never sits in a cookie jar.
_COOKIE_CONTEXT = b"mallory owner cookie v1"
NOT_CONFIGURED = ("owner routes are disabled: no owner authentication is configured. Set "
                  "ACCESS_TEAM_DOMAIN and ACCESS_AUD (Cloudflare Access), or OWNER_TOKEN, "
                  "or run `mallory serve` on a loopback address (127.0.0.1)")
WIDE_HOSTS = ("owner routes need OWNER_TOKEN or Access here: ALLOWED_HOSTS admits host names "
              "other than loopback ones, and a DNS-rebinding page could use any of them, so "
              "local-owner access is off. Set OWNER_TOKEN, or leave ALLOWED_HOSTS to "
              "localhost, 127.0.0.1 and ::1")
LOGIN_REQUIRED = ("sign in first: open /login.html and enter OWNER_TOKEN, or send "
                  "'Authorization: Bearer <OWNER_TOKEN>'")


def cookie_value(owner_token: str) -> str:
    return hmac.new(owner_token.encode(), _COOKIE_CONTEXT, hashlib.sha256).hexdigest()


def read_cookie(headers: Mapping[str, str], name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value.strip().strip('"')
    return None


def bearer(headers: Mapping[str, str]) -> str | None:
    return bearer_token(headers.get("authorization", ""))


def _not_signed_in(headers: Mapping[str, str]) -> Unauthorized:
    """Neither a bearer token nor the sign-in cookie: an Authorization header of another
    scheme is named as the problem (it is not ignored as if nothing was sent)."""
    return no_bearer_token(headers.get("authorization", ""), "OWNER_TOKEN", OWNER_CHALLENGE,
                           missing=LOGIN_REQUIRED, code="owner_login_required")


def token_matches(offered: str, expected: str) -> bool:
    return hmac.compare_digest(offered.encode(), expected.encode())


def require_credentials(headers: Mapping[str, str], settings: Settings) -> None:
    """Header-only: refuse when the configured mode's kind of credential is absent (the
    entry runs this before the Workers adapter buffers a body; full checks follow)."""
    mode = settings.owner_auth
    if mode is OwnerAuth.NONE and settings.local_owner:
        raise Forbidden(WIDE_HOSTS, code="local_owner_needs_loopback_hosts")
    if mode is OwnerAuth.NONE:
        raise Forbidden(NOT_CONFIGURED, code="owner_auth_not_configured")
    if mode is OwnerAuth.ACCESS and not headers.get(ACCESS_HEADER):
        raise Unauthorized(MISSING_JWT, code="access_jwt_missing")
    if (mode is OwnerAuth.OWNER_TOKEN and bearer(headers) is None
            and read_cookie(headers, OWNER_COOKIE) is None):
        raise _not_signed_in(headers)


def check_owner_token(headers: Mapping[str, str], owner_token: str) -> None:
    offered = bearer(headers)
    if offered is not None:
        if not token_matches(offered, owner_token):
            raise Forbidden("wrong owner token; check OWNER_TOKEN", code="owner_token_wrong")
        return
    cookie = read_cookie(headers, OWNER_COOKIE)
    if cookie is None:
        raise _not_signed_in(headers)
    if not token_matches(cookie, cookie_value(owner_token)):
        raise Forbidden("the sign-in cookie is no longer valid (OWNER_TOKEN changed?); sign "
                        "in again at /login.html", code="owner_token_wrong")


def signed_in(headers: Mapping[str, str], settings: Settings) -> bool:
    """Owner-token mode: whether the request carries the right bearer token or cookie."""
    try:
        check_owner_token(headers, settings.owner_token)
    except (Unauthorized, Forbidden):
        return False
    return True


def by_bearer(headers: Mapping[str, str], settings: Settings) -> bool:
    """Whether an authenticated request proved itself with a bearer token. A page on
    another site cannot make the browser add one (it would need a CORS preflight this app
    never answers), so such a request is no cross-site forgery: CSRF threatens the
    credentials a browser attaches by itself (the sign-in cookie, Access's cookie)."""
    return settings.owner_auth is OwnerAuth.OWNER_TOKEN and bearer(headers) is not None


async def authenticate_owner(headers: Mapping[str, str], settings: Settings,
                             jwks: JwksCache = JWKS) -> str:
    """The owner's identity (a rate-limit key), or Unauthorized/Forbidden."""
    require_credentials(headers, settings)
    mode = settings.owner_auth
    if mode is OwnerAuth.ACCESS:
        assert settings.access is not None
        identity = await verify_access_jwt(headers.get(ACCESS_HEADER), settings.access, jwks)
        return f"access:{identity.key}"
    if mode is OwnerAuth.OWNER_TOKEN:
        check_owner_token(headers, settings.owner_token)
        return "owner-token"
    return "local-owner"

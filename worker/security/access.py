"""Cloudflare Access JWT verification: the `Cf-Access-Jwt-Assertion` header.

The RS256 signature is checked by worker/security/rs256.py (WebCrypto in the Worker,
`cryptography` under CPython); PyJWT parses the token and checks its claims, with its own
signature step off because PyJWT's RS256 needs `cryptography`, which Pyodide lacks. The
signing keys (JWKS) are cached in module globals, fetched on first use (never at import:
Workers forbid I/O there), refetched when a token names an unknown `kid` (Access rotates
keys every 6 weeks) and after JWKS_MAX_AGE_S.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt

from shared.api.errors import Forbidden, ServiceUnavailable, Unauthorized
from worker.config import AccessConfig
from worker.security import rs256

log = logging.getLogger("mallory.access")

HEADER = "cf-access-jwt-assertion"
ALGORITHM = "RS256"
# Clock skew tolerated on exp/nbf/iat between Cloudflare's edge and this runtime.
LEEWAY_S = 30
JWKS_MAX_AGE_S = 3_600
# An unknown kid triggers at most one refetch per this many seconds, so a flood of
# tokens with invented kids cannot turn every request into a fetch of the certs URL.
JWKS_MIN_REFETCH_S = 30
JWKS_TIMEOUT_S = 5.0
MAX_JWT_CHARS = 8_192
REQUIRED_CLAIMS = ["exp", "iss", "aud"]
MISSING_JWT = ("no Cf-Access-Jwt-Assertion header: reach this app through its Cloudflare "
               "Access hostname")

Fetch = Callable[[str], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class AccessIdentity:
    """Who Access let through: a person (email) or a service token (common_name)."""

    subject: str
    email: str | None = None
    common_name: str | None = None

    @property
    def key(self) -> str:
        return self.email or self.common_name or self.subject or "access"


async def fetch_jwks(url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=JWKS_TIMEOUT_S) as client:
        response = await client.get(url)
    response.raise_for_status()
    return response.json()


def parse_jwks(data: Any) -> dict[str, dict[str, Any]]:
    """kid → JWK, for the RSA signing keys in a JWKS document; others are skipped."""
    keys: dict[str, dict[str, Any]] = {}
    for jwk in data.get("keys", []) if isinstance(data, dict) else []:
        if not isinstance(jwk, dict) or jwk.get("kty") != "RSA" or not jwk.get("kid"):
            continue
        if jwk.get("alg", ALGORITHM) != ALGORITHM or jwk.get("use", "sig") != "sig":
            continue
        keys[str(jwk["kid"])] = jwk
    return keys


async def import_jwks(data: Any) -> dict[str, Any]:
    """kid → verifying key (rs256.import_key), for the usable keys of a JWKS document."""
    keys: dict[str, Any] = {}
    for kid, jwk in parse_jwks(data).items():
        try:
            keys[kid] = await rs256.import_key(jwk)
        except rs256.UnusableKey as exc:
            log.warning("skipping an unusable key %s in the Access JWKS: %s", kid, exc)
    return keys


@dataclass
class _Entry:
    keys: dict[str, Any]
    fetched_at: float


@dataclass
class JwksCache:
    fetch: Fetch = fetch_jwks
    clock: Callable[[], float] = time.monotonic
    fetches: int = 0
    _entries: dict[str, _Entry] = field(default_factory=dict)

    def clear(self) -> None:
        self._entries.clear()
        self.fetches = 0

    async def key(self, url: str, kid: str) -> Any | None:
        entry, now = self._entries.get(url), self.clock()
        if entry is not None:
            age = now - entry.fetched_at
            if kid in entry.keys and age < JWKS_MAX_AGE_S:
                return entry.keys[kid]
            if kid not in entry.keys and age < JWKS_MIN_REFETCH_S:
                return None
        try:
            keys = await import_jwks(await self.fetch(url))
        except (httpx.HTTPError, ValueError) as exc:
            log.error("could not fetch the Access signing keys: %s", type(exc).__name__)
            if entry is not None and kid in entry.keys:
                return entry.keys[kid]  # stale but known: better than locking the owner out
            raise ServiceUnavailable("could not fetch Cloudflare Access signing keys; try "
                                     "again shortly", code="access_keys_unavailable") from exc
        finally:
            self.fetches += 1
        self._entries[url] = _Entry(keys=keys, fetched_at=now)
        return keys.get(kid)


# The module-global cache: one per Worker isolate (or local process).
JWKS = JwksCache()


def _refuse(status: int, code: str, message: str) -> Unauthorized | Forbidden:
    error = Unauthorized if status == 401 else Forbidden
    return error(message, code=code)


def _header(token: str) -> dict[str, Any]:
    try:
        header = jwt.get_unverified_header(token)
    except (jwt.InvalidTokenError, ValueError, TypeError):
        raise _refuse(401, "access_jwt_malformed",
                      "the Cf-Access-Jwt-Assertion header is not a JWT") from None
    if header.get("alg") != ALGORITHM:
        raise _refuse(401, "access_jwt_bad_algorithm",
                      f"the Access JWT must be signed with {ALGORITHM}, not "
                      f"{str(header.get('alg'))[:20]!r}")
    if not isinstance(header.get("kid"), str) or not header["kid"]:
        raise _refuse(401, "access_jwt_malformed", "the Access JWT names no signing key (kid)")
    return header


async def _signature_verifies(token: str, key: Any) -> bool:
    signing_input, _, signature = token.rpartition(".")
    if not token.isascii():
        return False
    try:
        raw = rs256.b64url_decode(signature)
    except ValueError:
        return False
    return await rs256.verify(key, signing_input.encode("ascii"), raw)


# The signature is checked before PyJWT runs (_signature_verifies); every claim check is
# named, because with its signature step off PyJWT would skip them by default.
CLAIM_CHECKS: dict[str, Any] = {
    "verify_signature": False, "verify_exp": True, "verify_nbf": True, "verify_iat": True,
    "verify_aud": True, "verify_iss": True, "verify_sub": True, "verify_jti": True,
    "require": REQUIRED_CLAIMS}

# PyJWT's errors, most specific first, as (status, code, message).
_CLAIM_ERRORS: tuple[tuple[type[Exception], int, str, str], ...] = (
    (jwt.ExpiredSignatureError, 401, "access_jwt_expired",
     "the Access JWT has expired; sign in through Cloudflare Access again"),
    (jwt.ImmatureSignatureError, 401, "access_jwt_not_yet_valid",
     "the Access JWT is not valid yet (nbf/iat in the future)"),
    (jwt.InvalidAudienceError, 403, "access_jwt_wrong_audience",
     "the Access JWT is for another application (aud does not hold ACCESS_AUD)"),
    (jwt.InvalidIssuerError, 403, "access_jwt_wrong_issuer",
     "the Access JWT was issued by another team (iss is not ACCESS_TEAM_DOMAIN)"),
    (jwt.MissingRequiredClaimError, 401, "access_jwt_malformed",
     "the Access JWT lacks a required claim (exp, iss, aud)"),
    (jwt.InvalidTokenError, 401, "access_jwt_invalid", "the Access JWT is invalid"),
)


async def verify_access_jwt(token: str | None, config: AccessConfig,
                            cache: JwksCache = JWKS) -> AccessIdentity:
    """The identity in a valid Access JWT, or Unauthorized/Forbidden with a precise code."""
    if not token:
        raise _refuse(401, "access_jwt_missing", MISSING_JWT)
    if len(token) > MAX_JWT_CHARS:
        raise _refuse(401, "access_jwt_malformed", "the Access JWT is too long")
    header = _header(token)
    key = await cache.key(config.certs_url, header["kid"])
    if key is None:
        raise _refuse(401, "access_jwt_unknown_key",
                      "the Access JWT is signed by a key the team does not publish")
    if not await _signature_verifies(token, key):
        raise _refuse(401, "access_jwt_bad_signature",
                      "the Access JWT's signature does not verify against the team's keys")
    try:
        claims = jwt.decode(token, audience=config.aud, issuer=config.issuer,
                            leeway=LEEWAY_S, options=CLAIM_CHECKS)
    except jwt.InvalidTokenError as exc:
        for kind, status, code, message in _CLAIM_ERRORS:
            if isinstance(exc, kind):
                raise _refuse(status, code, message) from None
        raise
    email, common_name = claims.get("email"), claims.get("common_name")
    return AccessIdentity(subject=str(claims.get("sub") or ""),
                          email=email if isinstance(email, str) else None,
                          common_name=common_name if isinstance(common_name, str) else None)

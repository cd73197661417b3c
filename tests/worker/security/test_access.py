"""Cloudflare Access JWT verification: RS256 against the team's JWKS, aud, iss, exp, nbf."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import httpx
import pytest
import respx

from shared.api.errors import MalloryError
from tests.worker.security.access_keys import (
    ACCESS,
    CERTS_URL,
    TEAM,
    claims,
    key,
    serving_jwks,
    token,
)
from worker.security.access import (
    JWKS_MAX_AGE_S,
    JWKS_MIN_REFETCH_S,
    LEEWAY_S,
    JwksCache,
    fetch_jwks,
    verify_access_jwt,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cache(clock: FakeClock) -> JwksCache:
    return JwksCache(fetch=fetch_jwks, clock=clock)


async def refused(jwt_text: str | None, cache: JwksCache) -> tuple[int, str]:
    with pytest.raises(MalloryError) as info:
        await verify_access_jwt(jwt_text, ACCESS, cache)
    return info.value.status, info.value.code


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _tampered(text: str) -> str:
    head, _, signature = text.split(".")
    return f"{head}.{_b64({**claims(), 'email': 'intruder@example.com'})}.{signature}"


# The token table: each row is a token and the keys the team publishes, and the outcome
# (None: accepted). It runs under CPython (cryptography) and inside Pyodide (WebCrypto).
TOKEN_TABLE = {
    "valid": (lambda: token(), ("k1",), None),
    "expired": (lambda: token(exp=int(time.time()) - LEEWAY_S - 60), ("k1",),
                (401, "access_jwt_expired")),
    "wrong audience": (lambda: token(aud=["another-application"]), ("k1",),
                       (403, "access_jwt_wrong_audience")),
    "wrong key": (lambda: token(key("intruder"), kid="k1"), ("k1",),
                  (401, "access_jwt_bad_signature")),
    "tampered claims": (lambda: _tampered(token()), ("k1",), (401, "access_jwt_bad_signature")),
    "alg none": (lambda: f"{_b64({'alg': 'none', 'kid': 'k1'})}.{_b64(claims())}.", ("k1",),
                 (401, "access_jwt_bad_algorithm")),
    "HS256 confusion": (lambda: _hs256(key("k1").public_pem()), ("k1",),
                        (401, "access_jwt_bad_algorithm")),
    "rotated: new key published": (lambda: token(key("k2")), ("k1", "k2"), None),
    "rotated: old key still published": (lambda: token(key("k1")), ("k2", "k1"), None),
    "rotated: key withdrawn": (lambda: token(key("k1")), ("k2",),
                               (401, "access_jwt_unknown_key")),
}


@pytest.mark.parametrize("case", list(TOKEN_TABLE))
async def test_the_token_table(cache: JwksCache, case: str) -> None:
    make, published, expected = TOKEN_TABLE[case]
    with serving_jwks(*(key(kid) for kid in published)):
        if expected is None:
            assert (await verify_access_jwt(make(), ACCESS, cache)).email == "owner@example.com"
        else:
            assert await refused(make(), cache) == expected


async def test_a_valid_token_gives_the_identity(cache: JwksCache) -> None:
    with serving_jwks(key("k1")):
        identity = await verify_access_jwt(token(), ACCESS, cache)
    assert identity.email == "owner@example.com"
    assert identity.key == "owner@example.com"


async def test_a_service_token_is_known_by_its_common_name(cache: JwksCache) -> None:
    with serving_jwks(key("k1")):
        identity = await verify_access_jwt(
            token(email=None, sub="", common_name="abc.access"), ACCESS, cache)
    assert identity.common_name == "abc.access" and identity.key == "abc.access"


# Times are offsets from now, applied when the test runs (not when it is collected).
@pytest.mark.parametrize(("overrides", "status", "code"), [
    ({"exp": -LEEWAY_S - 60}, 401, "access_jwt_expired"),
    ({"nbf": LEEWAY_S + 60}, 401, "access_jwt_not_yet_valid"),
    ({"iat": LEEWAY_S + 60}, 401, "access_jwt_not_yet_valid"),
    ({"aud": ["another-application"]}, 403, "access_jwt_wrong_audience"),
    ({"aud": "another-application"}, 403, "access_jwt_wrong_audience"),
    ({"iss": "https://evil.cloudflareaccess.com"}, 403, "access_jwt_wrong_issuer"),
    ({"iss": f"http://{TEAM}"}, 403, "access_jwt_wrong_issuer"),
    ({"exp": None}, 401, "access_jwt_malformed"),
    ({"aud": None}, 401, "access_jwt_malformed"),
])
async def test_bad_claims_are_refused(cache: JwksCache, overrides: dict, status: int,
                                      code: str) -> None:
    now = int(time.time())
    overrides = {k: now + v if k in ("exp", "nbf", "iat") and v is not None else v
                 for k, v in overrides.items()}
    with serving_jwks(key("k1")):
        assert await refused(token(**overrides), cache) == (status, code)


async def test_small_clock_skew_is_tolerated(cache: JwksCache) -> None:
    now = int(time.time())
    with serving_jwks(key("k1")):
        await verify_access_jwt(token(exp=now - LEEWAY_S // 2, nbf=now + LEEWAY_S // 2),
                                ACCESS, cache)


async def test_a_token_signed_by_another_key_with_a_known_kid_is_refused(
        cache: JwksCache) -> None:
    with serving_jwks(key("k1")):
        assert await refused(token(key("intruder"), kid="k1"), cache) == \
            (401, "access_jwt_bad_signature")


async def test_alg_none_is_refused(cache: JwksCache) -> None:
    unsigned = f"{_b64({'alg': 'none', 'typ': 'JWT', 'kid': 'k1'})}.{_b64(claims())}."
    with serving_jwks(key("k1")) as route:
        assert await refused(unsigned, cache) == (401, "access_jwt_bad_algorithm")
    assert route.call_count == 0  # refused before any key is looked up


async def test_hs256_with_the_public_key_as_secret_is_refused(cache: JwksCache) -> None:
    forged = _hs256(key("k1").public_pem())
    with serving_jwks(key("k1")):
        assert await refused(forged, cache) == (401, "access_jwt_bad_algorithm")


def _hs256(secret: bytes) -> str:
    """An HS256 token keyed with `secret`, built by hand (PyJWT refuses PEM secrets)."""
    signing_input = f"{_b64({'alg': 'HS256', 'typ': 'JWT', 'kid': 'k1'})}.{_b64(claims())}"
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


@pytest.mark.parametrize("text", [
    "", "not-a-jwt", "a.b.c", "a.b", "....", "eyJhbGciOiJSUzI1NiJ9.e30.", "x" * 9_000,
    f"{_b64({'alg': 'RS256'})}.{_b64(claims())}.c2ln",           # no kid
    f"{_b64({'alg': 'RS256', 'kid': 7})}.{_b64(claims())}.c2ln",  # kid not a string
    f"{_b64({'alg': 'RS256', 'kid': 'k1'})}.not-base64!.c2ln",
])
async def test_malformed_tokens_are_refused(cache: JwksCache, text: str) -> None:
    with serving_jwks(key("k1")):
        status, code = await refused(text, cache)
    assert status == 401 and code.startswith("access_jwt_")


async def test_a_missing_header_is_refused(cache: JwksCache) -> None:
    assert await refused(None, cache) == (401, "access_jwt_missing")


async def test_keys_are_fetched_once_for_many_requests(cache: JwksCache,
                                                       clock: FakeClock) -> None:
    with serving_jwks(key("k1")) as route:
        for _ in range(25):
            await verify_access_jwt(token(), ACCESS, cache)
            clock.now += 10
    assert route.call_count == 1
    assert str(route.calls[0].request.url) == CERTS_URL == \
        f"https://{TEAM}/cdn-cgi/access/certs"


async def test_unknown_kid_refetches_then_a_rotated_key_is_accepted(
        cache: JwksCache, clock: FakeClock) -> None:
    with serving_jwks(key("k1")) as route:
        await verify_access_jwt(token(), ACCESS, cache)
        # A token from a key the team does not (yet) publish: one refetch, then refused.
        clock.now += JWKS_MIN_REFETCH_S + 1
        assert await refused(token(key("k2")), cache) == (401, "access_jwt_unknown_key")
        assert route.call_count == 2
        # More invented kids inside the refetch interval cost no fetch at all.
        for kid in ("x1", "x2", "x3"):
            assert await refused(token(key("k2"), kid=kid), cache) == \
                (401, "access_jwt_unknown_key")
        assert route.call_count == 2
        # Access rotates: k2 is published beside k1; the next refetch finds it.
        route.mock(return_value=httpx.Response(200, json={
            "keys": [key("k1").jwk(), key("k2").jwk()]}))
        clock.now += JWKS_MIN_REFETCH_S + 1
        identity = await verify_access_jwt(token(key("k2")), ACCESS, cache)
        assert identity.email == "owner@example.com" and route.call_count == 3
        await verify_access_jwt(token(key("k1")), ACCESS, cache)  # old key: still valid
        assert route.call_count == 3


async def test_keys_are_refreshed_after_their_max_age(cache: JwksCache,
                                                      clock: FakeClock) -> None:
    with serving_jwks(key("k1")) as route:
        await verify_access_jwt(token(), ACCESS, cache)
        clock.now += JWKS_MAX_AGE_S + 1
        await verify_access_jwt(token(), ACCESS, cache)
    assert route.call_count == 2


async def test_an_unreachable_jwks_fails_closed(cache: JwksCache) -> None:
    with respx.mock() as mock:
        mock.get(CERTS_URL).mock(side_effect=httpx.ConnectError("down"))
        assert await refused(token(), cache) == (503, "access_keys_unavailable")
        mock.get(CERTS_URL).mock(return_value=httpx.Response(500, text="oops"))
        assert await refused(token(), cache) == (503, "access_keys_unavailable")


async def test_a_stale_known_key_survives_a_failed_refresh(cache: JwksCache,
                                                           clock: FakeClock) -> None:
    with serving_jwks(key("k1")):
        await verify_access_jwt(token(), ACCESS, cache)
    clock.now += JWKS_MAX_AGE_S + 1
    with respx.mock() as mock:
        mock.get(CERTS_URL).mock(side_effect=httpx.ConnectError("down"))
        assert (await verify_access_jwt(token(), ACCESS, cache)).email == "owner@example.com"


def test_the_forgers_pem_is_the_published_key() -> None:
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    loaded = serialization.load_pem_public_key(key("k1").public_pem())
    assert loaded.public_numbers().n == key("k1").n and loaded.public_numbers().e == 65537

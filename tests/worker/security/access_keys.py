"""Locally generated RSA keys, Access-shaped JWTs and a JWKS served through respx."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx
import jwt
import respx
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from worker.config import AccessConfig

TEAM = "mallory-test.cloudflareaccess.com"
AUD = "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2"
ACCESS = AccessConfig(team_domain=TEAM, aud=AUD)
CERTS_URL = ACCESS.certs_url


@dataclass(frozen=True)
class Key:
    kid: str
    private: rsa.RSAPrivateKey

    def jwk(self) -> dict[str, Any]:
        # The shape Access publishes at /cdn-cgi/access/certs: kid, kty, alg, use, e, n.
        return {**RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True),
                "kid": self.kid, "alg": "RS256", "use": "sig"}


@cache
def key(kid: str) -> Key:
    return Key(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {"aud": [AUD], "email": "owner@example.com", "exp": now + 600, "iat": now,
            "nbf": now, "iss": f"https://{TEAM}", "type": "app", "identity_nonce": "n",
            "sub": "7335d417-61da-459d-899c-0a01c76a2f94", "country": "PT"}
    return {k: v for k, v in {**base, **overrides}.items() if v is not None}


def token(signing: Key | None = None, kid: str | None = None, **overrides: Any) -> str:
    signing = signing or key("k1")
    return jwt.encode(claims(**overrides), signing.private, algorithm="RS256",
                      headers={"kid": kid or signing.kid})


def jwks(*keys: Key) -> dict[str, Any]:
    return {"keys": [k.jwk() for k in keys]}


@contextmanager
def serving_jwks(*keys: Key) -> Iterator[respx.Route]:
    """The team's certs URL answers with `keys`; the route counts fetches."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(CERTS_URL).mock(return_value=httpx.Response(200, json=jwks(*keys)))
        yield route

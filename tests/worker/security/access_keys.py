"""Test RSA keys, Access-shaped JWTs and a JWKS served through respx.

The keys are fixed test keys (access_test_keys.json, made once with `cryptography`, never
used anywhere else) and tokens are signed here in plain Python (RSASSA-PKCS1-v1_5, RFC 8017
§8.2.1), so the same tokens can be made under CPython and inside Pyodide, where
`cryptography` does not exist. What checks them is the real thing in each runtime
(worker/security/rs256.py): `cryptography`, or WebCrypto.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import respx

from worker.config import AccessConfig

TEAM = "mallory-test.cloudflareaccess.com"
AUD = "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2"
ACCESS = AccessConfig(team_domain=TEAM, aud=AUD)
CERTS_URL = ACCESS.certs_url


KEYS = json.loads(Path(__file__).with_name("access_test_keys.json").read_text())
# DigestInfo for SHA-256 (RFC 8017 §9.2, note 1): what PKCS#1 v1.5 signs around the hash.
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _int_b64url(value: int) -> str:
    return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


@dataclass(frozen=True)
class Key:
    kid: str
    n: int
    e: int
    d: int

    def jwk(self) -> dict[str, Any]:
        # The shape Access publishes at /cdn-cgi/access/certs: kid, kty, alg, use, e, n.
        return {"kty": "RSA", "n": _int_b64url(self.n), "e": _int_b64url(self.e),
                "kid": self.kid, "alg": "RS256", "use": "sig"}

    def sign(self, message: bytes) -> bytes:
        size = (self.n.bit_length() + 7) // 8
        t = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
        encoded = b"\x00\x01" + b"\xff" * (size - len(t) - 3) + b"\x00" + t
        return pow(int.from_bytes(encoded, "big"), self.d, self.n).to_bytes(size, "big")

    def public_pem(self) -> bytes:
        """The SubjectPublicKeyInfo PEM: what an HS256-confusion forger uses as secret."""
        def der(tag: int, body: bytes) -> bytes:
            size = len(body)
            length = bytes([size]) if size < 128 else \
                bytes([0x80 | ((size.bit_length() + 7) // 8)]) + size.to_bytes(
                    (size.bit_length() + 7) // 8, "big")
            return bytes([tag]) + length + body

        def integer(value: int) -> bytes:
            return der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))

        rsa_oid = der(0x30, bytes.fromhex("06092a864886f70d0101010500"))
        public = der(0x30, integer(self.n) + integer(self.e))
        spki = der(0x30, rsa_oid + der(0x03, b"\x00" + public))
        text = base64.encodebytes(spki).decode().replace("\n", "")
        lines = [text[i:i + 64] for i in range(0, len(text), 64)]
        return ("-----BEGIN PUBLIC KEY-----\n" + "\n".join(lines)
                + "\n-----END PUBLIC KEY-----\n").encode()


@cache
def key(kid: str) -> Key:
    material = KEYS[kid]
    return Key(kid, int(material["n"], 16), int(material["e"]), int(material["d"], 16))


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {"aud": [AUD], "email": "owner@example.com", "exp": now + 600, "iat": now,
            "nbf": now, "iss": f"https://{TEAM}", "type": "app", "identity_nonce": "n",
            "sub": "7335d417-61da-459d-899c-0a01c76a2f94", "country": "PT"}
    return {k: v for k, v in {**base, **overrides}.items() if v is not None}


def token(signing: Key | None = None, kid: str | None = None, **overrides: Any) -> str:
    signing = signing or key("k1")
    header = {"alg": "RS256", "typ": "JWT", "kid": kid or signing.kid}
    signing_input = ".".join(b64url(json.dumps(part, separators=(",", ":")).encode())
                             for part in (header, claims(**overrides)))
    return f"{signing_input}.{b64url(signing.sign(signing_input.encode()))}"


def jwks(*keys: Key) -> dict[str, Any]:
    return {"keys": [k.jwk() for k in keys]}


@contextmanager
def serving_jwks(*keys: Key) -> Iterator[respx.Route]:
    """The team's certs URL answers with `keys`; the route counts fetches."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(CERTS_URL).mock(return_value=httpx.Response(200, json=jwks(*keys)))
        yield route

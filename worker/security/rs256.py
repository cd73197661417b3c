"""RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature checks for Access JWTs, in either runtime.

In the Worker (Pyodide) WebCrypto does it, `crypto.subtle` through the FFI: workerd and
Node both provide it, and `cryptography` has no Pyodide wheel. Under CPython (the local
runtime, `mallory serve`) `cryptography` does it; it is installed there (the `local` extra).
Both take the key as Access publishes it, a JWK with `n` and `e`.
"""

from __future__ import annotations

import base64
import sys
from typing import Any

IN_PYODIDE = sys.platform == "emscripten"
WEBCRYPTO_ALGORITHM = {"name": "RSASSA-PKCS1-v1_5", "hash": "SHA-256"}


class UnusableKey(ValueError):
    """The JWK is not an RSA public key this runtime can import."""


def b64url_decode(text: str) -> bytes:
    """Base64url without padding (RFC 7515 §2); ValueError on anything else."""
    if not isinstance(text, str) or not text.isascii() or "=" in text:
        raise ValueError("not base64url text")
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def _public_numbers(jwk: dict[str, Any]) -> tuple[int, int]:
    try:
        n = int.from_bytes(b64url_decode(jwk["n"]), "big")
        e = int.from_bytes(b64url_decode(jwk["e"]), "big")
    except (KeyError, TypeError, ValueError) as exc:
        raise UnusableKey("the JWK's n and e are not base64url integers") from exc
    if n.bit_length() < 2048 or e < 3 or e % 2 == 0:
        raise UnusableKey(f"an RSA key of {n.bit_length()} bits (e={e}) is too weak")
    return n, e


async def import_key(jwk: dict[str, Any]) -> Any:
    """An opaque verifying key for `verify`; UnusableKey if the JWK is not one."""
    n, e = _public_numbers(jwk)
    if IN_PYODIDE:
        return await _webcrypto_import(jwk)
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    return RSAPublicNumbers(e, n).public_key()


async def verify(key: Any, signing_input: bytes, signature: bytes) -> bool:
    """Whether `signature` is key's RS256 signature of `signing_input`."""
    if IN_PYODIDE:
        return await _webcrypto_verify(key, signing_input, signature)
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from cryptography.hazmat.primitives.hashes import SHA256

    try:
        key.verify(signature, signing_input, PKCS1v15(), SHA256())
    except InvalidSignature:
        return False
    return True


def _js(value: Any) -> Any:
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    return to_js(value, dict_converter=js.Object.fromEntries)


async def _webcrypto_import(jwk: dict[str, Any]) -> Any:
    import js  # type: ignore[import-not-found]

    public = {"kty": "RSA", "n": jwk["n"], "e": jwk["e"], "alg": "RS256", "ext": True}
    try:
        return await js.crypto.subtle.importKey("jwk", _js(public), _js(WEBCRYPTO_ALGORITHM),
                                                False, _js(["verify"]))
    except Exception as exc:  # pyodide.ffi.JsException: WebCrypto's DataError
        raise UnusableKey(f"WebCrypto refused the key: {str(exc)[:200]}") from exc


async def _webcrypto_verify(key: Any, signing_input: bytes, signature: bytes) -> bool:
    import js  # type: ignore[import-not-found]

    return bool(await js.crypto.subtle.verify(_js(WEBCRYPTO_ALGORITHM), key,
                                              _js(signature), _js(signing_input)))

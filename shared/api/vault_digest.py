"""The per-vault checksum the hub and the Worker compare on every run to detect drift.

A note's digest is the first DIGEST_BITS bits of SHA-256(path NUL content hash); a vault's
checksum is the sum of its notes' digests modulo 2^DIGEST_BITS. A sum does not depend on
order, so the Worker keeps it up to date in its triggers (migrations/0002_vaults.sql) with
one addition or subtraction per write, and the hub computes it from its state. 40 bits
keep every value exact in D1 and JavaScript (2^53), and reducing at every step keeps the
triggers' arithmetic far from SQLite's 64-bit limit; two different sets of notes agree by
chance with odds of 2^-40.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

DIGEST_BITS = 40
CHECKSUM_MODULUS = 1 << DIGEST_BITS  # the literal 1099511627776 in migrations/0002


def note_digest(path: str, content_hash: str) -> int:
    raw = hashlib.sha256(f"{path}\0{content_hash}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(raw[:DIGEST_BITS // 8], "big")


def vault_checksum(notes: Iterable[tuple[str, str]]) -> int:
    """The checksum of (path, content hash) pairs."""
    return sum(note_digest(path, digest) for path, digest in notes) % CHECKSUM_MODULUS

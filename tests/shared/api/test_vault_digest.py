"""The drift checksum: order-independent, sensitive to path and content, bounded."""

from __future__ import annotations

from pathlib import Path

from shared.api.limits import MAX_SAFE_INTEGER
from shared.api.vault_digest import CHECKSUM_MODULUS, note_digest, vault_checksum

A, B = "a" * 64, "b" * 64


def test_checksum_ignores_order_and_sees_path_and_content() -> None:
    notes = [("x.md", A), ("y.md", B)]
    assert vault_checksum(notes) == vault_checksum(reversed(notes))
    assert vault_checksum(notes) != vault_checksum([("x.md", B), ("y.md", A)])
    assert vault_checksum(notes) != vault_checksum([("x.md", A), ("z.md", B)])
    assert vault_checksum(notes) != vault_checksum(notes[:1])
    assert vault_checksum([]) == 0


def test_values_stay_exact_in_d1_and_javascript() -> None:
    assert CHECKSUM_MODULUS - 1 < MAX_SAFE_INTEGER
    assert 0 <= note_digest("x.md", A) < CHECKSUM_MODULUS
    many = [(f"n{i}.md", A) for i in range(10_000)]
    assert 0 <= vault_checksum(many) < CHECKSUM_MODULUS


def test_the_modulus_is_the_one_the_migration_uses() -> None:
    sql = (Path(__file__).resolve().parents[3] / "migrations" / "0002_vaults.sql").read_text()
    assert f"% {CHECKSUM_MODULUS}" in sql

"""Roles and statuses: one rule for the hub and the Worker."""

from __future__ import annotations

import pytest

from shared.knowledge.roles import normal_role, normal_status, role_of


@pytest.mark.parametrize(("note_type", "declared", "role"), [
    ("decision", None, "canonical"),
    ("Procedure", None, "canonical"),
    (" concept ", None, "canonical"),
    ("source", None, "evidence"),
    ("daily", None, "evidence"),
    ("clipping", None, "evidence"),
    (None, None, None),  # most of a personal vault: no role, no adjustment, no label
    ("investigation", None, None),
    ("source", "canonical", "canonical"),  # a declared role wins over the type
    ("decision", "Evidence", "evidence"),
    ("decision", "reviewed", "canonical"),  # an unknown declared role: the type decides
])
def test_role_comes_from_the_declared_role_else_the_type(note_type, declared, role) -> None:
    assert role_of(note_type, declared) == role


@pytest.mark.parametrize(("raw", "status"), [
    ("stable", "stable"), ("Draft", "draft"), (" DEPRECATED ", "deprecated"),
    ("stale", "stale"), ("active", None), ("", None), (None, None), (3, None),
])
def test_only_the_four_statuses_are_statuses(raw, status) -> None:
    assert normal_status(raw) == status


def test_roles_are_canonical_or_evidence() -> None:
    assert (normal_role("Canonical"), normal_role("card"), normal_role(None)) == (
        "canonical", None, None)

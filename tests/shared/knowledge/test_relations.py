"""The relation types as records, and the relation as the sync payload carries it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.knowledge.relations import BY_NAME, CONFLICT_TYPES, RelationEdge, scope_problem


def test_the_seven_types_and_what_each_does() -> None:
    assert list(BY_NAME) == ["supports", "contradicts", "qualifies", "supersedes",
                             "applies_under", "derived_from", "related_to"]
    assert CONFLICT_TYPES == ("contradicts", "qualifies", "supersedes")
    assert [t.name for t in BY_NAME.values() if not t.expands] == ["related_to"]
    assert [t.name for t in BY_NAME.values() if t.acyclic] == ["supersedes", "derived_from"]


@pytest.mark.parametrize(("type_", "scope", "problem"), [
    ("applies_under", "on Debian 12", None),
    ("applies_under", None, "needs a scope"),
    ("applies_under", "  ", "needs a scope"),
    ("supports", "in winter", "scope is only for applies_under"),
    ("supports", None, None),
    ("see_also", "anything", None),  # unknown types are inert: any scope goes
])
def test_scope_is_required_for_applies_under_and_refused_for_the_others(
        type_, scope, problem) -> None:
    found = scope_problem(type_, scope)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_an_edge_is_effective_only_when_linked_and_of_a_known_type() -> None:
    assert RelationEdge(target="a.md", type="supports", linked=True).effective
    assert not RelationEdge(target="a.md", type="supports", linked=False).effective
    assert not RelationEdge(target="a.md", type="see_also", linked=True).effective


@pytest.mark.parametrize("bad", [
    {"target": "a.md", "type": "Supports", "linked": True},  # the hub lower-cases types
    {"target": "a.md", "type": "", "linked": True},
    {"target": "a.md", "type": "supports", "linked": 1},  # strict: not a boolean
    {"target": "a.md", "type": "supports", "linked": True, "scope": "x"},
    {"target": "a.md", "type": "applies_under", "linked": True},
    {"target": "a.md", "type": "supports", "linked": True, "weight": 2},
])
def test_malformed_edges_are_refused(bad) -> None:
    with pytest.raises(ValidationError):
        RelationEdge.model_validate(bad)

"""A page's knowledge metadata as read from its own frontmatter and body."""

from __future__ import annotations

import pytest

from hub.knowledge import page_knowledge, relation_drafts


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def test_well_formed_relations_become_drafts() -> None:
    drafts, findings = relation_drafts("a.md", [
        {"target": "Decisions/Old plan", "type": "Supersedes"},
        {"target": [["Sources/Handbook"]], "type": "applies_under", "scope": " on Debian "},
        {"target": "[[Other|alias]]", "type": "see_also"}])
    assert [(d.index, d.target, d.type, d.scope) for d in drafts] == [
        (0, "Decisions/Old plan", "supersedes", None),
        (1, "Sources/Handbook", "applies_under", "on Debian"),
        (2, "Other", "see_also", None)]
    assert codes(findings) == ["relation_unknown_type"]  # kept, inert


@pytest.mark.parametrize(("value", "code", "words"), [
    ({"target": "x", "type": "supports"}, "relations_malformed", "must be a list"),
    ("x", "relations_malformed", "not str"),
    (["x"], "relation_malformed", "relations[0] must be a mapping"),
    ([{"target": "x"}], "relation_malformed", "needs a type"),
    ([{"type": "supports"}], "relation_malformed", "needs a target"),
    ([{"target": "[[ ]]", "type": "supports"}], "relation_malformed", "needs a target"),
    ([{"target": "x", "type": "supports", "weight": 2}], "relation_malformed", "'weight'"),
    ([{"target": "x", "type": "supports", "scope": "winter"}], "relation_scope",
     "only for applies_under"),
    ([{"target": "x", "type": "applies_under"}], "relation_scope", "needs a scope"),
    ([{"target": "x", "type": "supports\nmore"}], "relation_malformed", "one line"),
])
def test_malformed_relations_are_findings_and_dropped(value, code, words) -> None:
    drafts, findings = relation_drafts("a.md", value)
    assert drafts == []
    assert codes(findings) == [code] and words in findings[0].message
    assert findings[0].path == "a.md"


def test_status_and_role_are_normalised_and_unknown_ones_reported() -> None:
    page = page_knowledge("a.md", {"status": "Stable", "role": "Canonical"}, "")
    assert (page.status, page.role, page.findings) == ("stable", "canonical", ())
    page = page_knowledge("a.md", {"status": "active", "role": "card"}, "")
    assert (page.status, page.role) == (None, None)
    assert codes(page.findings) == ["unknown_status", "unknown_role"]
    assert "'active' is not one of draft, stable, deprecated, stale" in \
        page.findings[0].message


def test_body_links_are_kept_as_page_names() -> None:
    page = page_knowledge("a.md", {}, "[[B]] and [[B|again]] and [c](Sub/C.md)")
    assert page.links == ("B", "Sub/C")

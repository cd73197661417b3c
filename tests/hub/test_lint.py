"""Relations resolved against the vault: the payload's relations and the findings."""

from __future__ import annotations

from hub.findings import LEVELS, Finding, counts
from hub.knowledge import page_knowledge
from hub.links import VaultIndex
from hub.lint import Suggester, cycles, resolve_page

PAGES = ["Backups/NAS.md", "Backups/USB disk.md", "Plans/Plan.md", "Archive/Plan.md",
         "Notes/Me.md"]
INDEX = VaultIndex.of(PAGES)


def resolve(relations: list, body: str, path: str = "Notes/Me.md"):
    page = page_knowledge(path, {"relations": relations}, body)
    return resolve_page(path, page, INDEX)


def test_resolved_linked_relations_are_sent_with_the_page_path() -> None:
    done = resolve([{"target": "NAS", "type": "supersedes"},
                    {"target": "Backups/USB disk", "type": "supports"}],
                   "Replaces [[NAS]]; see [usb](../Backups/USB%20disk.md).")
    assert [(r.target, r.type, r.linked) for r in done.relations] == [
        ("Backups/NAS.md", "supersedes", True), ("Backups/USB disk.md", "supports", True)]
    assert done.findings == [] and done.missing == []


def test_a_relation_the_body_does_not_link_is_sent_inert_with_a_warning() -> None:
    done = resolve([{"target": "NAS", "type": "contradicts"}], "No link here.")
    assert [(r.target, r.linked) for r in done.relations] == [("Backups/NAS.md", False)]
    assert [f.code for f in done.findings] == ["relation_missing_body_link"]
    assert "add [[NAS]]" in done.findings[0].message


def test_a_missing_target_suggests_close_names_and_is_sent_as_written() -> None:
    done = resolve([{"target": "Bakups/NAS", "type": "supports"}], "See [[Bakups/NAS]].")
    assert [f.code for f in done.findings] == ["relation_missing_target"]
    assert "did you mean 'Backups/NAS'" in done.findings[0].message
    assert [(r.target, r.linked) for r in done.relations] == [("Bakups/NAS.md", True)]
    assert done.missing == ["Bakups/NAS"]


def test_a_far_name_gets_no_suggestion() -> None:
    done = resolve([{"target": "Quarterly taxes", "type": "supports"}], "")
    assert "did you mean" not in done.findings[0].message


def test_self_links_ambiguous_targets_and_duplicates() -> None:
    done = resolve([{"target": "Notes/Me", "type": "supports"},
                    {"target": "Plan", "type": "supports"},
                    {"target": "NAS", "type": "supports"},
                    {"target": "Backups/NAS", "type": "supports"}], "[[NAS]] [[Plan]]")
    assert [f.code for f in done.findings] == [
        "relation_self", "relation_ambiguous_target", "relation_duplicate"]
    assert "Archive/Plan.md, Plans/Plan.md" in done.findings[1].message
    assert [r.target for r in done.relations] == ["Plan.md", "Backups/NAS.md"]


def test_an_unknown_type_is_kept_and_needs_no_body_link() -> None:
    done = resolve([{"target": "NAS", "type": "inspired_by"}], "")
    assert [(r.type, r.linked) for r in done.relations] == [("inspired_by", False)]
    assert [f.code for f in done.findings] == ["relation_unknown_type"]


def test_cycles_of_ordering_types_are_found_once_per_cycle() -> None:
    edges = {"a.md": [("b.md", "supersedes")], "b.md": [("c.md", "supersedes")],
             "c.md": [("a.md", "supersedes")], "d.md": [("e.md", "contradicts")],
             "e.md": [("d.md", "contradicts")],  # mutual contradiction is no cycle
             "f.md": [("g.md", "derived_from")], "g.md": [("f.md", "derived_from")]}
    found = cycles(edges)
    assert [(f.path, f.code) for f in found] == [("a.md", "relation_cycle"),
                                                 ("f.md", "relation_cycle")]
    assert "a.md, b.md, c.md" in found[0].message
    assert [f.path for f in cycles(edges, touching={"g.md"})] == ["f.md"]
    assert cycles(edges, touching={"d.md"}) == []


def test_every_code_has_a_level_and_counts_split_them() -> None:
    assert set(LEVELS.values()) == {"error", "warning"}
    found = [Finding("a.md", "relation_cycle", "x"), Finding("a.md", "unknown_status", "y")]
    assert counts(found) == (1, 1)
    assert found[0].line() == "lint error a.md: x [relation_cycle]"


def test_the_suggester_reuses_its_choices() -> None:
    suggest = Suggester(INDEX)
    assert suggest("Backups/USB disc") == ["Backups/USB disk"]
    assert suggest("zzzz") == []


def test_a_file_name_typo_suggests_the_full_path() -> None:
    suggest = Suggester(VaultIndex.of(["Reference/Debian Handbook/Remote Login.md",
                                       "Backups/NAS.md"]))
    assert suggest("Remote Logn") == ["Reference/Debian Handbook/Remote Login"]
    assert suggest("Backup plan") == []

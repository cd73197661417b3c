"""Body links and how a name resolves to a page, as Obsidian does it."""

from __future__ import annotations

import pytest

from hub.links import VaultIndex, body_links, normal_target


def test_body_links_are_wikilinks_embeds_and_markdown_links_outside_code() -> None:
    body = ("See [[Plans/Old plan|the old plan]] and [[New plan#Budget]], ![[Diagram]].\n"
            "Also [the handbook](Reference/Debian%20Handbook/Backup.md) and "
            "[local](<../Other note.md>), not [web](https://example.com/x.md) nor "
            "[mail](mailto:a@b.c) nor [here](#heading).\n"
            "`[[Inline code]]`\n```\n[[Fenced]]\n```\n")
    assert body_links(body) == ["Plans/Old plan|the old plan", "New plan#Budget", "Diagram",
                                "Reference/Debian%20Handbook/Backup.md", "../Other note.md"]


@pytest.mark.parametrize(("written", "name"), [
    ("[[Plans/Old plan|the old plan]]", "Plans/Old plan"),
    ("New plan#Budget", "New plan"),
    ("Note^block-1", "Note"),
    ("Reference/Debian%20Handbook/Backup.md", "Reference/Debian Handbook/Backup"),
    ("/Absolute/Page.MD", "Absolute/Page"),
    ("  spaced  ", "spaced"),
])
def test_a_link_names_a_page(written: str, name: str) -> None:
    assert normal_target(written) == name


INDEX = VaultIndex.of(["Decisions/Backups new.md", "Decisions/Backups old.md",
                       "Projects/Plan.md", "Archive/Plan.md", "Home/Notes/Garden.md",
                       "Garden tools.md"])


@pytest.mark.parametrize(("name", "from_path", "found"), [
    ("Decisions/Backups new", "", ["Decisions/Backups new.md"]),
    ("decisions/backups NEW", "", ["Decisions/Backups new.md"]),  # case-insensitive
    ("Backups old", "", ["Decisions/Backups old.md"]),  # a unique file name
    ("Plan", "", ["Archive/Plan.md", "Projects/Plan.md"]),  # ambiguous
    ("Projects/Plan", "", ["Projects/Plan.md"]),
    ("Notes/Garden", "", ["Home/Notes/Garden.md"]),  # a path suffix
    ("../Plan", "Archive/Sub/x.md", ["Archive/Plan.md"]),  # relative
    ("Garden", "Home/Notes/x.md", ["Home/Notes/Garden.md"]),  # beside the linking page
    ("Nothing here", "", []),
    ("", "", []),
])
def test_names_resolve_as_obsidian_resolves_links(name, from_path, found) -> None:
    assert sorted(INDEX.candidates(name, from_path)) == found
    assert INDEX.resolve(name, from_path) == (found[0] if len(found) == 1 else None)

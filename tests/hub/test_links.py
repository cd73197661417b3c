"""Body links and how a name resolves to a page, as Obsidian does it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.links import VaultIndex, body_links, normal_target


def test_body_links_are_wikilinks_embeds_and_markdown_links_outside_code() -> None:
    body = ("See [[Plans/Old plan|the old plan]] and [[New plan#Budget]], ![[Diagram]].\n"
            "Also [the handbook](Reference/Debian%20Handbook/Backup.md) and "
            "[local](<../Other note.md>), not [web](https://example.com/x.md) nor "
            "[mail](mailto:a@b.c) nor [here](#heading).\n"
            "`[[Inline code]]`\n```\n[[Fenced]]\n```\n")
    assert body_links(body) == ["Plans/Old plan|the old plan", "New plan#Budget", "Diagram",
                                "Reference/Debian%20Handbook/Backup.md", "../Other note.md"]


# body_links as it was before its fast paths: patterns matching an embed's "!", and every
# body through both code patterns.
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+\"[^\"\n]*\")?\s*\)")


def _reference_links(body: str) -> list[str]:
    text = _INLINE_CODE.sub(" ", _FENCE.sub(" ", body))
    found = [m.group(1) for m in _WIKILINK.finditer(text)]
    for m in _MDLINK.finditer(text):
        url = m.group(1).strip("<>")
        if not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", url) and not url.startswith("#"):
            found.append(url)
    return found


@given(st.lists(st.sampled_from(["!", "[", "]", "[[", "]]", "(", ")", "<", ">", "a", "x:",
                                 "#", " ", "\n", "`", "```", "~~~", '"']), max_size=30))
def test_body_links_are_what_the_unshortened_patterns_find(pieces: list[str]) -> None:
    body = "".join(pieces)
    assert body_links(body) == _reference_links(body)


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

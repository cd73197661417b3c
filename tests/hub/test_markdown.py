"""The hub reads frontmatter boundaries, body tags and the H1 title from the Markdown
parser's tokens (hub/markdown.py): code is never a tag or a title, and the frontmatter
boundary is the one Obsidian uses."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from hub.markdown import _TAG, body_tags, frontmatter_split, h1_title, parse_body
from hub.notes import Rejection, parse_note, split_frontmatter
from hub.state import PARSER_VERSION
from shared.api.sync_payload import NoteUpsert


def parse(text: str) -> NoteUpsert:
    note = parse_note("Folder/Note.md", text.encode(), 1_700_000_000_000)
    assert isinstance(note, NoteUpsert), note
    return note


@pytest.mark.parametrize(("text", "data", "body"), [
    ("---\na: 1\n---\nbody\n", {"a": 1}, "body\n"),
    ("---\na: 1\n...\nbody", {"a": 1}, "body"),  # YAML's document end closes it too
    ("---  \na: 1\n---\t \nbody", {"a": 1}, "body"),  # trailing blanks on both lines
    ("---\n---\nbody", {}, "body"),
    ("---\n\n---\nbody", {}, "body"),
    ("---\na: 1\nb: two\n---", {"a": 1, "b": "two"}, ""),
    ("---\ntext: |\n  # not a heading\n  ```\n---\n# Title", {"text": "# not a heading\n```"},
     "# Title"),
    ("----\na: 1\n----\nx", {}, "----\na: 1\n----\nx"),  # only exactly --- opens it
    ("---x\n---\n", {}, "---x\n---\n"),
    ("text\n---\na: 1\n---\n", {}, "text\n---\na: 1\n---\n"),  # not on the first line
])
def test_the_frontmatter_boundary_comes_from_the_parser(text: str, data: dict,
                                                        body: str) -> None:
    assert split_frontmatter(text) == (data, body)


def test_an_unclosed_frontmatter_is_refused() -> None:
    with pytest.raises(ValueError, match="never closed"):
        frontmatter_split("---\ntitle: x\nbody without end\n")
    assert isinstance(parse_note("a.md", b"---\ntitle: x\nno end", 1), Rejection)


def test_a_lone_carriage_return_is_not_a_line_end() -> None:
    """Python and Obsidian split lines at "\\n" only; markdown-it would also at "\\r"."""
    split = frontmatter_split("---\na: 1\rb\n---\nbody")
    assert split is not None and split.yaml == "a: 1\rb" and split.body_start == 15


def test_windows_line_ends_are_read_like_unix_ones() -> None:
    note = parse("---\r\ntags: [a]\r\n---\r\n# Heading\r\nText #b\r\n")
    assert (note.title, note.tags, note.body) == ("Heading", ["a", "b"], "# Heading\nText #b\n")


BODY_WITH_CODE = """Intro #real and `#inline` and `` #double `` here.
```python
#fenced = 1
```
~~~~
```
#nested-fence
```
~~~~

    #indented code

<div>
#html-block
</div>

- item #listed
> quote #quoted

## Heading #in-heading

[link #linktext](http://x.y/#anchor) **bold**#after-bold #123 #a/b-c
```
#after-an-unclosed-fence
"""


def test_tags_come_from_prose_only() -> None:
    assert body_tags(parse_body(BODY_WITH_CODE)) == [
        "real", "listed", "quoted", "in-heading", "linktext", "after-bold", "a/b-c"]


def test_a_code_fence_tag_is_not_a_note_tag() -> None:
    note = parse("---\ntags: [fm]\n---\n" + BODY_WITH_CODE)
    assert "fenced" not in note.tags and "nested-fence" not in note.tags
    assert "after-an-unclosed-fence" not in note.tags and "indented" not in note.tags
    assert note.tags[:2] == ["fm", "real"]


@pytest.mark.parametrize(("body", "title"), [
    ("# Real heading\n\ntext", "Real heading"),
    ("\n\n  # Indented a little ##\ntext", "Indented a little"),
    ("# C# notes\n", "C# notes"),
    ("# **Bold** title\n", "**Bold** title"),
    ("    # indented code\n", None),
    ("```\n# in a fence\n```\n# After\n", None),
    ("text\n# Not first\n", None),
    ("Setext title\n===\n", None),  # only an ATX `#` line opens a note with its title
    ("## Second level\n", None),
    ("#NoSpace\n", None),
    ("", None),
])
def test_the_h1_title_is_an_atx_heading_opening_the_body(body: str, title: str | None) -> None:
    assert h1_title(parse_body(body)) == title
    assert parse(body).title == (title or "Note")


def test_the_parser_version_marks_the_change() -> None:
    """Notes sent by an older parser are sent again (hub/state.py Entry.matches)."""
    assert PARSER_VERSION == 4


# What hub/markdown.py matches without a second parse: the boundary as the front_matter
# rule found it, with the page's text blanked at "\r" (a lone "\r" is no line end).
_FRONT_PARSER = MarkdownIt("zero").use(front_matter_plugin).disable(["inline", "text_join"])
_OPENING = re.compile(r"\A---[ \t]*\n")


def _reference_split(text: str) -> tuple[str, int] | None:
    if not _OPENING.match(text):
        return None
    tokens = _FRONT_PARSER.parse(text.replace("\r", " "))
    if not tokens or tokens[0].type != "front_matter" or not tokens[0].map:
        raise ValueError("never closed")
    starts = [0]
    while len(starts) <= tokens[0].map[1]:
        newline = text.find("\n", starts[-1])
        starts.append(len(text) if newline < 0 else newline + 1)
    return text[starts[1]:starts[-2]].removesuffix("\n"), starts[-1]


_PAGE_LINE = st.sampled_from(["---", "----", " ---", "    ---", "\t---", "--- \t", "---x",
                              "- --", "...", " ...", "... ", "....", "a: 1", "", " ", "\r",
                              "---\r", "a\rb", "\u2028", "# h", "```", "\f"])


@given(st.lists(_PAGE_LINE, max_size=8), st.booleans())
def test_the_boundary_is_the_front_matter_rules(lines: list[str], ends_in_newline: bool) -> None:
    text = "\n".join(["---", *lines]) + ("\n" if ends_in_newline else "")
    try:
        expected: tuple[str, int] | str | None = _reference_split(text)
    except ValueError:
        expected = "never closed"
    try:
        split = frontmatter_split(text)
        found: tuple[str, int] | str | None = \
            None if split is None else (split.yaml, split.body_start)
    except ValueError:
        found = "never closed"
    assert found == expected


_REFERENCE_TAG = re.compile(r"(?<![\w/&#\]\)])#([\w\-/]*[^\W\d][\w\-/]*)")


@given(st.text(alphabet=st.sampled_from("ab1_-/#&])( .\n\u00e9\u0661"), max_size=40))
def test_the_tag_pattern_finds_what_its_lookbehind_first_form_did(text: str) -> None:
    assert _TAG.findall(text) == _REFERENCE_TAG.findall(text)

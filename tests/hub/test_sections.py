"""Sections from the Markdown parser: headings, fences, paths, sizes, and what gets
reported."""

from __future__ import annotations

import pytest

from hub.sections import heading_anchor, sections_of
from shared.api.limits import MAX_HEADING_CHARS
from shared.text.chunking import MAX_UNIT_CHARS

PARA = "Some words about it. " * 15  # ~315 characters


def texts(body: str) -> list[tuple[str, tuple[str, ...], str]]:
    return [(s.heading, s.path, body[s.start:s.end]) for s in sections_of(body).sections]


def test_headings_open_sections_with_their_path() -> None:
    body = f"Intro {PARA}\n\n# Garden\n{PARA}\n\n## Tomatoes\n{PARA}\n\n## Basil\n{PARA}\n" \
           f"\n# Kitchen\n{PARA}\n"
    found = texts(body)
    assert [(h, p) for h, p, _ in found] == [
        ("", ()), ("Garden", ("Garden",)), ("Tomatoes", ("Garden", "Tomatoes")),
        ("Basil", ("Garden", "Basil")), ("Kitchen", ("Kitchen",))]
    assert found[2][2].startswith("## Tomatoes")


def test_a_hash_line_in_a_code_fence_is_not_a_heading() -> None:
    body = f"# Real\n{PARA}\n\n```bash\n# install it\napt-get install x\n```\n\n{PARA}\n"
    assert [h for h, _, _ in texts(body)] == ["Real"]


def test_setext_headings_count() -> None:
    body = f"Shopping\n========\n{PARA}\n\nDone\n----\n{PARA}\n"
    assert [p for _, p, _ in texts(body)] == [("Shopping",), ("Shopping", "Done")]


def test_tiny_sections_join_the_one_before() -> None:
    body = f"# Recipe\n{PARA}\n\n## Note\nshort.\n\n## Steps\n{PARA}\n"
    found = texts(body)
    assert [h for h, _, _ in found] == ["Recipe", "Steps"]
    assert "## Note\nshort." in found[0][2]


def test_a_long_section_is_split_with_its_heading_kept() -> None:
    body = "# Deep\n" + "\n\n".join(f"Paragraph {i}. {PARA}" for i in range(20))
    result = sections_of(body)
    assert len(result.sections) > 3
    assert all(s.heading == "Deep" and s.end - s.start <= MAX_UNIT_CHARS
               for s in result.sections)
    assert result.warnings == []


def test_unclosed_fence_is_reported_and_still_sections() -> None:
    result = sections_of(f"# Setup\n{PARA}\n\n```python\nprint('never closed')\n# not a h\n")
    assert [s.heading for s in result.sections] == ["Setup"]
    assert any("never closed" in w for w in result.warnings)


# Fences Obsidian renders closed. Before, 28 notes of a real 577-note vault were warned
# about: a fence in a quote or callout, one ended by its list item, a form feed or lone
# carriage return above it (line numbers counted differently from the parser's).
CLOSED_FENCES = {
    "tildes": "# A\n~~~\ncode\n~~~\n",
    "a longer fence holding a shorter one": "# A\n````\n```\ninner\n```\n````\n",
    "closed by a longer run": "# A\n```\ncode\n`````\n",
    "in a list item": "- item\n  ```\n  code\n  ```\n- next\n",
    "in a list item, at the end": "- item\n  ```\n  code\n  ```\n",
    "in a quote": "> quote\n> ```\n> code\n> ```\n",
    "in a callout, then text": "> [!note]\n> ```\n> code\n> ```\n\nafter\n",
    "in a nested quote": "> > ```\n> > code\n> > ```\n",
    "ended by its list item": "- item\n  ```\n  code\n\nafter the list\n",
    "indented code, not a fence": "text\n\n    ```\n    not a fence\n",
    "after a form feed": "page one\x0cstill line one\n\n```\ncode\n```\n",
    "after a lone carriage return": "one\rtwo\n\n```\ncode\n```\n",
    "after a line separator": "one\u2028two\n\n```\ncode\n```\n",
}
OPEN_FENCES = {
    "to the end": "# A\n```\ncode\n# not a heading\n",
    "an info string does not close": "# A\n```\ncode\n```python\n",
    "a shorter run does not close": "# A\n````\ncode\n```\n",
    "another marker does not close": "# A\n~~~\ncode\n```\n",
    "the opening line alone": "# A\n```",
    "in a quote, to the end": "> ```\n> code\n",
}


@pytest.mark.parametrize("body", CLOSED_FENCES.values(), ids=CLOSED_FENCES.keys())
def test_fences_obsidian_closes_are_not_reported(body: str) -> None:
    assert not [w for w in sections_of(body).warnings if "fence" in w]


@pytest.mark.parametrize("body", OPEN_FENCES.values(), ids=OPEN_FENCES.keys())
def test_fences_left_open_are_reported(body: str) -> None:
    assert [w for w in sections_of(body).warnings if "never closed" in w]


def test_a_300_character_heading_is_cut_and_reported() -> None:
    result = sections_of("# " + "long " * 60 + "\n" + PARA)
    assert len(result.sections[0].heading) <= MAX_HEADING_CHARS
    assert any("300" in w or "characters" in w for w in result.warnings)


def test_a_note_of_nothing_but_headings_is_reported() -> None:
    result = sections_of("# One\n## Two\n### Three\n")
    assert result.sections and any("no text" in w for w in result.warnings)


def test_a_one_megabyte_paragraph_is_cut_and_reported() -> None:
    result = sections_of("word " * 200_000)
    assert 600 < len(result.sections) < 1_000
    assert any("paragraph" in w for w in result.warnings)


def test_empty_body_has_no_sections() -> None:
    assert sections_of("").sections == [] and sections_of("\n\n  \n").sections == []


def test_heading_anchor_drops_link_syntax() -> None:
    assert heading_anchor("See [[Other#Part|alias]] ^block") == "See Other Part alias block"

"""A note's sections, from a Markdown parser (markdown-it-py, CommonMark): headings,
code fences and their boundaries come from the parser, so a `#` line inside a code fence
is never a heading (the frontmatter is split off before, hub/notes.py).

Each heading opens a section that runs to the next heading; text before the first heading
is a section with no heading. A section carries its heading path (top level first) and is
a [start, end) span of the body. Sections longer than shared.text.chunking.MAX_UNIT_CHARS are
split at paragraph boundaries with a little overlap; a tiny one joins the section before
it. What could not be split cleanly is reported as a warning; the note still syncs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from hub.markdown import parse_body
from shared.api.limits import MAX_HEADING_CHARS, MAX_SECTIONS
from shared.text.chunking import MAX_UNIT_CHARS, MIN_UNIT_CHARS, split_spans

# Characters Obsidian does not keep in a heading link ([[Note#Heading]]).
_LINK_UNSAFE = re.compile(r"\[\[|\]\]|[|^#]")
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Section:
    heading: str  # the nearest heading's text ("" before the first heading)
    path: tuple[str, ...]  # headings from the top level down to this one
    start: int  # [start, end) offsets into the note's body
    end: int


@dataclass
class Sectioned:
    sections: list[Section] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# Line ends as the parser counts them (markdown-it normalises "\r\n" and a lone "\r" to
# "\n"; str.splitlines also splits at form feeds and U+2028, which would shift every line
# number after one: a fence closed on its line read as never closed).
_LINE_END = re.compile(r"\r\n?|\n")


def _line_starts(body: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_END.finditer(body))]


def _lines(body: str) -> list[str]:
    return _LINE_END.split(body)


def heading_anchor(text: str) -> str:
    """A heading as Obsidian links to it: no [[ ]] | ^ # characters, spaces collapsed."""
    return " ".join(_LINK_UNSAFE.sub(" ", text).split())


def _headings(body: str, tokens: list[Token], report: list[str]
              ) -> list[tuple[int, str, int]]:
    """(level, text, first line) of every heading, in order."""
    lines: list[str] | None = None  # split only for a fence's check
    found = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            text = heading_anchor(tokens[i + 1].content if i + 1 < len(tokens) else "")
            if len(text) > MAX_HEADING_CHARS:
                report.append(f"a heading on line {token.map[0] + 1} is {len(text)} "
                              f"characters; it is cut to {MAX_HEADING_CHARS} in links")
                text = text[:MAX_HEADING_CHARS].rstrip()
            found.append((int(token.tag[1:]), text, token.map[0]))
        elif token.type == "fence" and token.map \
                and _open(token.markup, token.map, lines := lines or _lines(body)):
            report.append(f"the code fence opened on line {token.map[0] + 1} is never "
                          "closed: the rest of the note is read as code")
    return found


# A closing fence: up to three spaces, the marker run, nothing but spaces after (CommonMark
# 4.5), behind the markers of the block quotes and list items it sits in.
_CONTAINER_PREFIX = re.compile(r"^(?:[ \t]*>)*[ \t]*")


def _open(markup: str, span: list[int], lines: list[str]) -> bool:
    """Whether a fence runs unclosed to the end of the note. It is closed when the note
    goes on after it (a closing line, or the end of the list item or quote it sits in,
    ended it), or when its last line is a run of at least as many of its marker (``` or
    ~~~, 3 or more) and nothing else."""
    start, end = span
    if any(line.strip() for line in lines[end:]):
        return False
    last = end - 1
    if last <= start:
        return True  # nothing after the opening line
    closing = _CONTAINER_PREFIX.sub("", lines[min(last, len(lines) - 1)], count=1).rstrip()
    return not (len(closing) >= len(markup) and set(closing) == {markup[0]})


def _raw_sections(body: str, tokens: list[Token], report: list[str]) -> list[Section]:
    headings = _headings(body, tokens, report)
    starts = _line_starts(body) if headings else []
    bounds = [starts[line] for _, _, line in headings] + [len(body)]
    sections = [Section("", (), 0, bounds[0])] if bounds[0] > 0 else []
    path: list[tuple[int, str]] = []
    for (level, text, _), start, end in zip(headings, bounds, bounds[1:], strict=False):
        path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, text)]
        sections.append(Section(text, tuple(t for _, t in path), start, end))
    return [s for s in sections if body[s.start:s.end].strip()]


def _content_chars(body: str, section: Section) -> int:
    """Characters under the heading (the heading line itself not counted)."""
    text = body[section.start:section.end]
    if section.heading:
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return len(text.strip())


def _merged(body: str, sections: list[Section]) -> list[Section]:
    """A tiny section joins the one before it while that stays within the unit size."""
    merged: list[Section] = []
    for section in sections:
        previous = merged[-1] if merged else None
        if previous and _content_chars(body, section) < MIN_UNIT_CHARS \
                and section.end - previous.start <= MAX_UNIT_CHARS:
            merged[-1] = Section(previous.heading, previous.path, previous.start, section.end)
        else:
            merged.append(section)
    return merged


def sections_of(body: str, tokens: list[Token] | None = None) -> Sectioned:
    """`tokens`: the body as hub/markdown.py parsed it (parsed here when not given)."""
    result = Sectioned()
    raw = _raw_sections(body, parse_body(body) if tokens is None else tokens,
                        result.warnings)
    if raw and all(_content_chars(body, s) == 0 for s in raw):
        result.warnings.append("the note holds headings and no text under any of them")
    for section in _merged(body, raw):
        spans = split_spans(body, section.start, section.end)
        if len(spans) > 1 and not _PARAGRAPH.search(body, section.start, section.end):
            result.warnings.append(
                f"a {section.end - section.start:,}-character paragraph"
                f"{' under ' + repr(section.heading) if section.heading else ''} was cut "
                f"into {len(spans)} parts at sentence or word boundaries")
        result.sections += [Section(section.heading, section.path, s, e) for s, e in spans]
    if len(result.sections) > MAX_SECTIONS:
        result.warnings.append(f"the note splits into {len(result.sections)} sections; only "
                               f"the first {MAX_SECTIONS} are searchable")
        result.sections = result.sections[:MAX_SECTIONS]
    return result

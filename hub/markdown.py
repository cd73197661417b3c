"""Reading a page with a Markdown parser (markdown-it-py, CommonMark): the frontmatter
boundary (mdit-py-plugins' front_matter rule), and from the body's token stream its tags
and its H1 title. Code (fenced, indented or inline) and raw HTML blocks are never read
for tags or a title: a `#tag` inside a code fence is not a tag.

The body's tokens are parsed once and shared with hub/sections.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

BODY_PARSER = MarkdownIt("commonmark")
# Only block structure is needed to find the boundary: inline parsing is switched off.
_FRONT_PARSER = MarkdownIt("zero").use(front_matter_plugin).disable(["inline", "text_join"])
# The frontmatter opens with exactly `---` on the first line (Obsidian's rule); the
# parser's rule alone would also open on `----` or `---text`.
_OPENING = re.compile(r"\A---[ \t]*\n")
# Obsidian tags: #word, nested with '/', at least one non-digit, not inside a word or URL.
_TAG = re.compile(r"(?<![\w/&#\]\)])#([\w\-/]*[^\W\d][\w\-/]*)")
# Inline tokens whose text is prose; everything else (code spans, raw HTML, images' alt
# text is prose too) separates the prose around it.
_PROSE = frozenset({"text", "softbreak", "hardbreak"})


@dataclass(frozen=True)
class FrontmatterSplit:
    yaml: str  # the frontmatter's text, without its --- lines
    body_start: int  # where the body begins in the page's text


def frontmatter_split(text: str) -> FrontmatterSplit | None:
    """Where the page's frontmatter ends, or None when it has none. `text` has "\\n" line
    ends. Raises ValueError when the frontmatter is never closed."""
    if not _OPENING.match(text):
        return None
    # markdown-it reads a lone "\r" as a line end, Obsidian (and Python's split) does not:
    # blank it so that line numbers count "\n" only (same length, same offsets).
    tokens = _FRONT_PARSER.parse(text.replace("\r", " "))
    if not tokens or tokens[0].type != "front_matter" or not tokens[0].map:
        raise ValueError("frontmatter starts with '---' but is never closed")
    starts = _line_starts(text, tokens[0].map[1])
    yaml = text[starts[1]:starts[-2]].removesuffix("\n")  # between the two --- lines
    return FrontmatterSplit(yaml=yaml, body_start=starts[-1])


def _line_starts(text: str, lines: int) -> list[int]:
    """Offsets where lines 0..lines start (the last: where line `lines` would start)."""
    starts = [0]
    while len(starts) <= lines:
        newline = text.find("\n", starts[-1])
        starts.append(len(text) if newline < 0 else newline + 1)
    return starts


def parse_body(body: str) -> list[Token]:
    return BODY_PARSER.parse(body)


def _prose_runs(tokens: list[Token]) -> list[str]:
    """The body's prose, one string per run of text not interrupted by code or HTML."""
    runs: list[str] = []
    for token in tokens:
        if token.type != "inline":
            continue
        run: list[str] = []
        for child in token.children or []:
            if child.type in _PROSE:
                run.append(child.content if child.type == "text" else "\n")
            else:
                run.append(" ")  # a code span or markup: no tag runs across it
        runs.append("".join(run))
    return runs


def body_tags(tokens: list[Token]) -> list[str]:
    return [tag for run in _prose_runs(tokens) for tag in _TAG.findall(run)]


def h1_title(tokens: list[Token]) -> str | None:
    """The text of an ATX `# Heading` that opens the body, if it does."""
    if len(tokens) < 2 or tokens[0].type != "heading_open":
        return None
    first = tokens[0]
    if first.tag != "h1" or first.markup != "#":
        return None
    title = tokens[1].content.strip()
    return title or None

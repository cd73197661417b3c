"""Reading a page: its frontmatter boundary (the lines mdit-py-plugins' front_matter rule
closes it on), and from the body's token stream (markdown-it-py, CommonMark) its tags and
its H1 title. Code (fenced, indented or inline) and raw HTML blocks are never read for
tags or a title: a `#tag` inside a code fence is not a tag.

The body's tokens are parsed once and shared with hub/sections.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

BODY_PARSER = MarkdownIt("commonmark")
# The frontmatter opens with exactly `---` on the first line (Obsidian's rule); the
# parser's rule alone would also open on `----` or `---text`.
_OPENING = re.compile(r"\A---[ \t]*\n")
# The line that closes it, as the front_matter rule reads lines after that opening (with
# no code-block rule, indentation does not matter): three or more dashes, or YAML's
# document end `...` at the line's start, then only spaces or tabs. Matching the rule
# here saves a second parse of every page.
_CLOSING = re.compile(r"^(?:[ \t]*-{3,}|\.\.\.)[ \t]*$", re.MULTILINE)
# Obsidian tags: #word, nested with '/', at least one non-digit, not inside a word or URL.
# The `#` comes first so that the regex engine scans for it (a pattern opening with a
# lookbehind is tried at every position); the lookbehind then checks the character before.
_TAG = re.compile(r"#(?<![\w/&#\]\)]#)([\w\-/]*[^\W\d][\w\-/]*)")
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
    opening = _OPENING.match(text)
    if opening is None:
        return None
    # A lone "\r" is no line end (Obsidian's and Python's reading; markdown-it's was, so
    # the rule was given the page with it blanked): it counts as a space.
    closing = _CLOSING.search(text.replace("\r", " "), opening.end())
    if closing is None:
        raise ValueError("frontmatter starts with '---' but is never closed")
    yaml = text[opening.end():closing.start()].removesuffix("\n")  # between the --- lines
    return FrontmatterSplit(yaml=yaml, body_start=min(closing.end() + 1, len(text)))


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

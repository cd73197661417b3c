"""Links, snippets and citations: what turns a hit into a footer source.

- `note_href` / `message_href`: the two link forms of docs/design.md ("Links").
- `guard_citations`: keeps only [n] markers that point at an injected hit.
- `strip_citations`: removes every [n] marker (from past answers before they are recalled).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from urllib.parse import quote

from shared.api.wire import Source

# encodeURIComponent leaves A-Z a-z 0-9 and - _ . ! ~ * ' ( ) unescaped.
_URI_COMPONENT_SAFE = "-_.!~*'()"
_SPACES = re.compile(r"\s+")
# One marker: [3] or [1, 2].
_MARKER = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# A run of markers ("[1][7]", "[2, 9][3]"), read as a whole: a marker right after another
# is a citation too. Whether a run is one depends on what precedes it (_is_citation).
_CITATION_RUN = re.compile(r"(?:\[\d{1,3}(?:\s*,\s*\d{1,3})*\])+")


def _is_citation(text: str, run: re.Match[str]) -> bool:
    """Not an index into code (arr[3], m[i][3], x[1][2]: a chain of [...] right after a
    word) and not a wiki link ([[3]]); anything else is a citation, "][7]" and
    "[[Note]][7]" included."""
    start = run.start()
    if text[start - 1:start] == "[" and text[run.end():run.end() + 1] == "]":
        return False
    while text[start - 1:start] == "]":
        opening = text.rfind("[", 0, start - 1)
        if opening < 0:
            break
        start = opening
    before = text[start - 1:start]
    return not (before.isalnum() or before == "_")


def _sub_citations(text: str, replace: Callable[[re.Match[str]], str]) -> tuple[str, int]:
    found = 0

    def each(run: re.Match[str]) -> str:
        nonlocal found
        if not _is_citation(text, run):
            return run.group(0)
        found += 1
        return replace(run)

    return _CITATION_RUN.sub(each, text), found


# What encodeURIComponent writes for each ASCII character it escapes.
_ASCII_ESCAPES = {c: f"%{c:02X}" for c in range(128)
                  if not (chr(c).isalnum() or chr(c) in _URI_COMPONENT_SAFE)}


def encode_uri_component(value: str) -> str:
    if value.isascii():
        # One C-level pass, the same text as quote() (recall links every note row it
        # reads; quote() was 5% of its Python time at 100k messages, bench.latency).
        return value.translate(_ASCII_ESCAPES)
    return quote(value, safe=_URI_COMPONENT_SAFE)


# Cached: recall makes a candidate, link included, of every row it reads (~40 note
# sections per query), and the same notes come back query after query (bench.latency).
@lru_cache(maxsize=4_096)
def note_href(vault: str, path: str, heading: str = "", block: str = "") -> str:
    """obsidian://open for a note, or for a heading in it (docs/design.md, "Links": the file
    value is
    the path without .md, then %23 and the heading, each part encoded on its own), or for
    a block in it (%23%5E and the block id; shared/text/block_ids.py)."""
    file = path[:-3] if path.lower().endswith(".md") else path
    target = f"^{block}" if block else heading
    anchor = f"%23{encode_uri_component(target)}" if target else ""
    return (f"obsidian://open?vault={encode_uri_component(vault)}"
            f"&file={encode_uri_component(file)}{anchor}")


NOTE_HREF_PREFIX = "obsidian://open?vault="


def with_vault(href: str, vault: str) -> str:
    """A note_href pointing at the same file and heading in the vault now called `vault`
    (a stored answer's link after its vault was renamed); any other href unchanged."""
    if not href.startswith(NOTE_HREF_PREFIX) or "&file=" not in href:
        return href
    return NOTE_HREF_PREFIX + encode_uri_component(vault) + href[href.index("&file="):]


def moved_to(href: str, vault: str, old_path: str, path: str) -> str:
    """A note_href for the note moved from `old_path` to `path` in `vault`, at the same
    heading or block as `href` (a stored answer's link after its note moved); an href that
    does not open `old_path` unchanged."""
    opened = note_href("", old_path)
    opened = opened[opened.index("&file="):]
    if not href.startswith(NOTE_HREF_PREFIX) or opened not in href:
        return href
    anchor = href[href.index(opened) + len(opened):]
    if anchor and not anchor.startswith("%23"):
        return href  # the stored link opens another file whose name starts the same
    return note_href(vault, path) + anchor


def message_href(message_id: str) -> str:
    return f"/?msg={encode_uri_component(message_id)}"


def shorten(text: str, limit: int) -> str:
    text = _SPACES.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(" ,.;:") + "…"


def guard_citations(answer: str, injected: Sequence[Source]) -> tuple[str, list[Source]]:
    """Drop citation markers that point at no injected hit; return the cited sources.

    The footer shows only what the answer cites: a source listed under an answer that did
    not use it would claim a provenance the answer does not have.
    """
    by_number = {s.n: s for s in injected}
    cited: dict[int, Source] = {}

    def replace(run: re.Match[str]) -> str:
        numbers = [int(n) for marker in _MARKER.finditer(run.group(0))
                   for n in re.split(r"\s*,\s*", marker.group(1))]
        kept = list(dict.fromkeys(n for n in numbers if n in by_number))
        for n in kept:
            cited.setdefault(n, by_number[n])
        return "".join(f"[{n}]" for n in kept)

    cleaned = _tidy(_sub_citations(answer, replace)[0])
    return cleaned, sorted(cited.values(), key=lambda s: s.n)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def strip_citations(text: str) -> str:
    """A past answer's text without its [n] markers: they numbered the hits of the turn
    it answered, and recalled into a new turn they could pass for citations of its hits.
    Text without a marker is returned as it is (the common case, at memchr speed)."""
    if "[" not in text:
        return text
    stripped, found = _sub_citations(text, lambda run: "")
    return _tidy(stripped) if found else text

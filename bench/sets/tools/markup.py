"""Source markup → Markdown, for building evaluation sets from packaged documentation.

Pure functions over text: DocBook HTML (debian-handbook), Mallard XML (gnome-user-docs)
and AsciiDoc (git-doc). The aim is readable Markdown that keeps the source's words and
heading structure; layout details (images, index anchors, navigation) are dropped.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

_BLOCK_TAGS = {"p", "div", "dt", "dd", "tr", "table", "blockquote", "ul", "ol", "dl"}
_SKIP_CLASSES = {"docnav", "indexterm"}
_SKIP_IDS = {"banner", "title"}


def tidy(text: str) -> str:
    """Collapse runs of blank lines and trailing spaces."""
    lines = [line.rstrip() for line in text.splitlines()]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return out + "\n"


class _DocBookHtml(HTMLParser):
    """Collects the text of a DocBook-generated HTML page as Markdown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.stack: list[tuple[str, bool]] = []  # (tag, skipping started here)
        self.in_pre = False
        self.title: str | None = None
        self._heading: list[str] | None = None
        self._heading_level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        starts_skip = bool(classes & _SKIP_CLASSES) or a.get("id") in _SKIP_IDS
        if tag in {"img", "br", "hr", "meta", "link", "input"}:
            if tag == "br" and not self.skip_depth:
                self.parts.append("\n")
            return
        self.stack.append((tag, starts_skip))
        if starts_skip:
            self.skip_depth += 1
        if self.skip_depth:
            return
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            self._heading, self._heading_level = [], int(tag[1])
        elif tag == "pre":
            self.in_pre = True
            self.parts.append("\n\n```\n")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")
        elif tag == "td" or tag == "th":
            self.parts.append(" | ")
        elif tag == "code" and not self.in_pre:
            self.parts.append("`")

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, started_skip = self.stack.pop()
            if started_skip:
                self.skip_depth -= 1
            if open_tag == tag:
                break
        if self.skip_depth:
            return
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"} and self._heading is not None:
            text = " ".join("".join(self._heading).split())
            text = re.sub(r"^(Chapter )?[\d.]+\.?\s+", "", text)
            if self.title is None:
                self.title = text
            else:
                level = max(2, min(6, self._heading_level - 1))
                self.parts.append(f"\n\n{'#' * level} {text}\n\n")
            self._heading = None
        elif tag == "pre":
            self.in_pre = False
            self.parts.append("\n```\n\n")
        elif tag == "code" and not self.in_pre:
            self.parts.append("`")
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self._heading is not None:
            self._heading.append(data)
            return
        if self.in_pre:
            self.parts.append(data)
        else:
            self.parts.append(re.sub(r"\s+", " ", data))


def docbook_html(page: str) -> tuple[str, str]:
    """(title, Markdown body) of one debian-handbook HTML page."""
    body = page[page.find("<body"):]
    parser = _DocBookHtml()
    parser.feed(body)
    text = "".join(parser.parts)
    text = re.sub(r"`\s*`", "", text)
    text = "\n".join(line.strip() if not line.startswith("    ") else line
                     for line in text.splitlines())
    return parser.title or "", tidy(text)


_M = "{http://projectmallard.org/1.0/}"
_IF = "{http://projectmallard.org/if/1.0/}"
_UI = "{http://projectmallard.org/ui/1.0/}"


def _inner(el: ET.Element) -> str:
    """Text of an inline Mallard element and its children (not its tail)."""
    if el.tag in {f"{_M}media", f"{_M}info", f"{_IF}when"}:
        return ""
    if el.tag == f"{_M}keyseq":
        return "+".join(k for k in (_inline_text(k) for k in el) if k)
    text = (el.text or "") + "".join(_inner(child) + (child.tail or "") for child in el)
    if el.tag in {f"{_M}cmd", f"{_M}code", f"{_M}file", f"{_M}input", f"{_M}sys"}:
        text = f"`{' '.join(text.split())}`"
    elif el.tag in {f"{_M}gui", f"{_M}guiseq"}:
        text = text.strip()
    return text


def _inline_text(el: ET.Element) -> str:
    return " ".join(_inner(el).split())


def _blocks(el: ET.Element, depth: int, out: list[str], bullet: str = "") -> None:
    for child in el:
        tag = child.tag
        if tag in {f"{_M}info", f"{_M}media", f"{_M}links", f"{_IF}when"} or \
                tag.startswith(_UI):
            continue
        if tag == f"{_M}title":
            if depth > 1:
                out.append(f"\n{'#' * min(depth, 6)} {_inline_text(child)}\n")
        elif tag == f"{_M}p":
            out.append(f"{bullet}{_inline_text(child)}\n")
            bullet = "  " if bullet else ""
        elif tag in {f"{_M}code", f"{_M}screen"}:
            out.append("```\n" + "".join(child.itertext()).strip("\n") + "\n```\n")
        elif tag == f"{_M}section":
            _blocks(child, depth + 1, out)
        elif tag in {f"{_M}steps", f"{_M}list", f"{_M}terms", f"{_M}tree"}:
            numbered = tag == f"{_M}steps"
            n = 0
            for item in child:
                if item.tag == f"{_M}title":
                    out.append(f"**{_inline_text(item)}**\n")
                elif item.tag == f"{_M}item":
                    n += 1
                    mark = f"{n}. " if numbered else "- "
                    _blocks(item, depth, out, bullet=mark)
        elif tag == f"{_M}item":
            _blocks(child, depth, out, bullet=bullet or "- ")
        elif tag in {f"{_M}note", f"{_M}example", f"{_M}quote", f"{_M}synopsis",
                     f"{_IF}choose", f"{_IF}else", f"{_M}comment"}:
            if tag != f"{_M}comment":
                _blocks(child, depth, out, bullet)
        elif tag == f"{_M}table":
            for row in child.iter(f"{_M}tr"):
                cells = [" ".join("".join(c.itertext()).split()) for c in row]
                out.append("| " + " | ".join(cells) + " |\n")
        elif tag == f"{_M}figure":
            continue
        else:
            text = _inline_text(child)
            if text:
                out.append(f"{bullet}{text}\n")


def mallard(page: str) -> tuple[str, str, str]:
    """(title, description, Markdown body) of one Mallard page."""
    root = ET.fromstring(page)
    title_el = root.find(f"{_M}title")
    title = _inline_text(title_el) if title_el is not None else ""
    desc_el = root.find(f"{_M}info/{_M}desc")
    desc = _inline_text(desc_el) if desc_el is not None else ""
    out: list[str] = []
    _blocks(root, 1, out)
    return title, desc, tidy("\n".join(out))


_ADOC_UNDERLINE = {"=": 1, "-": 2, "~": 3, "^": 4}


def asciidoc(text: str) -> tuple[str, str]:
    """(title, Markdown body) of a git-doc AsciiDoc text: underlined titles become
    headings, '----' delimited listings become fenced code; mail headers are kept."""
    lines = text.splitlines()
    out: list[str] = []
    title = ""
    in_code = False
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if re.fullmatch(r"-{4,}|\.{4,}", line.strip()):
            out.append("```")
            in_code = not in_code
            i += 1
            continue
        if not in_code and line.strip() and nxt and len(set(nxt.strip())) == 1 \
                and nxt.strip()[0] in _ADOC_UNDERLINE \
                and abs(len(nxt.strip()) - len(line.strip())) <= 2:
            level = _ADOC_UNDERLINE[nxt.strip()[0]]
            if not title and level == 1:
                title = line.strip()
            else:
                out.append(f"\n{'#' * (level + 1)} {line.strip()}\n")
            i += 2
            continue
        if not in_code and re.fullmatch(r"\[\[[\w-]+\]\]", line.strip()):
            i += 1  # an AsciiDoc anchor; in Obsidian it would read as a wikilink
            continue
        out.append(html.unescape(line))
        i += 1
    if not title:
        subject = re.search(r"^Subject: (?:Re: )?(.+)$", text, re.MULTILINE)
        title = subject.group(1).strip() if subject else ""
    return title, tidy("\n".join(out))

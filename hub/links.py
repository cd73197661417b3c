"""Links between pages: what a body links to, and how a link's text names a page.

- `body_links`: the targets of a body's `[[wikilinks]]` (embeds `![[…]]` too) and
  `[Markdown](links.md)`, as written, skipping code fences and inline code, external URLs
  (any `scheme:`) and links to a heading of the same page (`#…`).
- `normal_target`: a link's text as a page name: `[[` `]]`, an `|alias` and a `#heading`
  or `^block` fragment dropped, percent-escapes decoded, `.md` dropped, slashes trimmed.
- `VaultIndex.resolve`: the page a name means, the way Obsidian resolves it — relative to
  the linking page for `./` and `../`, else the vault path, else a path beside the linking
  page, else the only page of that file name (or path suffix), case-insensitively.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# An embed's `!` is not matched: the target is the same, and a pattern opening with a
# literal is found by the regex engine's fast scan.
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_FRAGMENT = re.compile(r"[#^].*$")


def without_code(body: str) -> str:
    # Each pattern is run only on a body that holds its markers (most hold none).
    if "```" in body or "~~~" in body:
        body = _FENCE.sub(" ", body)
    return _INLINE_CODE.sub(" ", body) if "`" in body else body


def body_links(body: str) -> list[str]:
    if "[" not in body:
        return []
    text = without_code(body)
    found = [m.group(1) for m in _WIKILINK.finditer(text)]
    for m in _MDLINK.finditer(text):
        url = m.group(1).strip("<>")
        if not _SCHEME.match(url) and not url.startswith("#"):
            found.append(url)
    return found


def normal_target(text: str) -> str:
    """A link's or a relation target's page name (see the module docstring)."""
    name = text.strip()
    if name.startswith("[[") and name.endswith("]]"):
        name = name[2:-2]
    name = name.split("|", 1)[0]
    name = _FRAGMENT.sub("", name)
    name = unquote(name).strip()
    if name.lower().endswith(".md"):
        name = name[:-3]
    return name.strip("/").strip()


def _stem(path: str) -> str:
    return posixpath.basename(path)[:-3] if path.lower().endswith(".md") else path


@dataclass
class VaultIndex:
    """Every page of a vault (vault-relative `.md` paths), for resolving names."""

    paths: frozenset[str]
    _by_path: dict[str, str] = field(default_factory=dict)
    _by_name: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, paths: Iterable[str]) -> VaultIndex:
        index = cls(frozenset(paths))
        for path in sorted(index.paths):
            index._by_path[path[:-3].lower()] = path
            index._by_name[_stem(path).lower()].append(path)
        return index

    def candidates(self, name: str, from_path: str = "") -> list[str]:
        """Every page `name` could mean from `from_path` (one: resolved; several:
        ambiguous; none: missing)."""
        if not name:
            return []
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), name))
        if name.startswith(("./", "../")):
            hit = self._by_path.get(relative.lower())
            return [hit] if hit else []
        key = name.lower()
        for form in (key, relative.lower()):  # vault path, then beside the linking page
            if form in self._by_path:
                return [self._by_path[form]]
        if "/" not in key:
            return list(self._by_name.get(key, []))
        suffix = "/" + key
        return [p for k, p in self._by_path.items() if k.endswith(suffix)]

    def resolve(self, name: str, from_path: str = "") -> str | None:
        found = self.candidates(name, from_path)
        return found[0] if len(found) == 1 else None

    def names(self) -> list[str]:
        """What "did you mean" chooses from: every page's path without .md."""
        return sorted(p[:-3] for p in self.paths)

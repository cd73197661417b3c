"""Vault parsing and validation: a Markdown file's bytes → a NoteUpsert, or a Rejection.

Parsing is pure (hub/reading.py reads the file); every failure is a Rejection with the
path and a reason, and never affects any other page.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import PurePosixPath
from typing import Any

import yaml
from markdown_it.token import Token
from pydantic import ValidationError

from hub.knowledge import PageKnowledge, page_knowledge
from hub.markdown import body_tags, frontmatter_split, h1_title, parse_body
from hub.sections import sections_of
from shared.api.limits import MAX_NOTE_BODY_BYTES, MAX_PROPERTIES_CHARS
from shared.api.sync_payload import PATH_SEPARATOR, NoteUpsert, SectionSpan
from shared.time.note_dates import DATE_KEYS, name_day

# Frontmatter may add a little to the body limit; the body itself is checked by NoteUpsert.
MAX_FILE_BYTES = MAX_NOTE_BODY_BYTES + 64_000
# YAML reads "0001-01-01" too; a year before this is a typo rather than a note's date.
MIN_STATED_YEAR = 1000


@dataclass(frozen=True)
class Rejection:
    path: str
    reason: str


@dataclass(frozen=True)
class Parsed:
    """A page as the hub sends it, and its knowledge metadata as read before the rest of
    the vault is known (its relations are resolved by hub/lint.py)."""

    note: NoteUpsert
    knowledge: PageKnowledge


# libyaml's scanner and parser under PyYAML's safe constructor: the same values as
# yaml.safe_load, which spent most of a page's parse in pure-Python scanning (bench.sync's
# parse floor); PyYAML's wheels ship it, a build without libyaml falls back.
SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _loaded(text: str) -> Any:
    """The YAML's value through libyaml; a document it refuses is read again by the pure
    loader, whose error names the line and problem as the owner sees them (libyaml's
    mark is where it noticed, often the line after)."""
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body); `text` has "\\n" line ends. Raises ValueError for
    broken or unclosed YAML. The boundary comes from the parser (hub/markdown.py)."""
    split = frontmatter_split(text)
    if split is None:
        return {}, text
    try:
        data = _loaded(split.yaml) if split.yaml.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"broken YAML frontmatter{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError("frontmatter must be a YAML mapping (key: value lines)")
    return data, text[split.body_start:]


def _strings(value: Any) -> list[str]:
    """A frontmatter list field given as a list, or as a comma/space separated string."""
    if value is None:
        return []
    items = value if isinstance(value, list) else re.split(r"[,\s]+", str(value))
    return [str(v).strip() for v in items if v is not None and str(v).strip()]


def _to_ms(value: Any) -> int | None:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, date):
        moment = datetime.combine(value, time(12), tzinfo=UTC)
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    else:
        return None
    return int(moment.timestamp() * 1000)


def note_date(name: str, frontmatter: dict[str, Any], mtime_ms: int) -> int:
    """The date recency uses: a date in the file name (daily notes), else frontmatter
    `updated` or `date`, else the file's mtime."""
    day = name_day(name)
    if day:
        return int(datetime.combine(day, time(12), tzinfo=UTC).timestamp() * 1000)
    for key in ("updated", "modified", "date", "created"):
        ms = _to_ms(frontmatter.get(key))
        if ms is not None and ms >= 0:
            return ms
    return mtime_ms


def stated_dates(frontmatter: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The dates a note's frontmatter states (shared/time/note_dates.py), as the sync payload
    carries them: days (a date, or a date and time with no zone: the owner's own clock)
    and instants (a date and time with a zone, in UTC ms). Unreadable values are skipped,
    like any other property the hub does not understand."""
    days: set[str] = set()
    times: set[int] = set()
    for key in DATE_KEYS:
        value = frontmatter.get(key)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                continue
        if isinstance(value, datetime) and value.tzinfo is not None:
            ms = int(value.timestamp() * 1000)
            if ms >= 0:
                times.add(ms)
        elif isinstance(value, date):  # a date, or a datetime with no zone
            day = value.date() if isinstance(value, datetime) else value
            if day.year >= MIN_STATED_YEAR:
                days.add(day.isoformat())
    return sorted(days), sorted(times)


# Frontmatter keys with a column of their own, or that only style or publish a page.
_OWN_KEYS = {"title", "tags", "tag", "aliases", "alias", "type", "status", "role", "relations",
             "date", "updated", "modified", "created", "cssclass", "cssclasses", "publish",
             "permalink"}


def _flatten(value: Any) -> list[Any]:
    """Lists flattened: an unquoted `project: [[Kitchen]]` is YAML for [["Kitchen"]]."""
    if isinstance(value, list):
        return [item for v in value for item in _flatten(v)]
    return [value]


def properties_text(frontmatter: dict[str, Any]) -> str:
    """Every other property as "key: value" lines (lists joined), so that an author, a
    description or a project named in frontmatter is searchable."""
    lines = []
    for key, value in frontmatter.items():
        if str(key).lower() in _OWN_KEYS:
            continue
        flat = [str(v) for v in _flatten(value)
                if isinstance(v, str | int | float | date) and not isinstance(v, bool)]
        if flat:
            lines.append(f"{key}: {', '.join(flat)}")
    return "\n".join(lines)[:MAX_PROPERTIES_CHARS]


def _title(frontmatter: dict[str, Any], h1: str | None, stem: str) -> str:
    title = frontmatter.get("title")
    if isinstance(title, str | int | float) and str(title).strip():
        return " ".join(str(title).split())
    return h1 or stem


def section_spans(body: str, tokens: list[Token] | None = None
                  ) -> tuple[list[SectionSpan], list[str]]:
    """The body's sections as the sync payload carries them, and what could not be split
    cleanly (hub/sections.py). `tokens`: the body already parsed (hub/markdown.py)."""
    found = sections_of(body, tokens)
    spans = [SectionSpan(s=s.start, e=s.end, h=s.heading, p=PATH_SEPARATOR.join(s.path),
                         x=hashlib.sha256(body[s.start:s.end].encode("utf-8", "surrogatepass"))
                         .hexdigest()[:16])
             for s in found.sections]
    return spans, found.warnings


def parse_note(rel_path: str, raw: bytes, mtime_ms: int) -> NoteUpsert | Rejection:
    """Parse one vault page (its relations unresolved); never raises."""
    parsed = parse_page(rel_path, raw, mtime_ms)
    return parsed.note if isinstance(parsed, Parsed) else parsed


def parse_page(rel_path: str, raw: bytes, mtime_ms: int) -> Parsed | Rejection:
    """Parse one vault page; never raises."""
    if len(raw) > MAX_FILE_BYTES:
        return Rejection(rel_path, f"file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")
    if b"\x00" in raw:
        return Rejection(rel_path, "binary file (contains NUL bytes), not a Markdown page")
    try:
        text = raw.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        return Rejection(rel_path, f"not UTF-8 (byte {exc.start}): re-save the file as UTF-8")
    try:
        frontmatter, body = split_frontmatter(text)
    except ValueError as exc:
        return Rejection(rel_path, str(exc))
    stem = PurePosixPath(rel_path).stem
    tags = _strings(frontmatter.get("tags", frontmatter.get("tag")))
    tokens = parse_body(body)
    tags += body_tags(tokens)
    tags = list(dict.fromkeys(t.lstrip("#") for t in tags if t.lstrip("#")))
    aliases = _strings(frontmatter.get("aliases", frontmatter.get("alias")))
    if isinstance(frontmatter.get("aliases"), str):  # one alias may contain spaces
        aliases = [frontmatter["aliases"].strip()]
    knowledge = page_knowledge(rel_path, frontmatter, body)
    days, times = stated_dates(frontmatter)
    try:
        sections, warnings = section_spans(body, tokens)
        note = NoteUpsert(
            path=rel_path, title=_title(frontmatter, h1_title(tokens), stem),
            aliases=aliases, tags=tags,
            type=str(frontmatter["type"]) if frontmatter.get("type") is not None else None,
            status=knowledge.status, role=knowledge.role,
            properties=properties_text(frontmatter), body=body, mtime=mtime_ms,
            note_date=note_date(stem, frontmatter, mtime_ms),
            content_hash=content_hash(raw), sections=sections, days=days, times=times)
        note.warnings.extend(warnings)
        return Parsed(note, knowledge)
    except ValidationError as exc:
        reasons = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                            for e in exc.errors(include_url=False))
        return Rejection(rel_path, reasons)

"""A note's dates, as time-aware recall filters on them (pure; migrations/0007).

A note is dated by every date it states: a date in its file name (daily notes
`2026-10-02.md`) and its frontmatter `date`, `created`, `updated`, `modified`. Only a note
that states none is dated by its file time (`note_date`, which is then the mtime): a file
time says when the file was last touched, which a sync, a checkout or a bulk edit moves.

Two kinds of date, kept apart because they compare differently with a span of days:
- a day (no time of day: "2026-10-02", a YAML date, a datetime with no zone) is that day
  of the owner's calendar wherever the owner is: stored as a day number;
- an instant (a datetime with a zone, a file time) is a moment: stored as UTC ms, and in
  a span when it falls between the span's first and last midnight in the owner's zone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date

from shared.time.days import day_number

_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
# Frontmatter keys that date a note (hub/notes.py reads them).
DATE_KEYS = ("date", "created", "updated", "modified")
MAX_NOTE_DATES = 8  # a file-name date and the four keys, with room to spare


def name_day(path: str) -> date | None:
    """The date in a note's file name (a path or a bare name), if it holds a valid one."""
    name = path.rsplit("/", 1)[-1]
    match = _DATE_IN_NAME.search(name[:-3] if name.lower().endswith(".md") else name)
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def parse_day(value: str) -> date:
    """A "YYYY-MM-DD" string as a date; ValueError names what is wrong."""
    match = _ISO_DAY.match(value)
    if not match:
        raise ValueError(f"a day must be written YYYY-MM-DD, got {value[:40]!r}")
    return date(int(match[1]), int(match[2]), int(match[3]))


def dates_json(path: str, days: Iterable[str], times: Iterable[int], note_date: int) -> str:
    """The note's dates as vault_notes.dates holds them: [{"d": day number}, {"t": ms}]."""
    day_set = {parse_day(d) for d in days}
    found = name_day(path)
    if found:
        day_set.add(found)
    time_set = set(times)
    if not day_set and not time_set:
        time_set = {note_date}
    entries = [{"d": day_number(d)} for d in sorted(day_set)]
    entries += [{"t": t} for t in sorted(time_set)]
    return json.dumps(entries, separators=(",", ":"))

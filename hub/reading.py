"""Reading a page so that what is recorded as pushed is exactly what was read.

The file is opened once; its fstat before and after the read must agree (and the bytes
read must be the whole file), else the read is retried and, if the file keeps changing,
left for the next run. The page carries that stat: the hub records it next to the hash of
those bytes, never a stat taken later (which, before, hid edits made during a sync: 277 of
300 such edits stayed stale until `--full`).

File times are coarse (a jiffy on ext4, 2 s on FAT), so a file modified within RACY_NS of
being read could change again with the same size and time stamp; such a record is
"racy" and the next run reads the file again instead of trusting its stat (git's racily
clean entries).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hub.knowledge import PageKnowledge
from hub.notes import MAX_FILE_BYTES, Parsed, Rejection, parse_page
from shared.api.sync_payload import NoteUpsert

READ_ATTEMPTS = 3
RACY_NS = 2_000_000_000  # FAT's mtime resolution, the coarsest an Obsidian vault may sit on
NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class Unstable:
    """The file changed while it was being read, on every attempt."""

    path: str


@dataclass(frozen=True)
class Page:
    note: NoteUpsert
    mtime_ns: int  # the file's stat when the bytes were read
    size: int
    read_ns: int  # wall clock (ns) when the read began
    # Status, role, relation drafts and body links (hub/knowledge.py); resolved against
    # the vault by hub/lint.py. Empty for a page built without reading one.
    knowledge: PageKnowledge = field(default_factory=lambda: PageKnowledge(None, None))
    ctime_ns: int = -1  # the file's change time when read (hub/walk.py)


def settled(mtime_ns: int, read_ns: int) -> bool:
    """Was the file last modified well before it was read (its stat can be trusted)?"""
    return read_ns - mtime_ns >= RACY_NS


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_mtime_ns, a.st_size, a.st_ctime_ns) == (b.st_mtime_ns, b.st_size, b.st_ctime_ns)


def read_page(vault: Path, rel_path: str, now_ms: int,
              during: Callable[[], None] | None = None) -> Page | Rejection | Unstable:
    """Read and parse one page; never raises. `during` runs between the read and the
    second fstat (tests use it to change the file mid-read). A file time in the future is
    sent as `now_ms`: the Worker refuses times beyond its clock's skew allowance."""
    path = vault / rel_path
    for _ in range(READ_ATTEMPTS):
        read_ns = time.time_ns()
        try:
            with open(path, "rb") as handle:
                before = os.fstat(handle.fileno())
                if before.st_size > MAX_FILE_BYTES:
                    return Rejection(rel_path, f"file is {before.st_size} bytes; the limit is "
                                     f"{MAX_FILE_BYTES}")
                raw = handle.read(MAX_FILE_BYTES + 1)
                if during:
                    during()
                after = os.fstat(handle.fileno())
        except OSError as exc:
            return Rejection(rel_path, f"cannot read: {exc.strerror or exc}")
        if _same(before, after) and len(raw) == after.st_size:
            mtime_ms = min(after.st_mtime_ns // NS_PER_MS, now_ms)
            parsed = parse_page(rel_path, raw, mtime_ms)
            if not isinstance(parsed, Parsed):
                return parsed
            return Page(parsed.note, after.st_mtime_ns, after.st_size, read_ns,
                        parsed.knowledge, after.st_ctime_ns)
    return Unstable(rel_path)

"""Reading a page: the stat recorded is the stat of the bytes read; a file that changes
while being read is left for the next run; racy stats are not trusted."""

from __future__ import annotations

import os
from pathlib import Path

from hub.notes import MAX_FILE_BYTES, Rejection
from hub.reading import RACY_NS, READ_ATTEMPTS, Page, Unstable, read_page, settled

NOW = 1_780_000_000_000


def write(path: Path, text: str, mtime_s: int = 1_600_000_000) -> None:
    path.write_text(text)
    os.utime(path, (mtime_s, mtime_s))


def test_the_page_carries_the_stat_it_was_read_with(tmp_path: Path) -> None:
    write(tmp_path / "n.md", "hello")
    page = read_page(tmp_path, "n.md", NOW)
    assert isinstance(page, Page)
    assert (page.note.mtime, page.mtime_ns, page.size) == (1_600_000_000_000,
                                                           1_600_000_000 * 10**9, 5)
    assert page.read_ns > page.mtime_ns


def test_a_future_mtime_is_sent_as_now(tmp_path: Path) -> None:
    write(tmp_path / "n.md", "from a computer with a fast clock", mtime_s=NOW // 1000 + 3600)
    page = read_page(tmp_path, "n.md", NOW)
    assert isinstance(page, Page) and page.note.mtime == NOW == page.note.note_date
    assert page.mtime_ns == (NOW // 1000 + 3600) * 10**9  # the real stat is still recorded


def test_a_file_changing_during_the_read_is_retried(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    write(path, "first")
    edits = iter(["second", "third"])

    def edit_once() -> None:
        text = next(edits, None)
        if text:
            write(path, text, mtime_s=1_600_000_100)

    page = read_page(tmp_path, "n.md", NOW, during=edit_once)
    assert isinstance(page, Page)
    assert page.note.body == "third" and page.mtime_ns == 1_600_000_100 * 10**9


def test_a_file_that_keeps_changing_is_left_for_the_next_run(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    write(path, "start")
    count = iter(range(100))

    def keep_editing() -> None:
        n = next(count)
        write(path, f"version {n}", mtime_s=1_600_000_000 + n + 1)

    assert read_page(tmp_path, "n.md", NOW, during=keep_editing) == Unstable("n.md")
    assert next(count) == READ_ATTEMPTS


def test_unreadable_and_oversized_files_are_rejections(tmp_path: Path) -> None:
    assert isinstance(read_page(tmp_path, "missing.md", NOW), Rejection)
    (tmp_path / "big.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    big = read_page(tmp_path, "big.md", NOW)
    assert isinstance(big, Rejection) and "the limit is" in big.reason


def test_only_a_file_modified_well_before_its_read_is_settled() -> None:
    assert settled(0, RACY_NS)
    assert not settled(0, RACY_NS - 1)
    assert not settled(10 * RACY_NS, 0)  # an mtime in the future is never settled

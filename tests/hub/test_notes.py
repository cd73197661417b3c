"""Vault parsing, validation and walking."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from hub.markdown import frontmatter_split
from hub.notes import Rejection, parse_note, split_frontmatter
from hub.reading import Page, read_page
from hub.walk import walk_vault
from shared.api.limits import MAX_NOTE_BODY_BYTES
from shared.api.sync_payload import NoteUpsert
from tests.conftest import ROOT

MTIME = 1_700_000_000_000
NOW = 1_780_000_000_000


def parse(text: str | bytes, path: str = "Folder/Note.md") -> NoteUpsert | Rejection:
    raw = text.encode() if isinstance(text, str) else text
    return parse_note(path, raw, MTIME)


def parsed(text: str | bytes, path: str = "Folder/Note.md") -> NoteUpsert:
    """A page the test expects to be accepted."""
    result = parse(text, path)
    assert isinstance(result, NoteUpsert), result
    return result


def test_frontmatter_fields_and_body_tags() -> None:
    result = parse("---\ntitle: Trip plan\ntags: [travel, 'japan/kyoto']\naliases:\n  - Kyoto"
                   "\n  - 京都\ntype: project\nstatus: Stable\n---\nPack light. #packing and "
                   "#travel but not `#code` nor http://x.y/#anchor\n```\n#include <x>\n```\n")
    assert isinstance(result, NoteUpsert)
    assert result.title == "Trip plan"
    assert result.tags == ["travel", "japan/kyoto", "packing"]
    assert result.aliases == ["Kyoto", "京都"]
    assert (result.type, result.status) == ("project", "stable")
    assert result.body.startswith("Pack light.")
    assert len(result.content_hash) == 64


def test_other_properties_become_searchable_text() -> None:
    result = parsed("---\nauthor: Donella Meadows\nrating: 5\nproject: [[Kitchen]]\n"
                   "related: [a, b]\ncssclasses: [wide]\npublish: true\nnested: {x: 1}\n---\nbody")
    assert result.properties == "author: Donella Meadows\nrating: 5\nproject: Kitchen\n" \
        "related: a, b"


def test_title_falls_back_to_h1_then_file_name() -> None:
    assert parsed("# Real heading\n\ntext").title == "Real heading"
    assert parsed("just text").title == "Note"
    assert parsed("text\n# Not first\n").title == "Note"


def test_string_tags_and_single_alias() -> None:
    result = parsed("---\ntags: work, planning #q3 is a YAML comment\naliases: The Big One\n"
                   "---\nbody #inline")
    assert result.tags == ["work", "planning", "inline"]
    assert result.aliases == ["The Big One"]


@pytest.mark.parametrize(("path", "frontmatter", "expected"), [
    ("Daily/2026-03-14.md", "", datetime(2026, 3, 14, 12, tzinfo=UTC)),
    ("Note.md", "updated: 2025-01-02\ndate: 2024-01-01\n", datetime(2025, 1, 2, 12, tzinfo=UTC)),
    ("Note.md", "date: 2024-05-06T07:08:09Z\n", datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
    ("Note.md", "date: not a date\n", datetime.fromtimestamp(MTIME / 1000, UTC)),
    ("Note.md", "", datetime.fromtimestamp(MTIME / 1000, UTC)),
])
def test_note_date_for_recency(path: str, frontmatter: str, expected: datetime) -> None:
    text = f"---\n{frontmatter}---\nbody" if frontmatter else "body"
    result = parsed(text, path)
    assert result.note_date == int(expected.timestamp() * 1000)


@pytest.mark.parametrize(("raw", "reason"), [
    ("---\ntitle: [unclosed\n---\nbody", "broken YAML frontmatter"),
    ("---\ntitle: x\nbody without end", "never closed"),
    ("---\n- a list\n---\nbody", "must be a YAML mapping"),
    (b"caf\xe9 latin-1 text", "not UTF-8"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "binary file"),
    ("x" * (MAX_NOTE_BODY_BYTES + 70_000), "the limit is"),
    ("---\ntitle: " + "t" * 600 + "\n---\nbody", "title"),
])
def test_bad_pages_are_rejected_with_a_reason(raw: str | bytes, reason: str) -> None:
    result = parse(raw)
    assert isinstance(result, Rejection)
    assert reason in result.reason and result.path == "Folder/Note.md"


def test_bom_and_crlf_are_fine() -> None:
    result = parse("\ufeff---\r\ntitle: Windows note\r\n---\r\nbody\r\n".encode())
    assert isinstance(result, NoteUpsert) and result.title == "Windows note"


def test_walk_skips_hidden_and_excluded(tmp_path: Path) -> None:
    for rel in ["a.md", "Sub/b.md", ".obsidian/workspace.md", ".trash/old.md", ".git/x.md",
                "Templates/t.md", "Sub/.hidden.md", "image.png", "Sub/c.MD"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    paths = [f.path for f in walk_vault(tmp_path, exclude=["Templates/*"])]
    assert paths == ["a.md", "Sub/b.md", "Sub/c.MD"]


def test_demo_vault_parses_cleanly() -> None:
    root = ROOT / "examples" / "vault"
    files = list(walk_vault(root))
    assert len(files) >= 20
    pages = [read_page(root, f.path, NOW) for f in files]
    assert [p for p in pages if not isinstance(p, Page)] == []
    parsed = [p.note for p in pages if isinstance(p, Page)]
    assert any(p.path.startswith("Daily/") and p.tags == ["daily"] for p in parsed)


def test_stated_dates_become_days_and_instants() -> None:
    result = parse("---\ndate: 2026-10-02\ncreated: 2026-03-14 09:30\n"
                   "updated: 2026-11-20T18:00:00+01:00\nmodified: not a date\n---\nBody\n",
                   path="Journal/Notes.md")
    assert isinstance(result, NoteUpsert)
    assert result.days == ["2026-03-14", "2026-10-02"]  # a time with no zone: that day
    assert result.times == [int(datetime(2026, 11, 20, 17, tzinfo=UTC).timestamp() * 1000)]


def test_no_stated_dates_sends_none() -> None:
    result = parse("---\ndate: 0099-01-01\n---\nBody\n", path="Daily/2026-10-02.md")
    assert isinstance(result, NoteUpsert)
    assert (result.days, result.times) == ([], [])  # the file name's date the Worker reads


@pytest.mark.parametrize("frontmatter", [
    "title: Plain\ntags: [a, b/c]\naliases:\n  - One\n  - 'Two: quoted'\n",
    "date: 2026-03-04\nupdated: 2026-03-04 10:20:30\ncount: 007\nratio: 1e3\nflag: yes\n",
    "nested: {a: [1, 2, {b: null}], c: ~}\nmulti: |\n  line one\n  line two\n",
    "unicode: Zoë – naïve ☕\nempty:\n",
])
def test_frontmatter_reads_the_same_through_libyaml_as_through_the_pure_loader(
        frontmatter: str) -> None:
    text = f"---\n{frontmatter}---\nbody\n"
    data, body = split_frontmatter(text)
    split = frontmatter_split(text)
    assert split is not None and body == "body\n"
    assert data == yaml.safe_load(split.yaml) and data

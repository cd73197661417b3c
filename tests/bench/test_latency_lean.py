"""bench.latency_lean: the replay runs what recall sent and only reads, the simple recall
shows its best hits, and `--lean` records both beside lexical recall. No timing is
asserted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bench import latency
from bench.latency_corpus import NOW_MS, build
from bench.latency_lean import SIMPLE_TEXT_CHARS, Recording, Sent, replay, simple
from hub.notes import section_spans
from local.sqlite_db import SqliteDatabase
from shared.text.sanitiser import Mode, build_query
from tests.conftest import DAY_MS, note, store_notes
from worker.recall.automatic import automatic_recall


class Counted:
    """The real database, counting the calls that reach it."""

    def __init__(self, db: SqliteDatabase, also: str | None = None) -> None:
        self.db, self.also, self.calls = db, also, {"batch": 0, "execute": 0}
        self.connection = db.connection

    async def batch(self, statements: Sequence[Any]) -> list[Any]:
        self.calls["batch"] += 1
        if self.also:  # a write slipped in beside the statements (as a trigger might)
            self.connection.execute(self.also)
        return await self.db.batch(statements)

    async def execute(self, stmt: Any, mode: str = "all") -> Any:
        self.calls["execute"] += 1
        return await self.db.execute(stmt, mode)


def _word(db: SqliteDatabase) -> str:
    row = db.connection.execute(
        "SELECT question FROM conversation_units ORDER BY rid LIMIT 1").fetchone()
    return next(w for w in row["question"].split() if len(w) > 6 and w.isalpha())


def test_the_replay_runs_what_recall_sent_and_reads_the_same_rows(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=40, notes=6)
    recording = Recording(db)
    recall = asyncio.run(automatic_recall(recording, f"what about {_word(db)}?", NOW_MS,
                                          message_id="bench-q", conversation_id="bench-c"))
    assert recall.error is None
    sent, read = recording.take()
    assert sent and read > 0 and recording.take() == ([], 0)
    counted = Counted(db)
    assert asyncio.run(replay(counted, sent)) == read
    assert counted.calls == {"batch": len(sent), "execute": 0}
    db.close()


def test_a_lone_statement_is_replayed_as_it_was_sent(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=10, notes=2)
    recording = Recording(db)
    one = asyncio.run(recording.prepare("SELECT id FROM conversations").all())
    sent, read = recording.take()
    assert sent == [Sent((("SELECT id FROM conversations", ()),), lone=True)]
    counted = Counted(db)
    assert asyncio.run(replay(counted, sent)) == read == len(one.results) > 0
    assert counted.calls == {"batch": 0, "execute": 1}
    db.close()


@pytest.mark.parametrize("write", [
    "DELETE FROM conversations",
    "WITH gone AS (SELECT id FROM conversations) DELETE FROM conversations "
    "WHERE id IN (SELECT id FROM gone)",
    "with x as (select 1) insert into corpus_stats (corpus, docs) values ('x', 1)",
])
def test_the_replay_refuses_a_write_before_it_runs_anything(tmp_path: Path,
                                                            write: str) -> None:
    db = build(tmp_path / "bench.sqlite", messages=10, notes=2)
    before = db.connection.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    counted = Counted(db)
    sent = [Sent((("SELECT count(*) FROM conversations", ()),)), Sent(((write, ()),))]
    with pytest.raises(ValueError, match="not a read"):
        asyncio.run(replay(counted, sent))
    assert counted.calls == {"batch": 0, "execute": 0}
    after = db.connection.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    assert after == before > 0
    db.close()


def test_a_replay_that_changed_the_database_raises(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=10, notes=2)
    sent = [Sent((("SELECT count(*) FROM conversations", ()),))]
    assert asyncio.run(replay(Counted(db), sent)) == 1
    with pytest.raises(RuntimeError, match="changed the database"):
        asyncio.run(replay(Counted(db, also="DELETE FROM corpus_stats"), sent))
    db.close()


async def test_the_simple_recall_shows_the_best_row_of_each_note_newest_first(
        db: SqliteDatabase) -> None:
    # The same first section in every note, so BM25 ties and recency decides; the newest
    # note has a second, weaker section.
    text = "Descale the kettle with vinegar."
    newest = (f"{text}\n\n## Also\n\nA kettle was mentioned once, "
              + "among many other words about other things, " * 12)
    assert len(section_spans(newest)[0]) == 2
    await store_notes(db, *(note(f"Home/{name}.md", text, mtime=NOW_MS - days * DAY_MS)
                            for name, days in (("Oldest", 800), ("Old", 400), ("Mid", 100))),
                      note("Home/New.md", newest, mtime=NOW_MS - DAY_MS,
                           sections=section_spans(newest)[0]))
    block, in_sql = await simple(db, build_query("kettle", Mode.AUTOMATIC), NOW_MS)
    hits = [h.split("\n", 1) for h in block.split("\n\n")]
    assert [label for label, _ in hits] == ["[1] New", "[2] Mid", "[3] Old"]
    assert all(body.startswith(text) and len(body) <= SIMPLE_TEXT_CHARS for _, body in hits)
    assert in_sql > 0
    assert await simple(db, build_query("", Mode.AUTOMATIC), NOW_MS) == ("", 0.0)


def test_a_lean_run_records_both_rewrites_beside_lexical_recall(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "latency.json"
    assert latency.main(["--max-messages", "40", "--queries", "4", "--cache", str(tmp_path),
                         "--lean", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())["sizes"]
    assert row["mode"] == "lexical"
    # The replay ran what recall sent (a run that recorded nothing would read no rows).
    assert row["statements_rows_p50"] > 0
    assert {"statements_p95_ms", "simple_p95_ms", "simple_sql_p95_ms",
            "simple_python_p50_ms"} <= set(row)
    printed = capsys.readouterr().out
    assert "statements (recall's SQL, none of its Python)" in printed
    with pytest.raises(SystemExit):
        latency.main(["--mode", "hybrid", "--lean"])
    assert "--lean measures lexical recall" in capsys.readouterr().err

"""bench.latency_lean on a tiny corpus: the replay runs recall's own statements and only
reads, the simple recall shows its best hits, and `--lean` records both beside lexical
recall. No timing is asserted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bench import latency
from bench.latency_corpus import NOW_MS, build
from bench.latency_lean import SIMPLE_TEXT_CHARS, Recording, replay, simple
from shared.rank.policy import AUTOMATIC
from shared.text.sanitiser import Mode, build_query
from worker.recall.automatic import automatic_recall


def _word(db: object) -> str:
    row = db.connection.execute(  # type: ignore[attr-defined]
        "SELECT question FROM conversation_units ORDER BY rid LIMIT 1").fetchone()
    return next(w for w in row["question"].split() if len(w) > 6 and w.isalpha())


def test_the_replay_runs_what_recall_sent_and_reads_the_same_rows(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=40, notes=6)
    recording = Recording(db)
    recall = asyncio.run(automatic_recall(recording, f"what about {_word(db)}?", NOW_MS,
                                          message_id="bench-q", conversation_id="bench-c"))
    assert recall.error is None
    read = recording.rows
    batches = recording.take()
    assert batches and read > 0 and recording.batches == [] and recording.rows == 0
    assert asyncio.run(replay(db, batches)) == read
    db.close()


def test_the_replay_refuses_a_write_before_it_runs_anything(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=10, notes=2)
    before = db.connection.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    batches = [[("SELECT count(*) FROM conversations", ())],
               [("DELETE FROM conversations", ())]]
    with pytest.raises(ValueError, match="not a read"):
        asyncio.run(replay(db, batches))
    after = db.connection.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    assert after == before > 0
    db.close()


def test_the_simple_recall_shows_its_best_hits(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=40, notes=6)
    word = _word(db)
    block, in_sql = simple(db.connection, build_query(word, Mode.AUTOMATIC), NOW_MS)
    hits = block.split("\n\n")
    assert 1 <= len(hits) <= AUTOMATIC.max_hits and in_sql > 0
    assert [h.split("]")[0] for h in hits] == [f"[{n}" for n in range(1, len(hits) + 1)]
    # The best hit matched the word, and shows at most SIMPLE_TEXT_CHARS of its text.
    label, text = hits[0].split("\n", 1)
    assert label.startswith("[1] ")
    assert word.lower()[:5] in text.lower() and len(text) <= SIMPLE_TEXT_CHARS
    assert simple(db.connection, build_query("", Mode.AUTOMATIC), NOW_MS) == ("", 0.0)
    db.close()


def test_a_lean_run_records_both_rewrites_beside_lexical_recall(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "latency.json"
    assert latency.main(["--max-messages", "40", "--queries", "4", "--cache", str(tmp_path),
                         "--lean", "--json", str(out)]) == 0
    [row] = json.loads(out.read_text())["sizes"]
    assert row["mode"] == "lexical"
    for part in ("statements", "simple"):
        assert row[f"{part}_p95_ms"] >= row[f"{part}_p50_ms"] > 0
    assert row["simple_p50_ms"] > row["simple_python_p50_ms"] > 0
    printed = capsys.readouterr().out
    assert "statements (recall's SQL, no Python)" in printed and "simple recall" in printed

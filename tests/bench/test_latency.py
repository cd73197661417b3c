"""bench.latency on a tiny corpus: it writes through the current schema (sections from the
hub's parser, conversation units from the chat store's SQL) and measures every row it
prints. No timing is asserted: the figures are the benchmark's, not the tests'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import latency, recall_dump
from bench.latency_corpus import SECTIONS_PER_NOTE, build, cached, units
from worker.corpora import registry


def test_the_corpus_goes_through_the_current_schema(tmp_path: Path) -> None:
    db = build(tmp_path / "bench.sqlite", messages=40, notes=6)
    conn = db.connection
    counted = units(db)
    # 40 alternating messages in conversations of 8: every reply joins its question.
    assert counted["exchanges"] == 20
    assert conn.execute("SELECT count(*) AS n FROM conversation_units "
                        "WHERE question_id IS NULL OR answer_id IS NULL").fetchone()["n"] == 0
    assert 6 < counted["sections"] <= 6 * (SECTIONS_PER_NOTE + 1)
    headings = conn.execute("SELECT count(*) AS n FROM note_sections WHERE heading != ''"
                            ).fetchone()["n"]
    assert headings >= 6 * (SECTIONS_PER_NOTE - 1)
    stats = {r["corpus"]: r["docs"] for r in conn.execute("SELECT * FROM corpus_stats")}
    assert stats == {"notes": counted["sections"], "messages": counted["exchanges"]}
    match = conn.execute("SELECT question FROM conversation_units LIMIT 1").fetchone()
    word = next(w for w in match["question"].split() if len(w) > 6)
    for sql, rows in latency.FLOORS:  # the floor runs on these very tables
        conn.execute(sql, (f'"{word}"', rows)).fetchall()
    db.close()


@pytest.mark.embed
def test_a_hybrid_run_prints_and_records_both_modes(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "latency.json"
    assert latency.main(["--mode", "hybrid", "--max-messages", "60", "--queries", "5",
                         "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["sizes"]
    assert [(r["messages"], r["mode"]) for r in rows] == [(60, "lexical"), (60, "hybrid")]
    assert all(r["p95_ms"] >= r["p50_ms"] > 0 and r["floor_p95_ms"] > 0 for r in rows)
    assert rows[1]["vectors"] == rows[1]["sections"] + rows[1]["exchanges"]
    assert rows[1]["embed_p50_ms"] > 0 and rows[0]["embed_p50_ms"] == 0
    # The estimate is timed apart, over the candidates of every measured recall.
    assert all(r["estimate_p95_ms"] >= r["estimate_ms"] > 0 for r in rows)
    assert all(r["slots_ms"] > 0 for r in rows)
    # The hybrid target's margin: its p95 against lexical p95 + the embedding + 5 ms.
    assert "over_target_ms" not in rows[0] and rows[1]["over_target_ms"] == pytest.approx(
        rows[1]["p95_ms"] - rows[0]["p95_ms"] - rows[1]["embed_p50_ms"] - 5.0, abs=0.01)
    printed = capsys.readouterr().out
    assert "hybrid" in printed and "recalls stepped down to lexical" in printed


def test_a_cached_corpus_is_built_once_and_reopened(tmp_path: Path) -> None:
    first = cached(tmp_path, messages=20, notes=3)
    counted = units(first)
    first.close()
    built = (tmp_path / "latency-20-3.sqlite").stat().st_mtime_ns
    again = cached(tmp_path, messages=20, notes=3)
    assert units(again) == counted and counted["exchanges"] == 10
    again.close()
    assert (tmp_path / "latency-20-3.sqlite").stat().st_mtime_ns == built
    assert not list(tmp_path.glob("*.building"))


def test_the_profile_names_recall_s_own_functions(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert latency.main(["--max-messages", "40", "--queries", "3", "--cache", str(tmp_path),
                         "--profile", "40"]) == 0
    printed = capsys.readouterr().out
    assert "3 recalls" in printed and "function calls" in printed
    assert "worker/recall" in printed


def test_the_recall_dump_writes_one_line_per_query(tmp_path: Path) -> None:
    out = tmp_path / "dump.jsonl"
    assert recall_dump.main(["--messages", "40", "--notes", "4", "--queries", "3",
                             "--cache", str(tmp_path), "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 3 + latency.WARMUP
    assert all(set(line) >= {"query", "block", "injected", "mode", "decisions", "search"}
               for line in lines)
    assert all(line["mode"] == "lexical" and line["error"] is None for line in lines)
    again = tmp_path / "again.jsonl"
    recall_dump.main(["--messages", "40", "--notes", "4", "--queries", "3",
                      "--cache", str(tmp_path), "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()  # the same code recalls the same bytes


def test_the_first_pass_is_timed_against_its_floor_per_corpus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for corpus in registry.corpora():
        cte = latency.ranked_cte(corpus)
        assert cte.startswith("SELECT rowid AS rid") and cte in corpus.ranked_sql
        assert "JOIN" not in cte.split("MATCH", 1)[0]  # the ranking, before any join
    assert latency.main(["--max-messages", "40", "--queries", "3", "--cache", str(tmp_path),
                         "--first-pass"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "floor" in line]
    names = [c.name for c in registry.corpora()]
    # One line per corpus and size (the sizes up to 40 messages: 1,000 is above it).
    assert [line.split()[2] for line in lines] == names
    for line in lines:
        assert "first pass / floor" in line and "ranked CTE / floor" in line
        assert float(line.split("first pass / floor ")[1].rstrip("×")) > 0

"""bench.edge_cpu: its CPython half on a tiny corpus (the Pyodide half is the same module,
bench/edge_turns.py, run by tests/pyodide's runner) and its input checks. No timing is
asserted: the figures are the benchmark's, not the tests'."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench import edge_cpu
from bench.corpus import Generator
from bench.edge_turns import WARMUP, in_memory_copy, turns
from bench.latency_corpus import build


def test_turns_times_every_query_after_the_warmup(tmp_path: Path) -> None:
    path = tmp_path / "edge.sqlite"
    build(path, messages=40, notes=6).close()
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(WARMUP + 5)]
    db = in_memory_copy(str(path))
    result = asyncio.run(turns(db, queries))
    db.close()
    assert result["turns"] == 5
    assert 0 < result["python_p50_ms"] <= result["p95_ms"]
    assert result["p50_ms"] <= result["p95_ms"]
    assert 0 < result["cpu_p50_ms"] <= result["cpu_p95_ms"]


@pytest.mark.parametrize("argv", [["--queries", "0"], ["--max-messages", "10"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        edge_cpu.main(argv)
    assert exit_info.value.code == 2

"""Recall per chat turn inside Pyodide (the Workers' interpreter) against CPython, in one run.

    uv run python -m bench.edge_cpu [--queries N] [--max-messages N] [--json PATH]

For each corpus (1k messages + 100 notes, 10k + 1k) it builds bench.latency's database
(bench/latency_corpus.py) and its generated chat queries, then times lexical automatic
recall per turn on the same file, first under this CPython, then inside Pyodide 314 under
Node (tests/pyodide/runner.mjs; `scripts/setup.sh --test` installs both). It prints each
runtime's CPU time per turn (p50/p95; inside Pyodide, Node's process CPU) and the
Pyodide/CPython ratio, and the wall time outside the database: at the edge D1 runs the
SQL, so that part is the Worker's own, the part the Workers CPU limit applies to (README
"The Worker in Pyodide"). CPU time, unlike wall time, holds when other work shares the
machine; SQLite runs in-process in both, so the CPU figures include it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.corpus import Generator
from bench.edge_turns import REPORT_MARK, WARMUP, in_memory_copy, turns
from bench.latency_corpus import build
from local.miniflare import node_binary

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tests" / "pyodide" / "runner.mjs"
SIZES = [(1_000, 100), (10_000, 1_000)]
QUERIES = 200
TIMEOUT_S = 1_800


def in_pyodide(db_path: Path, queries_path: Path) -> dict[str, Any]:
    # The runner mounts the repository at /src, so the files must live under it.
    guest = [f"/src/{p.relative_to(ROOT).as_posix()}" for p in (db_path, queries_path)]
    result = subprocess.run(
        [node_binary(), "--experimental-wasm-jspi", str(RUNNER),
         str(ROOT / "bench" / "edge_turns.py"), *guest],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    lines = [line for line in result.stdout.splitlines() if line.startswith(REPORT_MARK)]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"bench.edge_cpu: the Pyodide run failed:\n"
                         f"{(result.stdout + result.stderr)[-4000:]}")
    return json.loads(lines[-1][len(REPORT_MARK):])


def run_size(messages: int, notes: int, queries: list[str], work: Path) -> dict[str, Any]:
    db_path, queries_path = work / f"edge-{messages}.sqlite", work / "queries.json"
    build(db_path, messages, notes).close()
    queries_path.write_text(json.dumps(queries), encoding="utf-8")
    db = in_memory_copy(str(db_path))
    cpython = asyncio.run(turns(db, queries))
    db.close()
    pyodide = in_pyodide(db_path, queries_path)
    return {"messages": messages, "notes": notes, "cpython": cpython, "pyodide": pyodide,
            "cpu_ratio_p50": pyodide["cpu_p50_ms"] / cpython["cpu_p50_ms"],
            "cpu_ratio_p95": pyodide["cpu_p95_ms"] / cpython["cpu_p95_ms"],
            "python_ratio_p50": pyodide["python_p50_ms"] / cpython["python_p50_ms"]}


def print_row(row: dict[str, Any]) -> None:
    c, p = row["cpython"], row["pyodide"]
    print(f"{row['messages']:>7,} + {row['notes']:>5,}  CPU per turn p50/p95: CPython "
          f"{c['python']} {c['cpu_p50_ms']:.2f}/{c['cpu_p95_ms']:.2f} ms, Pyodide {p['python']} "
          f"{p['cpu_p50_ms']:.2f}/{p['cpu_p95_ms']:.2f} ms, ratio {row['cpu_ratio_p50']:.2f}x/"
          f"{row['cpu_ratio_p95']:.2f}x; wall outside the db p50: {c['python_p50_ms']:.2f} vs "
          f"{p['python_p50_ms']:.2f} ms ({row['python_ratio_p50']:.2f}x)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--max-messages", type=int, help="only the sizes up to this many")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.queries < 1:
        parser.error("--queries must be at least 1")
    gen = Generator(seed=11)  # bench.latency's queries
    queries = [gen.query() for _ in range(args.queries + WARMUP)]
    sizes = [s for s in SIZES if args.max_messages is None or s[0] <= args.max_messages]
    if not sizes:
        parser.error(f"--max-messages must be at least {SIZES[0][0]}")
    (ROOT / "bench-output").mkdir(exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="edge-cpu-", dir=ROOT / "bench-output") as tmp:
        for messages, notes in sizes:
            rows.append(run_size(messages, notes, queries, Path(tmp)))
            print_row(rows[-1])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

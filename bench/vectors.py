"""Local vector index: query p50/p95 through the VectorIndex port against the bare scan.

    uv run python -m bench.vectors [--sizes 10000 110000] [--queries 200]
    uv run --with sqlite-vec==0.1.9 --with pysqlite3-binary python -m bench.vectors

Corpus: N unit vectors of 384 dimensions, 1 note in 11 (split over two vaults) and the
rest messages, the 100k messages + 10k notes mix bench.latency targets. Each query asks
for the top 40 under one of three filters. Floor, measured in the same run: the bare
numpy product of the query with a contiguous matrix of exactly the rows the filter
admits (the least any exact scan must do), on one BLAS thread as the index scans. Also:
write and reload (restart) times and the memory the matrices hold. sqlite-vec's vec0
table is measured beside it when this Python can load it (CPython built without loadable
extensions cannot; the second command above brings a SQLite that can).
Target: p95 ≤ 20 ms at 110,000 with a (kind, vault) filter.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from local.semantic.vector_checks import MAX_UPSERT_BATCH
from local.semantic.vectors import SqliteVectorIndex
from worker.semantic.ports import VectorFilter, VectorRecord

DIMENSIONS = 384
TOP_K = 40
NOTE_EVERY = 11  # 10k notes beside 100k messages
VAULTS = ("Life", "Work")
FILTERS = {
    "no filter": VectorFilter(),
    "kind=message": VectorFilter(kind="message"),
    "kind=note vault=Life": VectorFilter(kind="note", vault="Life"),
}
TARGET_P95_MS = 20.0


def corpus(n: int, seed: int = 0) -> tuple[np.ndarray, list[dict[str, str]]]:
    vectors = np.random.default_rng(seed).standard_normal((n, DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    metadata = [{"kind": "note", "vault": VAULTS[(i // NOTE_EVERY) % 2]} if i % NOTE_EVERY == 0
                else {"kind": "message"} for i in range(n)]
    return vectors, metadata


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ms = np.array(seconds) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def sample(fn: Callable[[np.ndarray], Any], queries: np.ndarray) -> tuple[float, float]:
    for q in queries[:5]:
        fn(q)
    times = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        times.append(time.perf_counter() - t)
    return percentiles(times)


def rows_matching(metadata: list[dict[str, str]], flt: VectorFilter) -> np.ndarray:
    wanted = flt.as_dict()
    return np.array([i for i, m in enumerate(metadata)
                     if all(m.get(k) == v for k, v in wanted.items())], dtype=np.int64)


def sqlite_vec_connection() -> Any | None:
    """A connection with sqlite-vec loaded, or None when this Python cannot load it."""
    try:
        sqlite_vec = importlib.import_module("sqlite_vec")
    except ImportError:
        return None
    for module in ("sqlite3", "pysqlite3.dbapi2"):
        try:
            conn = importlib.import_module(module).connect(":memory:")
        except ImportError:
            continue
        if hasattr(conn, "enable_load_extension"):
            conn.enable_load_extension(True)
            sqlite_vec.load(conn)
            return conn
    return None


def bench_sqlite_vec(vectors: np.ndarray, metadata: list[dict[str, str]],
                     queries: np.ndarray) -> None:
    conn = sqlite_vec_connection()
    if conn is None:
        print("    sqlite-vec: not loadable here (no sqlite_vec, or this sqlite3 lacks "
              "enable_load_extension); see the module docstring")
        return
    conn.execute(f"CREATE VIRTUAL TABLE v USING vec0(id INTEGER PRIMARY KEY, embedding "
                 f"float[{DIMENSIONS}] distance_metric=cosine, kind TEXT, vault TEXT)")
    conn.executemany("INSERT INTO v (id, embedding, kind, vault) VALUES (?, ?, ?, ?)",
                     ((i, vectors[i].tobytes(), m["kind"], m.get("vault", ""))
                      for i, m in enumerate(metadata)))
    for label, flt in FILTERS.items():
        where = "".join(f" AND {k} = ?" for k in flt.as_dict())
        sql = f"SELECT id, distance FROM v WHERE embedding MATCH ? AND k = {TOP_K}{where}"
        def scan(q: np.ndarray, s: str = sql, f: Any = flt) -> Any:
            return conn.execute(s, (q.tobytes(), *f.as_dict().values())).fetchall()

        p50, p95 = sample(scan, queries)
        print(f"    sqlite-vec {label:<22} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms")
    conn.close()


async def load_index(path: Path, vectors: np.ndarray, metadata: list[dict[str, str]]
                     ) -> SqliteVectorIndex:
    index = SqliteVectorIndex(path, DIMENSIONS)
    for start in range(0, len(vectors), MAX_UPSERT_BATCH):
        await index.upsert([VectorRecord(id=f"u{i}", values=vectors[i], metadata=metadata[i])
                            for i in range(start, min(start + MAX_UPSERT_BATCH, len(vectors)))])
    return index


def bench_size(n: int, query_count: int, folder: Path) -> None:
    vectors, metadata = corpus(n)
    queries = corpus(query_count, seed=1)[0]
    path = folder / f"vectors-{n}.sqlite"
    t = time.perf_counter()
    index = asyncio.run(load_index(path, vectors, metadata))
    write_s = time.perf_counter() - t
    index.close()
    t = time.perf_counter()
    index = SqliteVectorIndex(path, DIMENSIONS)
    reload_s = time.perf_counter() - t
    print(f"  {n:,} vectors: written in {write_s:.1f} s ({n / write_s:,.0f}/s), reloaded in "
          f"{reload_s:.2f} s, matrices hold {index.nbytes / 2**20:.0f} MB "
          f"(the rows themselves {n * DIMENSIONS * 4 / 2**20:.0f} MB), file "
          f"{path.stat().st_size / 2**20:.0f} MB")

    async def port_times(flt: VectorFilter) -> list[float]:
        times = []
        for q in queries:
            t = time.perf_counter()
            await index.query(q, TOP_K, flt)
            times.append(time.perf_counter() - t)
        return times

    for label, flt in FILTERS.items():
        rows = rows_matching(metadata, flt)
        matrix = np.ascontiguousarray(vectors[rows])
        with threadpool_limits(limits=1, user_api="blas"):
            floor50, floor95 = sample(partial(np.matmul, matrix), queries)
        asyncio.run(port_times(flt))  # warm
        p50, p95 = percentiles(asyncio.run(port_times(flt)))
        met = "met" if p95 <= TARGET_P95_MS else "MISSED"
        verdict = f"  [target p95 ≤ {TARGET_P95_MS:.0f} ms: {met}]" if flt.vault else ""
        print(f"    port {label:<22} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  |  floor "
              f"({len(rows):,} rows) p50 {floor50:6.2f}  p95 {floor95:6.2f}  |  "
              f"×{p50 / floor50:.1f} p50, ×{p95 / floor95:.1f} p95{verdict}")
    index.close()
    bench_sqlite_vec(vectors, metadata, queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 110_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; top {TOP_K}")
    with tempfile.TemporaryDirectory() as folder:
        for n in args.sizes:
            bench_size(n, args.queries, Path(folder))


if __name__ == "__main__":
    main()

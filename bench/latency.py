"""Recall latency against the least any FTS5 search must spend, per retrieval mode.

    uv run python -m bench.latency [--mode lexical|hybrid|adaptive|quality]
                                   [--max-messages N] [--index-vectors random|model]
                                   [--cache DIR] [--profile N [--sort cumulative]]
                                   [--first-pass] [--lean] [--json PATH]

For each corpus size it builds a fresh SQLite D1 through the current schema (sections
and conversation units, bench/latency_corpus.py) and runs the same generated chat
queries through automatic recall (sanitise, retrieve in the mode, gate, replies, the
Recall block). In the same run, on the same tables:

- the floor: the raw FTS5 query `MATCH … ORDER BY bm25 LIMIT k` on both indexes, with
  the same terms and the same k (rows per corpus) that recall fetches;
- for a semantic mode, lexical recall too, so the cost the mode adds is a difference of
  two measurements of one run, and the time recall waits on the query embedding.

`--cache DIR` keeps each corpus in DIR (an ignored folder, e.g. .data/bench) and reuses
it, migrated to the current schema. `--profile N` runs recall under cProfile and prints
the N functions with the most own time (`--sort cumulative`: with the most time inside
them, callees included), per mode and size (the profiler slows Python
down, so those runs report no timings of their own). `--first-pass` times, per corpus
and in place of recall, what a lexical recall's first statement costs against its floor:
the floor, the ranked CTE alone (the same MATCH and filters, no joins) and the whole
first-pass statement (the CTE joined to the rows' notes or conversations), each query's
three in a shuffled order so that no one of them always runs on pages another warmed.
`--lean` times, beside each lexical recall, two rewrites that do less
(bench/latency_lean.py): recall's own D1 batches replayed with none of its Python, and a
simple one-pass recall.

Python time is recall's wall time minus the time inside the database, the embedder and
the vector index; in a semantic mode those overlap (the query is embedded while SQLite
answers the lexical search), so the wall-time difference undercounts, and `py cpu` is the
steadier figure: the CPU time of recall's own thread less its time inside SQLite (the
embedding and the vector scans run in other threads). On a shared machine wall times
swing with other work; the CPU-time ratio (this process's CPU time, recall against
floor) is the steadier figure. `estimate` is the part of it the gate's confidence
estimate adds (the slot holders' matched terms and features, and the model), timed apart
over the same recall's candidates, target ≤ 0.3 ms; `slots`, beside it, the slotting it
weighs them in, which the gate does with or without an estimate (partners joined, the
merged list, one slot per note or conversation). Targets at
100k messages + 10k notes (~50k sections): lexical p95 ≤ 1.5× the floor's p95, and a
semantic mode's p95 ≤ lexical p95 + the query embedding (p50) + SEMANTIC_SLACK_MS: its
`over` column, negative when the target is met (README, "Figures").
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.corpus import Generator
from bench.latency_corpus import NOW_MS, build, cached, model_vectors, random_vectors, units
from bench.latency_lean import Recording, replay, simple
from bench.stopwatch import Stopwatch, timed_semantics
from bench.system import RELEVANCE_SEMANTIC_BUDGET_S
from local.sqlite_db import SqliteDatabase
from shared.rank.policy import AUTOMATIC, partnered, slotted, weighed
from shared.text.sanitiser import Mode, build_query
from worker.corpora import registry
from worker.corpora.base import Corpus
from worker.corpora.filters import Filters
from worker.recall.automatic import automatic_recall, candidates
from worker.recall.modes import gauge
from worker.recall.plan import hits_key, plan
from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.semantics import Semantics

SIZES = [(1_000, 100), (10_000, 1_000), (100_000, 10_000)]
SEMANTIC_SLACK_MS = 5.0  # what a semantic mode may add beyond the embedding (the target)
QUERIES = 200
WARMUP = 20


def floor_sql(fts_table: str, columns: dict[str, float]) -> str:
    weights = ", ".join(f"{w:.3f}" for w in columns.values())
    return (f"SELECT rowid FROM {fts_table} WHERE {fts_table} MATCH ? "
            f"ORDER BY bm25({fts_table}, {weights}) LIMIT ?")


# (SQL, rows) per corpus: what the recall plan asks each index for (worker/recall/plan.py).
FLOORS = [(floor_sql(c.fts_table, dict(c.columns)), AUTOMATIC.candidates * c.fetch_per_hit)
          for c in registry.corpora()]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> float:
    return seconds * 1000


async def profile(db: SqliteDatabase, queries: list[str], mode: RetrievalMode,
                  sem: Semantics | None, top: int, sort: str = "tottime") -> str:
    """cProfile's summary of recall over the measured queries (after the warm-up)."""
    profiler = cProfile.Profile()
    for i, text in enumerate(queries):
        if i == WARMUP:
            profiler.enable()
        await automatic_recall(db, text, NOW_MS, message_id="bench-q",
                               conversation_id="bench-c", semantics=sem, mode=mode)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats(sort).print_stats(top)
    return out.getvalue()


def ranked_cte(corpus: Corpus) -> str:
    """The first pass's ranked CTE as a statement of its own: the FTS5 ranking with
    recall's filters, before the joins that read each row's note or conversation."""
    sql = corpus.ranked_sql
    return sql[sql.index("SELECT rowid"):sql.index("\n)\nSELECT")]


FIRST_PASS_PARTS = ("floor", "ranked CTE", "first pass")
_PARAMS = re.compile(r"\?(\d+)")


def first_pass(db: SqliteDatabase, queries: list[str], seed: int = 7
               ) -> dict[str, dict[str, float]]:
    """Per corpus, the median ms of FIRST_PASS_PARTS over the measured queries, and each
    one's ratio to the floor."""
    conn, shuffle = db.connection, random.Random(seed).shuffle
    floors = {c.name: f for c, f in zip(registry.corpora(), FLOORS, strict=True)}
    times: dict[str, dict[str, list[float]]] = {
        c.name: {part: [] for part in FIRST_PASS_PARTS} for c in registry.corpora()}
    for text in queries[WARMUP:]:
        query = build_query(text, Mode.AUTOMATIC)
        if not query.match:
            continue
        statements = {p.key: p for p in plan(query, Filters(), ranked=True)}
        for corpus in registry.corpora():
            params = statements[hits_key(corpus)].params
            floor, rows = floors[corpus.name]
            cte = ranked_cte(corpus)
            parts = [("floor", floor, (query.match, rows)),
                     ("ranked CTE", cte, params[:max(int(n) for n in _PARAMS.findall(cte))]),
                     ("first pass", corpus.ranked_sql, params)]
            shuffle(parts)
            for part, sql, bound in parts:
                started = time.perf_counter()
                conn.execute(sql, bound).fetchall()
                times[corpus.name][part].append(ms(time.perf_counter() - started))
    out: dict[str, dict[str, float]] = {}
    for name, by_part in times.items():
        medians = {part: statistics.median(v) for part, v in by_part.items() if v}
        if not medians:
            continue
        out[name] = {**medians, **{f"{part} / floor": medians[part] / medians["floor"]
                                   for part in FIRST_PASS_PARTS[1:] if part in medians}}
    return out


# Each recall's estimate is timed over this many repeats (one takes a few microseconds: a
# single timing would be mostly the clock's own resolution).
ESTIMATE_REPEATS = 5


async def estimate_ms(db: SqliteDatabase, text: str, mode: RetrievalMode,
                      sem: Semantics | None) -> tuple[float, float]:
    """The Python the gate's estimate costs one recall (README, "Figures"), over the
    candidates recall retrieved for `text`: the features of the slot holders it weighs,
    their matched terms included, and the model's dot products (shared.rank.policy.weighed
    and ConfidenceModel.estimate); and apart, the slotting they are weighed in, which the
    gate does with or without an estimate (partners joined, the merged list, one slot per
    note or conversation: shared.rank.policy.partnered and slotted)."""
    found, act = await candidates(db, text, NOW_MS, conversation_id="bench-c",
                                  semantics=sem, mode=mode)
    if act != "request":
        return 0.0, 0.0
    measure = gauge(found, sem)
    slotting = estimating = 0.0
    for _ in range(ESTIMATE_REPEATS):
        started = time.perf_counter()
        slots = slotted(partnered(found.candidates, AUTOMATIC, measure)[0], AUTOMATIC)
        middle = time.perf_counter()
        for a in weighed(slots, AUTOMATIC, measure).values():
            measure.model.estimate(a.features)
        slotting += middle - started
        estimating += time.perf_counter() - middle
    return ms(estimating) / ESTIMATE_REPEATS, ms(slotting) / ESTIMATE_REPEATS


async def measure(db: SqliteDatabase, queries: list[str], mode: RetrievalMode,
                  sem: Semantics | None, lean: bool = False) -> dict[str, float]:
    """`lean`: lexical recall's two rewrites that do less (bench/latency_lean.py) too,
    each query's after its recall and floor, the two in a shuffled order."""
    watch = Stopwatch()
    recording = Recording(db)
    timed_db = watch.database(recording if lean else db)
    leaner: dict[str, list[float]] = {"statements": [], "statements_rows": [], "simple": [],
                                      "simple_sql": [], "simple_python": []}
    shuffle = random.Random(5).shuffle
    timed_sem = timed_semantics(sem, watch) if sem is not None else None
    totals, floors, pythons, embeds, cpus, floor_cpus = [], [], [], [], [], []
    thread_pythons: list[float] = []
    estimates: list[float] = []
    slottings: list[float] = []
    fallbacks = 0  # semantic recall that missed its budget and stepped down to lexical
    conn = db.connection
    for i, text in enumerate(queries):
        watch.reset()
        started, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
        recall = await automatic_recall(timed_db, text, NOW_MS, message_id="bench-q",
                                        conversation_id="bench-c", semantics=timed_sem,
                                        mode=mode)
        total, total_cpu = time.perf_counter() - started, time.process_time() - cpu
        own_python = time.thread_time() - own - watch.db_cpu
        if recall.error:
            raise RuntimeError(f"recall of {text!r} failed: {recall.error}")
        fallbacks += bool(mode is not RetrievalMode.LEXICAL and recall.ran.fallback)
        match = build_query(text, Mode.AUTOMATIC).match
        started, cpu = time.perf_counter(), time.process_time()
        for sql, rows in FLOORS:
            conn.execute(sql, (match, rows)).fetchall()
        floor, floor_cpu = time.perf_counter() - started, time.process_time() - cpu
        if lean:
            parts = ["statements", "simple"]
            shuffle(parts)
            for part in parts:
                if part == "statements":
                    sent, read = recording.take()
                    started = time.perf_counter()
                    if await replay(db, sent) != read:
                        raise RuntimeError(f"the replay of {text!r} read other rows")
                else:
                    started = time.perf_counter()
                    _, in_sql = await simple(db, build_query(text, Mode.AUTOMATIC), NOW_MS)
                elapsed = time.perf_counter() - started
                if i >= WARMUP:
                    leaner[part].append(ms(elapsed))
                    if part == "statements":
                        leaner["statements_rows"].append(read)
                    else:
                        leaner["simple_sql"].append(ms(in_sql))
                        leaner["simple_python"].append(ms(elapsed - in_sql))
        if i >= WARMUP:
            totals.append(ms(total))
            floors.append(ms(floor))
            cpus.append(ms(total_cpu))
            floor_cpus.append(ms(floor_cpu))
            pythons.append(ms(total - watch.outside))
            thread_pythons.append(ms(own_python))
            embeds.append(ms(watch.embed))
            estimate, slotting = await estimate_ms(db, text, mode, sem)
            estimates.append(estimate)
            slottings.append(slotting)
    return {"p50_ms": statistics.median(totals), "p95_ms": percentile(totals, 0.95),
            "floor_p50_ms": statistics.median(floors), "floor_p95_ms": percentile(floors, 0.95),
            # CPU time of this process: steadier than wall time on a shared machine (the
            # embedder's threads count too, so it can exceed the wall time).
            "cpu_p95_ms": percentile(cpus, 0.95), "floor_cpu_p95_ms": percentile(floor_cpus, 0.95),
            "python_ms": statistics.median(pythons),
            "python_p95_ms": percentile(pythons, 0.95),
            "python_cpu_ms": statistics.median(thread_pythons),
            "embed_p50_ms": statistics.median(embeds), "fallbacks": fallbacks,
            "estimate_ms": statistics.median(estimates),
            "estimate_p95_ms": percentile(estimates, 0.95),
            "slots_ms": statistics.median(slottings),
            **({f"{part}_p50_ms": statistics.median(leaner[part])
                for part in ("statements", "simple", "simple_sql", "simple_python")}
               | {f"{part}_p95_ms": percentile(leaner[part], 0.95)
                  for part in ("statements", "simple", "simple_sql")}
               | {"statements_rows_p50": statistics.median(leaner["statements_rows"])}
               if lean else {})}


def semantics_for(db: SqliteDatabase, index_vectors: str) -> tuple[Semantics, float, int]:
    """The local stack on this database with every unit holding a vector."""
    from bench.system import EMBEDDING_CACHE
    from local.semantic.cache import CachedEmbedder
    from local.semantic.wiring import local_semantics

    sem = local_semantics(db, {})
    if sem is None:
        raise SystemExit("semantic modes need the local embedder: uv sync --group embed")
    sem.embedder.load()  # type: ignore[attr-defined]  # the first query must not pay it
    started = time.perf_counter()
    if index_vectors == "model":
        cached = Semantics(CachedEmbedder(sem.embedder, EMBEDDING_CACHE), sem.index)
        count = asyncio.run(model_vectors(db, cached))
    else:
        count = asyncio.run(random_vectors(db, sem))
    return sem, time.perf_counter() - started, count


def run_size(messages: int, notes: int, queries: list[str], mode: RetrievalMode,
             index_vectors: str, cache: Path | None = None,
             profile_top: int = 0, profile_sort: str = "tottime",
             no_budget: bool = False, first_pass_only: bool = False,
             lean: bool = False) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="mallory-latency-") as tmp:
        started = time.perf_counter()
        db = cached(cache, messages, notes) if cache else build(
            Path(tmp) / "bench.sqlite", messages, notes)
        base: dict[str, Any] = {"messages": messages, "notes": notes, **units(db),
                "build_s": round(time.perf_counter() - started, 1)}
        if first_pass_only:
            print_first_pass(messages, notes, first_pass(db, queries))
            db.close()
            return []
        runs: list[tuple[RetrievalMode, Semantics | None]] = [(RetrievalMode.LEXICAL, None)]
        if mode is not RetrievalMode.LEXICAL:
            sem, vectors_s, count = semantics_for(db, index_vectors)
            if no_budget:
                sem = replace(sem, budget_s=RELEVANCE_SEMANTIC_BUDGET_S)
            base.update(vectors=count, vectors_s=round(vectors_s, 1),
                        index_vectors=index_vectors)
            runs.append((mode, sem))
        for run_mode, run_sem in runs:
            if profile_top:
                print(f"--- {run_mode.value} at {messages:,} messages + {notes:,} notes, "
                      f"{len(queries) - WARMUP} recalls ---")
                print(asyncio.run(profile(db, queries, run_mode, run_sem, profile_top,
                                          profile_sort)))
                continue
            rows.append({**base, "mode": run_mode.value, "queries": len(queries) - WARMUP,
                         **asyncio.run(measure(db, queries, run_mode, run_sem,
                                                 lean and run_mode is RetrievalMode.LEXICAL))})
            if (over := over_target(rows[-1], rows[0])) is not None:
                rows[-1]["over_target_ms"] = round(over, 2)
            print_row(rows[-1], rows[0])
            if "simple_p95_ms" in rows[-1]:
                print_lean(rows[-1])
        db.close()
    return rows


def print_first_pass(messages: int, notes: int, figures: dict[str, dict[str, float]]
                     ) -> None:
    for name, f in figures.items():
        print(f"{messages:>9,} {notes:>7,} {name:>9}  " + "  ".join(
            f"{part} {f[part]:.3f} ms" for part in FIRST_PASS_PARTS) + "  " + "  ".join(
            f"{part} / floor {f[part + ' / floor']:.2f}×" for part in FIRST_PASS_PARTS[1:]))


def len_measured(row: dict[str, Any]) -> int:
    return int(row.get("queries", 0))


def print_header() -> None:
    print(f"{'messages':>9} {'notes':>7} {'sections':>8} {'units':>7} {'mode':>8} "
          f"{'p50 ms':>7} {'p95 ms':>7} {'floor p50':>9} {'floor p95':>9} {'p95/flr':>8} "
          f"{'vs lex':>7} {'cpu p95/flr':>11} {'python':>7} {'py cpu':>7} {'estimate':>8} "
          f"{'slots':>6} {'embed':>6} {'over':>6}")


def over_target(r: dict[str, Any], lexical: dict[str, Any]) -> float | None:
    """How far a semantic mode's p95 is over lexical p95 + the embedding + the slack
    (negative: under it); None for lexical itself."""
    if r["mode"] == "lexical":
        return None
    return r["p95_ms"] - (lexical["p95_ms"] + r["embed_p50_ms"] + SEMANTIC_SLACK_MS)


def print_row(r: dict[str, Any], lexical: dict[str, Any]) -> None:
    ratio = r["p95_ms"] / r["floor_p95_ms"] if r["floor_p95_ms"] else float("nan")
    added = r["p95_ms"] / lexical["p95_ms"] if lexical["p95_ms"] else float("nan")
    cpu_ratio = r["cpu_p95_ms"] / r["floor_cpu_p95_ms"] if r["floor_cpu_p95_ms"] else float("nan")
    print(f"{r['messages']:>9,} {r['notes']:>7,} {r['sections']:>8,} "
          f"{r['sections'] + r['exchanges']:>7,} {r['mode']:>8} {r['p50_ms']:>7.2f} "
          f"{r['p95_ms']:>7.2f} {r['floor_p50_ms']:>9.2f} {r['floor_p95_ms']:>9.2f} "
          f"{ratio:>7.2f}x {added:>6.2f}x {cpu_ratio:>10.2f}x {r['python_ms']:>7.2f} "
          f"{r['python_cpu_ms']:>7.2f} "
          f"{r['estimate_ms']:>8.3f} {r['slots_ms']:>6.3f} "
          f"{r['embed_p50_ms']:>6.2f} "
          + (f"{over:>+6.2f}" if (over := r.get("over_target_ms")) is not None else f"{'–':>6}")
          + f"   (built in {r['build_s']} s"
          + (f", {r['vectors']:,} {r['index_vectors']} vectors in {r['vectors_s']} s, "
             f"{r['fallbacks']} of {len_measured(r)} recalls stepped down to lexical"
             if "vectors" in r and r["mode"] != "lexical" else "") + ")", flush=True)


def print_lean(r: dict[str, Any]) -> None:
    """The lexical row's two rewrites that do less (bench/latency_lean.py), against the
    same run's floor."""
    floor = r["floor_p95_ms"]
    print(f"{'':>9} {'':>7} {'':>8} {'':>7} {'lean':>8}   statements (recall's SQL, none of "
          f"its Python) p50 {r['statements_p50_ms']:.2f} p95 {r['statements_p95_ms']:.2f} ms "
          f"= {r['statements_p95_ms'] / floor:.2f}x floor; simple recall p50 "
          f"{r['simple_p50_ms']:.2f} p95 {r['simple_p95_ms']:.2f} ms = "
          f"{r['simple_p95_ms'] / floor:.2f}x floor (its SQL p95 {r['simple_sql_p95_ms']:.2f}"
          f" ms = {r['simple_sql_p95_ms'] / floor:.2f}x, its Python "
          f"{r['simple_python_p50_ms']:.2f} ms); recall {r['p95_ms'] / floor:.2f}x, its "
          f"Python {r['python_ms']:.2f} ms", flush=True)


def sizes_up_to(max_messages: int | None) -> list[tuple[int, int]]:
    sizes = [(m, n) for m, n in SIZES if max_messages is None or m <= max_messages]
    if max_messages and max_messages not in [m for m, _ in sizes]:
        sizes.append((max_messages, max(max_messages // 10, 10)))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="lexical", choices=[m.value for m in RetrievalMode])
    parser.add_argument("--max-messages", type=int, help="cap the largest corpus size")
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--index-vectors", choices=("random", "model"), default="random",
                        help="semantic modes: the units' vectors (the query is always "
                        "embedded by the model)")
    parser.add_argument("--cache", type=Path,
                        help="keep and reuse the corpora in this (ignored) folder")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="print cProfile's top N functions instead of timings")
    parser.add_argument("--sort", choices=("tottime", "cumulative"), default="tottime",
                        help="--profile: order by own time or by time including callees")
    parser.add_argument("--first-pass", action="store_true",
                        help="time the first pass's statement against the floor, per corpus, "
                        "instead of recall")
    parser.add_argument("--lean", action="store_true",
                        help="lexical recall against two rewrites that do less, in the same "
                        "run: its own SQL replayed with no Python, and a simple one-pass recall "
                        "(bench/latency_lean.py)")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    parser.add_argument("--no-budget", action="store_true",
                        help="semantic modes: lift the 300 ms semantic budget, so that on a "
                        "loaded machine no recall steps down to lexical (to compare two "
                        "versions of the code)")
    args = parser.parse_args(argv)
    if args.lean and args.mode != RetrievalMode.LEXICAL.value:
        # A semantic row is measured against the lexical row of its run: timing the
        # rewrites between lexical recalls would change that baseline.
        parser.error("--lean measures lexical recall: leave out --mode")
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(args.queries + WARMUP)]
    if not args.first_pass:
        print_header()
    rows = [row for messages, notes in sizes_up_to(args.max_messages)
            for row in run_size(messages, notes, queries, RetrievalMode(args.mode),
                                args.index_vectors, args.cache, args.profile, args.sort,
                                args.no_budget, args.first_pass, args.lean)]
    if args.json:
        args.json.write_text(json.dumps({"sizes": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The automatic gate's curve: false-positive rate against hit rate as one knob of the
gate moves, the others held at their current values ("report the curve of
false-positive rate against hit rate").

    uv run python -m bench.gate_curve --set DIR [--split tune] [--mode lexical|adaptive|…]
        [--knob threshold|min_relevance] [--json PATH]

Retrieval runs once per query through the real path (worker/recall/automatic.candidates,
time scope included); each setting then re-runs only the gate and the bundles
(automatic.gate) and builds the Recall block as bench.relevance does, so the row of the
current setting (marked `*`) reproduces bench.relevance's auto_hit_rate and auto_fpr.

Knobs: `threshold`, the confidence model's (shared/rank/confidence_models.py: the model of
the embedder that ran, or the lexical one); `min_relevance`, the lexical model's
pre-gate. Tune on the `tune` split only (bench/sets/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench.evalset import Query, loaded_set, read_queries
from bench.inputs import input_problem
from bench.relevance import SPLITS
from bench.scoring import query_figures
from bench.system import (
    DEFAULT_MODE,
    MODES,
    Injection,
    indexed_semantics,
    injection,
)
from bench.system import require as require_mode
from local.sqlite_db import SqliteDatabase
from shared.api.errors import QueryTooLong
from shared.rank.confidence import ConfidenceModel
from shared.rank.policy import AUTOMATIC, Gauge, RecallPolicy
from shared.text.sanitiser import Mode
from shared.time.zones import UTC_ZONE
from worker.recall.automatic import Gated, candidates, gate
from worker.recall.modes import Retrieved, gauge
from worker.recall.retrieval_mode import RetrievalMode
from worker.recall.timeframe import scope_of
from worker.semantic.semantics import Semantics


def _steps(lo: float, hi: float, step: float) -> tuple[float, ...]:
    return tuple(round(lo + i * step, 3) for i in range(round((hi - lo) / step) + 1))


def shifted(model: ConfidenceModel, threshold: float) -> ConfidenceModel:
    """The model with `threshold`, and each kind's threshold moved by as much."""
    step = threshold - model.threshold
    return replace(model, threshold=threshold, kind_thresholds={
        k: round(t + step, 3) for k, t in model.kind_thresholds.items()})


@dataclass(frozen=True)
class Knob:
    name: str
    values: tuple[float, ...]
    current: Callable[[RecallPolicy, Gauge], float]
    set: Callable[[RecallPolicy, Gauge, float], tuple[RecallPolicy, Gauge]]


KNOBS = (
    Knob("threshold", _steps(0.10, 0.90, 0.05),
         lambda p, g: g.model.threshold,
         # Every kind's threshold moves with the model's own, by the same step.
         lambda p, g, v: (p, replace(g, model=shifted(g.model, v)))),
    Knob("min_relevance", _steps(0.0, 0.40, 0.05),
         lambda p, g: p.min_relevance,
         lambda p, g, v: (replace(p, min_relevance=v), g)),
)
BY_NAME = {k.name: k for k in KNOBS}


@dataclass(frozen=True)
class Prepared:
    """One query's retrieval, done once: what the gate sees, and its measured bar."""

    query: Query
    scoped: tuple[Retrieved, Gauge] | None  # within the time it names
    found: tuple[Retrieved, Gauge] | None  # None: social/meta, nothing recalled


async def prepare(db: SqliteDatabase, sem: Semantics | None, mode: RetrievalMode,
                  q: Query, now_ms: int) -> Prepared:
    # Every row a candidate: a looser setting of the gate passes rows the default skips.
    kwargs: dict[str, Any] = {"semantics": sem, "mode": mode, "every_row": True}
    try:
        scope = scope_of(q.query, Mode.AUTOMATIC, now_ms, UTC_ZONE)
        scoped = None
        if scope is not None:
            found, act = await candidates(db, q.query, now_ms, scope=scope, **kwargs)
            if act != "request":
                return Prepared(q, None, None)
            scoped = (found, gauge(found, sem))
        found, act = await candidates(db, q.query, now_ms, **kwargs)
    except QueryTooLong:
        return Prepared(q, None, None)
    return Prepared(q, scoped, (found, gauge(found, sem)) if act == "request" else None)


async def _hits(db: SqliteDatabase, p: Prepared, knob: Knob, value: float, now_ms: int
                ) -> Gated | None:
    """automatic.gated's hits with the knob at `value`: the scoped retrieval first, the
    unscoped one when nothing there passes."""
    for found in (p.scoped, p.found):
        if found is None:
            continue
        retrieved, measured = found
        policy, measure = knob.set(AUTOMATIC, measured, value)
        hits = await gate(db, retrieved, policy, measure, now_ms)
        if hits:
            return Gated(found=retrieved, hits=hits)
    return None


async def point(db: SqliteDatabase, prepared: Sequence[Prepared], knob: Knob, value: float,
                now_ms: int) -> dict[str, float | None]:
    """auto_fpr, auto_hit_rate and auto_precision at one setting (bench.scoring's keys)."""
    sums = {"auto_fp": 0.0, "empty": 0, "auto_hit": 0.0, "answerable": 0,
            "injected_relevant": 0.0, "n_injected": 0.0}
    for p in prepared:
        gated = await _hits(db, p, knob, value, now_ms)
        injected = await injection(db, gated) if gated else Injection([])
        figures = query_figures(p.query, [], injected)
        if p.query.judgments:
            sums["answerable"] += 1
            sums["auto_hit"] += figures["auto_hit"]
            sums["injected_relevant"] += figures["injected_relevant"]
            sums["n_injected"] += figures["n_injected"]
        else:
            sums["empty"] += 1
            sums["auto_fp"] += figures["auto_fp"]

    def share(num: str, den: str) -> float | None:
        return sums[num] / sums[den] if sums[den] else None

    return {"auto_fpr": share("auto_fp", "empty"), "auto_hit_rate": share("auto_hit", "answerable"),
            "auto_precision": share("injected_relevant", "n_injected")}


def knobs_for(mode: RetrievalMode, names: Sequence[str] | None) -> list[Knob]:
    return [BY_NAME[n] for n in names] if names else list(KNOBS)


def current_value(knob: Knob, prepared: Sequence[Prepared]) -> float | None:
    """The knob's value today: the policy's, or the model's of the embedder that ran."""
    gauges = [f[1] for p in prepared for f in (p.scoped, p.found) if f]
    return knob.current(AUTOMATIC, gauges[0]) if gauges else None


def curve(set_dir: Path, split: str, mode: str, knob_names: Sequence[str] | None = None
          ) -> list[dict[str, Any]]:
    """One row per knob and value: the figures, and whether it is today's setting."""
    require_mode(mode)
    retrieval = RetrievalMode(mode)
    queries = read_queries(set_dir, split)
    rows = []
    with loaded_set(set_dir) as loaded:
        sem = None if retrieval is RetrievalMode.LEXICAL else indexed_semantics(
            loaded.db, loaded.now_ms)

        async def run() -> None:
            prepared = [await prepare(loaded.db, sem, retrieval, q, loaded.now_ms)
                        for q in queries]
            for knob in knobs_for(retrieval, knob_names):
                now = current_value(knob, prepared)
                values = sorted({*knob.values, *([now] if now is not None else [])})
                for value in values:
                    figures = await point(loaded.db, prepared, knob, value, loaded.now_ms)
                    rows.append({"knob": knob.name, "value": value,
                                 "current": value == now, **figures})

        asyncio.run(run())
    return rows


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def print_curve(rows: Sequence[dict[str, Any]], header: str) -> None:
    print(header)
    print(f"{'knob':16}{'value':>7}  {'auto_fpr':>9}{'hit_rate':>10}{'precision':>11}")
    for r in rows:
        mark = " *" if r["current"] else ""
        print(f"{r['knob']:16}{r['value']:7.2f}  {_cell(r['auto_fpr']):>9}"
              f"{_cell(r['auto_hit_rate']):>10}{_cell(r['auto_precision']):>11}{mark}")
    print("* the current setting (shared/rank/policy.py)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path, help="evaluation set folder")
    parser.add_argument("--split", choices=SPLITS, default="all")
    parser.add_argument("--mode", default=DEFAULT_MODE, metavar="|".join(MODES))
    parser.add_argument("--knob", action="append", choices=sorted(BY_NAME),
                        help="sweep only this knob (repeatable; default: every knob the "
                             "mode has)")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    problem = input_problem(args.set, args.split, [args.mode])
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    rows = curve(args.set, args.split, args.mode, args.knob)
    print_curve(rows, f"set: {args.set.resolve().name}  split: {args.split}  "
                      f"mode: {args.mode}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

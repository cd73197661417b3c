"""Printing a relevance run: figures with their 95% intervals, the paired differences
against the baselines, per category; and the optional chart."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.bootstrap import LEVEL, RESAMPLES, SEED
from bench.scoring import METRICS

NAME_WIDTH, CELL_WIDTH = 30, 24
SYSTEM_NAME = "mallory"
LOWER_IS_BETTER = ("auto_fpr", "auto_waste", "auto_irrelevant_injected")
# Per category the near-twins ndcg@5 and hit@3 are left to the JSON: the lines stay few.
PER_CATEGORY_SKIP = ("ndcg@5", "hit@3")


def figure(value: float | None, interval: list[float] | None = None, signed: bool = False
           ) -> str:
    if value is None:
        return "–"
    sign = "+" if signed else ""
    text = f"{value:{sign}.3f}"
    if interval:
        text += f" [{interval[0]:{sign}.3f}, {interval[1]:{sign}.3f}]"
    return text


def systems(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {SYSTEM_NAME: result["system"], **result["baselines"]}


def _row(name: str, cells: list[str]) -> str:
    return f"{name:{NAME_WIDTH}}" + "".join(f"{c:{CELL_WIDTH}}" for c in cells)


def metric_rows(columns: Mapping[str, Mapping[str, Any]], indent: str = "",
                skip: tuple[str, ...] = ()) -> list[str]:
    """One line per metric that some column has, each cell the figure and its interval."""
    lines = []
    for metric in METRICS:
        if metric.key in skip:
            continue
        values = [m.get(metric.key) for m in columns.values()]
        if all(v is None for v in values):
            continue
        lines.append(_row(indent + metric.key, [figure(m.get(metric.key),
                                                       m.get("ci", {}).get(metric.key))
                                                for m in columns.values()]))
    return lines


def header(result: Mapping[str, Any]) -> list[str]:
    keys = ("set", "split", "mode", "commit")
    return [
        "  ".join(f"{k}: {result[k]}" for k in keys if result.get(k) is not None),
        f"documents: {result['documents']}",
        f"[lo, hi]: {LEVEL:.0%} percentile bootstrap over queries ({RESAMPLES:,} resamples, "
        f"seed {SEED}); lower is better for {', '.join(LOWER_IS_BETTER)}",
    ]


def print_table(result: Mapping[str, Any]) -> None:
    columns = systems(result)
    lines = [*header(result), "", _row("", list(columns)), *metric_rows(columns)]
    s = result["system"]
    lines.append(_row("queries", [f"{m['n_queries']} ({m['n_judged']} answerable)"
                                  for m in columns.values()]))
    if result.get("paired"):
        lines += ["", f"{SYSTEM_NAME} − baseline (paired bootstrap):",
                  _row("", list(result["paired"]))]
        keys = next(iter(result["paired"].values())).keys()
        for key in keys:
            lines.append(_row(key, [figure(d[key]["difference"], d[key]["ci"], signed=True)
                                    for d in result["paired"].values()]))
    lines += ["", f"per category ({' | '.join(columns)}):"]
    for cat, m in s["per_category"].items():
        lines.append(f"  {cat}  n={m['n_queries']} ({m['n_judged']} answerable)")
        lines += metric_rows({n: c["per_category"][cat] for n, c in columns.items()}, "    ",
                             PER_CATEGORY_SKIP)
    print("\n".join(lines))


def plot(result: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = systems(result)
    keys = [m.key for m in METRICS
            if any(c.get(m.key) is not None for c in columns.values())]
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(columns)
    for i, (name, m) in enumerate(columns.items()):
        values = [m[k] or 0 for k in keys]
        spans = [m["ci"].get(k) or [v, v] for k, v in zip(keys, values, strict=True)]
        errors = [[max(v - lo, 0) for v, (lo, _) in zip(values, spans, strict=True)],
                  [max(hi - v, 0) for v, (_, hi) in zip(values, spans, strict=True)]]
        ax.bar([x + i * width for x in range(len(keys))], values, width, label=name,
               yerr=errors, capsize=2)
    ax.set_xticks([x + width * (len(columns) - 1) / 2 for x in range(len(keys))], keys,
                  rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Recall relevance, mode {result.get('mode')} "
                 f"(lower is better: {', '.join(LOWER_IS_BETTER)}; bars: 95% CI)")
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)

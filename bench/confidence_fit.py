"""Fit the confidence model of the automatic gate (shared/rank/confidence.py) on tuning
data only, with grouped cross-validation, and choose its threshold for a target
false-positive rate.

    uv run python -m bench.confidence_fit --mode lexical|adaptive [--refresh]
        [--write] [--plot PATH] [--target-fpr 0.04]

Tuning data (never a held-out split): the dev set, mixed-vault's and no-answer's `tune`
splits, the regression set, and LoCoMo samples 0–4 in the owner's view, each asked its
own questions and the next sample's (no answer there). Every query is retrieved once
through the real path (worker/recall/automatic.candidates, time scope included) and its
candidates that hold a slot, to the gate's depth, become rows: the features of
shared/rank/evidence.py, computed by the same function the gate calls, and whether the
hit holds a judged document. Rows are cached under bench-output/confidence/
(`--refresh` retrieves them again).

The model is a logistic regression with an L2 penalty, fitted by Newton's method on
standardised features; the weights are folded back to the raw scale, so inference is one
dot product. Out-of-fold estimates (5 folds, grouped by query) give the reliability table,
the expected calibration error and the thresholds: the lowest one threshold at which the
out-of-fold gate keeps the false-positive rate at most `--target-fpr` on the no-answer
queries of both the vault sets and LoCoMo (the model's `threshold`, for a kind of hit with
none of its own), and one per kind of hit (note, message) searched jointly for the best
mean auto hit under the same bound (`kind_thresholds`, what the gate applies). The same
gate is then replayed on each memory's rows estimated by a fit on the other memories only
(`memory_out`): how a memory the fit never saw fares, the figure a held-out set's is
closer to. `--write`
rewrites shared/rank/confidence_models.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from itertools import pairwise, product
from pathlib import Path
from typing import Any

import numpy as np

from bench.evalset import Query, loaded_set, read_queries
from bench.gate_curve import Prepared, prepare
from bench.locomo_memory import DEFAULT_ROOT, memory, questions
from bench.system import _hit, indexed_semantics
from local.sqlite_db import SqliteDatabase
from shared.rank.confidence_models import LEXICAL, MINILM
from shared.rank.evidence import FEATURES
from shared.rank.policy import AUTOMATIC, assessed
from worker.recall.modes import Retrieved, gauge
from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.semantics import Semantics

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench-output" / "confidence"
MODELS_FILE = ROOT / "shared" / "rank" / "confidence_models.py"
SETS = ROOT / "bench" / "sets"
DEV = ROOT.parent / "shared" / "eval" / "dev"
LOCOMO_TUNE = (0, 1, 2, 3, 4)
FOLDS = 5
L2 = 1.0
# LoCoMo has ~2,000 tuning questions against ~280 of the vault sets: each LoCoMo row
# weighs this much, so that both kinds of memory shape the model about equally.
LOCOMO_WEIGHT = 0.15


@dataclass(frozen=True)
class Row:
    source: str
    query: str  # the query's id, unique within its source
    stage: int  # 0: within the time the query names; 1: as typed
    rank: int  # in the merged list, among the candidates that hold a slot
    group: str
    features: tuple[float, ...]
    relevant: bool
    answerable: bool  # the query has a judged answer

    @property
    def kind(self) -> str:
        """Its hit's kind (Identity.kind): the group is written `kind:group`."""
        return self.group.split(":", 1)[0]


@dataclass(frozen=True)
class Source:
    name: str
    weight: float


def _rows(source: str, q: Query, stage: int, found: Retrieved) -> list[Row]:
    _, weighed = assessed(found.candidates, AUTOMATIC, gauge(found, None))
    return [Row(source, q.id, stage, a.rank,
                f"{a.candidate.identity.kind}:{a.candidate.identity.group}",
                a.features,
                any(q.judgments.get(d, 0) >= 1 for d in _hit(a.candidate)),
                bool(q.judgments))
            for a in weighed.values()]


def _collect(source: str, db: SqliteDatabase, now_ms: int, queries: Sequence[Query],
             mode: RetrievalMode) -> list[Row]:
    sem = None if mode is RetrievalMode.LEXICAL else indexed_semantics(db, now_ms)

    async def run() -> list[Row]:
        return [r for q, stage, found in await retrieved(db, sem, mode, queries, now_ms)
                for r in _rows(source, q, stage, found)]

    return asyncio.run(run())


async def retrieved(db: SqliteDatabase, sem: Semantics | None, mode: RetrievalMode,
                    queries: Sequence[Query], now_ms: int
                    ) -> list[tuple[Query, int, Retrieved]]:
    """Each query retrieved as the gate sees it (bench.gate_curve.prepare): within the time
    it names (stage 0) and as typed (stage 1), where there is one."""
    out: list[tuple[Query, int, Retrieved]] = []
    for q in queries:
        p: Prepared = await prepare(db, sem, mode, q, now_ms)
        out.extend((q, stage, found[0]) for stage, found in enumerate((p.scoped, p.found))
                   if found is not None)
    return out


@contextmanager
def _vault_set(path: Path) -> Iterator[tuple[SqliteDatabase, int]]:
    with loaded_set(path) as loaded:
        yield loaded.db, loaded.now_ms


def sources() -> list[tuple[Source, Any]]:
    """Each tuning source with a function giving its rows in a mode."""
    out: list[tuple[Source, Any]] = []
    for name, path, split in (("dev", DEV, "all"), ("mixed-vault", SETS / "mixed-vault", "tune"),
                              ("no-answer", SETS / "no-answer", "tune"),
                              ("regression", SETS / "regression", "all")):
        def rows(mode: RetrievalMode, name: str = name, path: Path = path,
                 split: str = split) -> list[Row]:
            with _vault_set(path) as (db, now_ms):
                return _collect(name, db, now_ms, read_queries(path, split), mode)
        out.append((Source(name, 1.0), rows))
    for sample in LOCOMO_TUNE:
        def loco(mode: RetrievalMode, sample: int = sample) -> list[Row]:
            with memory(DEFAULT_ROOT, sample) as mem:
                qs = questions(DEFAULT_ROOT, "owner", sample, list(LOCOMO_TUNE))
                return _collect(f"locomo-{sample}", mem.db, mem.now_ms, qs, mode)
        out.append((Source(f"locomo-{sample}", LOCOMO_WEIGHT), loco))
    return out


def gathered(mode: RetrievalMode, refresh: bool) -> tuple[list[Row], dict[str, float]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    weights: dict[str, float] = {}
    for source, make in sources():
        path = CACHE / f"{mode.value}-{source.name}.json"
        if refresh or not path.exists():
            got = make(mode)
            path.write_text(json.dumps([astuple(r) for r in got]), encoding="utf-8")
            print(f"{source.name}: {len(got)} rows", file=sys.stderr, flush=True)
        rows.extend(Row(r[0], r[1], r[2], r[3], r[4], tuple(r[5]), r[6], r[7])
                    for r in json.loads(path.read_text(encoding="utf-8")))
        weights[source.name] = source.weight
    return rows, weights


# --- the fit ---------------------------------------------------------------------------

def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = L2,
        offset: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Weighted L2 logistic regression by Newton's method; (bias, weights) on the raw
    feature scale. `offset`: a fixed part of each row's log-odds (an extension's)."""
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mu) / sd])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    fixed = np.zeros(len(x)) if offset is None else offset
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(fixed + z @ beta, -30, 30)))
        grad = z.T @ (w * (p - y)) + penalty * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    raw = beta[1:] / sd
    return float(beta[0] - (raw * mu).sum()), raw


def predict(bias: float, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(bias + x @ weights, -30, 30)))


# (x, y, w) -> (bias, weights over every feature)
Fitter = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[float, np.ndarray]]


def extension(shipped_bias: float, shipped_weights: np.ndarray, columns: Sequence[int]
              ) -> Fitter:
    """A fit of the bias and the weights of `columns` only, every other feature keeping the
    shipped model's weight (its part of the log-odds a fixed offset): a feature added to a
    model whose other weights were kept for what the fit cannot see (the lexical model's,
    README "The gate's confidence")."""
    cols = list(columns)

    def fitted(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
        kept = shipped_weights.copy()
        kept[cols] = 0.0
        # The shipped bias in the offset: the fit starts from the shipped model (a start at
        # zero log-odds saturated and diverged) and finds a correction of it.
        bias, new = fit(x[:, cols], y, w, offset=shipped_bias + x @ kept)
        kept[cols] = new
        return shipped_bias + bias, kept
    return fitted


# The tuning sources that share one memory: no-answer's queries are asked of mixed-vault's
# corpus (bench/sets/no-answer/README.md).
MEMORY_OF = {"no-answer": "mixed-vault"}


def memory_of(source: str) -> str:
    return MEMORY_OF.get(source, source)


def memory_out(rows: Sequence[Row], x: np.ndarray, y: np.ndarray, w: np.ndarray,
               fitter: Fitter = fit) -> np.ndarray:
    """Each memory's rows estimated by a model fitted on every other memory's: what a
    memory the fit never saw gets, which query-grouped folds overstate (a feature such as
    index_size takes few values per memory, so folds within one memory learn its base
    rate)."""
    memories = np.array([memory_of(r.source) for r in rows])
    p = np.zeros(len(rows))
    for m in sorted(set(memories)):
        train = memories != m
        b, ws = fitter(x[train], y[train], w[train])
        p[~train] = predict(b, ws, x[~train])
    return p


def out_of_fold(rows: Sequence[Row], x: np.ndarray, y: np.ndarray, w: np.ndarray,
                fitter: Fitter = fit) -> np.ndarray:
    keys = sorted({(r.source, r.query) for r in rows})
    fold_of = {k: i % FOLDS for i, k in enumerate(keys)}
    folds = np.array([fold_of[(r.source, r.query)] for r in rows])
    p = np.zeros(len(rows))
    for f in range(FOLDS):
        train = folds != f
        b, ws = fitter(x[train], y[train], w[train])
        p[~train] = predict(b, ws, x[~train])
    return p


# --- the gate, replayed on estimates ---------------------------------------------------

Thresholds = float | Mapping[str, float]  # one for every kind, or one per kind


def _bar(thresholds: Thresholds, kind: str) -> float:
    return thresholds if isinstance(thresholds, float | int) else thresholds[kind]


Grouped = dict[tuple[str, str], tuple[bool, list[list[tuple[int, bool, float, str]]]]]


def grouped(rows: Sequence[Row], p: np.ndarray) -> Grouped:
    """Per query: whether it is answerable, and its stages in order, each its rows'
    (rank, relevant, estimate, kind) in list order."""
    by_query: dict[tuple[str, str], dict[int, list[tuple[int, bool, float, str]]]] = {}
    answerable: dict[tuple[str, str], bool] = {}
    for r, pi in zip(rows, p, strict=True):
        key = (r.source, r.query)
        by_query.setdefault(key, {}).setdefault(r.stage, []).append(
            (r.rank, r.relevant, float(pi), r.kind))
        answerable[key] = r.answerable
    return {key: (answerable[key], [sorted(stages[s]) for s in sorted(stages)])
            for key, stages in by_query.items()}


def gate_figures(rows: Sequence[Row] | Grouped, p: np.ndarray | None,
                 thresholds: Thresholds) -> dict[str, dict[str, float]]:
    """Per source: auto hit (answerable queries with a relevant hit injected) and FPR
    (no-answer queries with anything injected), for the gate that injects, in list order,
    at most AUTOMATIC.max_hits hits whose estimate reaches their kind's threshold: within
    the time a query names first, as typed when nothing there passes (automatic.gated).
    `rows` may come `grouped` already (then `p` is None)."""
    queries = rows if isinstance(rows, dict) else grouped(rows, p)  # type: ignore[arg-type]
    tally: dict[str, dict[str, float]] = {}
    for key, (answerable, stages) in queries.items():
        chosen: list[bool] = []
        for ranked in stages:
            chosen = [rel for _, rel, pi, kind in ranked
                      if pi >= _bar(thresholds, kind)][:AUTOMATIC.max_hits]
            if chosen:
                break
        t = tally.setdefault(key[0], {"hit": 0, "answerable": 0, "fp": 0, "empty": 0})
        if answerable:
            t["answerable"] += 1
            t["hit"] += any(chosen)
        else:
            t["empty"] += 1
            t["fp"] += bool(chosen)
    return tally


def rates(tally: dict[str, dict[str, float]], names: Sequence[str]) -> tuple[float, float]:
    hit = sum(tally[n]["hit"] for n in names if n in tally)
    ans = sum(tally[n]["answerable"] for n in names if n in tally)
    fp = sum(tally[n]["fp"] for n in names if n in tally)
    empty = sum(tally[n]["empty"] for n in names if n in tally)
    return (hit / ans if ans else float("nan"), fp / empty if empty else float("nan"))


def families(rows: Sequence[Row]) -> dict[str, list[str]]:
    names = sorted({r.source for r in rows})
    return {"vault sets": [n for n in names if not n.startswith("locomo")],
            "locomo 0-4": [n for n in names if n.startswith("locomo")]}


def choose_threshold(rows: Sequence[Row], p: np.ndarray, target: float) -> float:
    """The lowest threshold, one for every kind, at which every family's FPR is at most
    `target`."""
    fams = families(rows)
    for t in np.arange(0.05, 0.96, 0.01):
        tally = gate_figures(rows, p, float(t))
        if all(rates(tally, names)[1] <= target for names in fams.values()):
            return round(float(t), 2)
    return 0.95


# The per-kind search's grid: coarser than choose_threshold's, as it is searched jointly.
KIND_STEP = 0.02


def choose_kind_thresholds(rows: Sequence[Row], p: np.ndarray, target: float
                           ) -> dict[str, float]:
    """A threshold per kind of hit: of the settings at which every family's FPR is at most
    `target`, the one with the highest mean auto hit over the families (ties: the higher
    thresholds, which inject less). Notes and conversation units are told apart by
    different evidence (a unit's terms are a chat's, its neighbours carry the answer), so
    one estimate means a different risk for each; a shared threshold is held by whichever
    family is tightest."""
    fams = families(rows)
    kinds = sorted({r.kind for r in rows})
    grid = [round(float(t), 2) for t in np.arange(0.05, 0.96, KIND_STEP)]
    single = choose_threshold(rows, p, target)
    queries = grouped(rows, p)
    best: tuple[float, float, dict[str, float]] | None = None
    for values in product(grid, repeat=len(kinds)):
        bars = dict(zip(kinds, values, strict=True))
        tally = gate_figures(queries, None, bars)
        figures = [rates(tally, names) for names in fams.values()]
        if any(fpr > target for _, fpr in figures):
            continue
        key = (float(np.mean([hit for hit, _ in figures])), float(sum(values)))
        if best is None or key > best[:2]:
            best = (*key, bars)
    return best[2] if best else dict.fromkeys(kinds, single)


def related_floor(threshold: float) -> float:
    """Search lists a hit only the vector list holds when automatic recall would inject
    it: in the tuning rows such hits are almost never relevant (21 of 4,799 in the gate's
    top 10, out of fold none over 0.05), and in a young index the model's estimate of
    one can reach 0.2 with a cosine of 0.2 (tests/e2e/test_unknown_word_search_http.py).
    The figures of what it keeps are printed beside it."""
    return threshold


def reliability(p: np.ndarray, y: np.ndarray, w: np.ndarray, bins: int = 10
                ) -> tuple[list[tuple[float, float, float, int]], float]:
    """(mean estimate, observed rate, weight, rows) per bin, and the weighted ECE."""
    out = []
    ece = 0.0
    edges = np.linspace(0, 1, bins + 1)
    for lo, hi in pairwise(edges):
        inside = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if not inside.any():
            continue
        wt = w[inside].sum()
        mean_p = float((p[inside] * w[inside]).sum() / wt)
        rate = float((y[inside] * w[inside]).sum() / wt)
        out.append((mean_p, rate, float(wt), int(inside.sum())))
        ece += wt * abs(mean_p - rate)
    return out, ece / w.sum()


def plot(table: dict[str, list[tuple[float, float, float, int]]], path: Path,
         seen: str = "out of fold") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for name, bins in table.items():
        ax.plot([b[0] for b in bins], [b[1] for b in bins], marker="o", label=name)
    ax.set_xlabel(f"estimated P(relevant), {seen}")
    ax.set_ylabel("observed share relevant")
    ax.set_title("Reliability of the gate's estimate (tuning data)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# --- writing the constants -------------------------------------------------------------

def model_source(name: str, prefixes: tuple[str, ...], bias: float, weights: np.ndarray,
                 threshold: float, floor: float, comment: str,
                 per_kind: Mapping[str, float] | None = None) -> str:
    lines = [f"# {c}" for c in comment.splitlines()]
    ws = "\n".join(f"        {f!r}: {float(v):.6g}," for f, v in zip(FEATURES, weights,
                                                                     strict=True))
    const = name.upper().replace("-", "_")
    return "\n".join([*lines, f"{const} = ConfidenceModel(",
                      f"    name={name!r},", f"    model_prefixes={prefixes!r},",
                      f"    bias={bias:.6g},", "    weights={", ws, "    },",
                      f"    threshold={threshold},", f"    related_floor={floor},",
                      f"    kind_thresholds={dict(sorted((per_kind or {}).items()))!r},",
                      ")", ""])


HEADER = '''"""The fitted confidence models (shared/rank/confidence.py). Written by
`uv run python -m bench.confidence_fit --mode M --write` from tuning data only; the figures
beside each model are its out-of-fold ones."""

from __future__ import annotations

from shared.rank.confidence import ConfidenceModel

'''

SHIPPED = {RetrievalMode.LEXICAL: LEXICAL, RetrievalMode.ADAPTIVE: MINILM}
FIT_FOR = {RetrievalMode.LEXICAL: ("lexical", ()),
           RetrievalMode.ADAPTIVE: ("minilm", ("local/all-MiniLM-L6-v2",))}


MODEL_BLOCK = re.compile(r"(?ms)^# Fitted on.*?^(?P<name>[A-Z_]+) = ConfidenceModel\(.*?^\)\n")


def write_model(mode: RetrievalMode, text: str) -> None:
    """Replace this mode's model in the constants file, keeping the other."""
    blocks: dict[str, str] = {}
    if MODELS_FILE.exists():
        for m in MODEL_BLOCK.finditer(MODELS_FILE.read_text(encoding="utf-8")):
            blocks[m["name"]] = m[0]
    blocks["LEXICAL" if mode is RetrievalMode.LEXICAL else "MINILM"] = text
    ordered = [blocks[k] for k in ("LEXICAL", "MINILM") if k in blocks]
    tail = ("# Every calibrated embedder's model (the lexical one weighs the rest).\n"
            f"MODELS = {'(MINILM,)' if 'MINILM' in blocks else '()'}\n")
    MODELS_FILE.write_text(HEADER + "\n\n".join(ordered) + "\n\n" + tail, encoding="utf-8")


def _pair(figures: tuple[float, float]) -> str:
    return f"{figures[0]:.3f} / {figures[1]:.3f}".rjust(24)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=[m.value for m in FIT_FOR], default="lexical")
    parser.add_argument("--refresh", action="store_true", help="retrieve the rows again")
    parser.add_argument("--write", action="store_true",
                        help="write the model into shared/rank/confidence_models.py")
    parser.add_argument("--plot", type=Path, help="save the reliability diagram here")
    parser.add_argument("--target-fpr", type=float, default=0.04)
    parser.add_argument("--thresholds-only", action="store_true",
                        help="keep the shipped model's weights: choose its thresholds on its "
                        "own estimates of the rows (in sample), and write only those")
    parser.add_argument("--extend", nargs="+", metavar="FEATURE", choices=FEATURES,
                        help="keep the shipped model's other weights; fit the bias and "
                        "these features' weights only (out of fold, as a refit is)")
    args = parser.parse_args(argv)
    mode = RetrievalMode(args.mode)
    rows, source_weight = gathered(mode, args.refresh)
    x = np.array([r.features for r in rows], dtype=float)
    y = np.array([r.relevant for r in rows], dtype=float)
    w = np.array([source_weight[r.source] for r in rows], dtype=float)
    shipped = SHIPPED[mode]
    fitter: Fitter = fit if not args.extend else extension(
        shipped.bias, np.array([shipped.weights.get(f, 0.0) for f in FEATURES]),
        [FEATURES.index(f) for f in args.extend])
    p = (np.array([shipped.estimate(r.features) for r in rows]) if args.thresholds_only
         else out_of_fold(rows, x, y, w, fitter))
    seen = "in sample, the shipped weights" if args.thresholds_only else "out of fold"
    threshold = choose_threshold(rows, p, args.target_fpr)
    per_kind = choose_kind_thresholds(rows, p, args.target_fpr)
    floor = related_floor(threshold) if mode is not RetrievalMode.LEXICAL else 0.0
    brier = float((w * (p - y) ** 2).sum() / w.sum())
    fams = families(rows)
    table = {}
    print(f"mode {mode.value}: {len(rows)} rows, {int(y.sum())} relevant, "
          f"{len({(r.source, r.query) for r in rows})} queries")
    for name, names in fams.items():
        inside = np.array([r.source in names for r in rows])
        bins, ece = reliability(p[inside], y[inside], w[inside])
        table[name] = bins
        print(f"\nreliability, {name} ({seen}): ECE {ece:.3f}")
        print(f"{'mean P':>8}{'observed':>10}{'rows':>7}")
        for mean_p, rate, _, n in bins:
            print(f"{mean_p:8.3f}{rate:10.3f}{n:7d}")
    _, ece_all = reliability(p, y, w)
    at = FEATURES.index("vector_only")
    kept = [float(pi) >= floor for r, pi in zip(rows, p, strict=True)
            if r.relevant and r.features[at] > 0]
    print(f"\nall: ECE {ece_all:.3f}, Brier {brier:.4f}; threshold {threshold} "
          f"(FPR <= {args.target_fpr} in each family); related floor {floor} (keeps "
          f"{sum(kept)} of {len(kept)} relevant vector-only rows)")
    print(f"\n{'threshold':>9}" + "".join(f"{n + ' hit/FPR':>24}" for n in fams))
    for t in sorted({0.2, 0.3, 0.4, 0.5, 0.6, threshold}):
        tally = gate_figures(rows, p, t)
        cells = "".join(_pair(rates(tally, names)) for names in fams.values())
        print(f"{t:9.2f}{cells}{'  *' if t == threshold else ''}")
    tally = gate_figures(rows, p, per_kind)
    cells = "".join(_pair(rates(tally, names)) for names in fams.values())
    print(f"{'per kind':>9}{cells}  {per_kind} (the gate's)")
    print("\nper source at the per-kind thresholds (hit / FPR):")
    for name in sorted(tally):
        h, f = rates(tally, [name])
        print(f"  {name:14} {h:.3f} / {f:.3f}")
    if not args.thresholds_only:
        unseen = gate_figures(rows, memory_out(rows, x, y, w, fitter), per_kind)
        cells = "".join(_pair(rates(unseen, names)) for names in fams.values())
        print(f"\neach memory left out of the fit, at the same thresholds:\n{'':>9}{cells}")
        for name in sorted(unseen):
            h, f = rates(unseen, [name])
            print(f"  {name:14} {h:.3f} / {f:.3f}")
    if args.plot:
        plot(table, args.plot, seen)
        print(f"reliability diagram: {args.plot}")
    if args.write:
        if args.thresholds_only:
            bias = shipped.bias
            weights = np.array([shipped.weights.get(f, 0.0) for f in FEATURES])
        else:
            bias, weights = fitter(x, y, w)
        name, prefixes = FIT_FOR[mode]
        vault = rates(tally, fams["vault sets"])
        loco = rates(tally, fams["locomo 0-4"])
        comment = (f"Fitted on {len(rows)} rows of {len({(r.source, r.query) for r in rows})} "
                   f"tuning queries ({mode.value} retrieval).\n"
                   + ("Weights kept; thresholds chosen in sample: "
                      if args.thresholds_only else
                      f"Weights kept but {', '.join(args.extend)}'s; out of fold: "
                      if args.extend else "Out of fold: ")
                   + f"ECE {ece_all:.3f}, "
                   f"Brier {brier:.4f}; at the per-kind thresholds,\nvault sets auto hit "
                   f"{vault[0]:.3f} / FPR {vault[1]:.3f}, LoCoMo 0-4 (owner) {loco[0]:.3f} / "
                   f"{loco[1]:.3f}.")
        write_model(mode, model_source(name, prefixes, bias, weights, threshold, floor,
                                       comment, per_kind))
        print(f"wrote {MODELS_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

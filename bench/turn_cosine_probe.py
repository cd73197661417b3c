"""A probe (README, "The gate's confidence"): would a turn-level cosine separate relevant
from irrelevant conversation hits better than the unit's cosine, in the automatic gate?

    uv run python -m bench.turn_cosine_probe [--refresh]

A conversation unit (the owner's message and Mallory's reply) is embedded as one text,
so its cosine mixes both turns. For every row of the adaptive tuning data
(bench.confidence_fit's sources: never a held-out split) this retrieves the query again
through the same path and, for each assessed conversation candidate, embeds each turn
as the indexer would embed a unit (its first EMBED_CHARS characters, a passage) and
takes its cosine to the query's vector; a note keeps its unit cosine. Its partner's
turns (shared/rank/partners.py) are embedded too. The rows, with these extra columns,
are cached under bench-output/confidence-turn/.

Then the gate's logistic model is fitted out of fold (bench.confidence_fit's fit, folds
and gate replay) with the present features and with the new ones added, and the figures
are printed side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench import confidence_fit as cf
from bench.confidence_fit import Row
from bench.evalset import Query, read_queries
from bench.locomo_memory import DEFAULT_ROOT, memory, questions
from bench.system import _hit, indexed_semantics
from local.sqlite_db import SqliteDatabase
from shared.rank.candidate import Candidate
from shared.rank.evidence import FEATURES
from shared.rank.policy import AUTOMATIC, assessed
from worker.corpora.base import EMBED_CHARS
from worker.recall.modes import Retrieved, gauge
from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.semantics import Semantics

CACHE = cf.ROOT / "bench-output" / "confidence-turn"
MODE = RetrievalMode.ADAPTIVE


@dataclass(frozen=True)
class Extra:
    """A row's turn-level evidence (NaN where it has none)."""

    unit: float  # the unit's text's cosine, recomputed (checks the query vector)
    owner: float  # the owner's turn
    reply: float  # Mallory's turn
    focus: float  # the turn the hit points at (Identity.role)
    partner: float  # the best turn of its partner units (NaN: no partner)


def _turns(c: Candidate) -> tuple[str, str, bool]:
    """(owner's text, reply's text, the hit points at the reply)."""
    if c.identity.role == "assistant":
        return c.message.asked or "", c.presentation.text, True
    return c.presentation.text, c.message.reply or "", False


def _passage(text: str) -> str:
    return text.strip()[:EMBED_CHARS]


Pending = tuple[Row, str, str, str, bool, tuple[str, ...]]  # row, query, unit, owner, ...


def _pending(source: str, q: Query, stage: int, found: Retrieved) -> list[Pending]:
    _, weighed = assessed(found.candidates, AUTOMATIC, gauge(found, None))
    out: list[Pending] = []
    for a in weighed.values():
        c = a.candidate
        row = Row(source, q.id, stage, a.rank, f"{c.identity.kind}:{c.identity.group}",
                  a.features, any(q.judgments.get(d, 0) >= 1 for d in _hit(c)),
                  bool(q.judgments))
        if c.identity.kind != "message":
            out.append((row, "", "", "", False, ()))
            continue
        owner, reply, on_reply = _turns(c)
        unit = _passage(owner + "\n" + reply)
        partner = tuple(_passage(t.text) for t in c.message.partner if t.text.strip())
        out.append((row, found.lexical.query.text, unit, _passage(owner), on_reply,
                    (_passage(reply), *partner)))
    return out


async def _vectors(sem: Semantics, texts: set[str], kind: str) -> dict[str, np.ndarray]:
    todo = sorted(t for t in texts if t)
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(todo), 64):
        batch = todo[i:i + 64]
        got = await sem.embedder.embed(batch, kind)  # type: ignore[arg-type]
        out.update((t, np.asarray(v, dtype=float)) for t, v in zip(batch, got, strict=True))
    return out


def _collect(source: str, db: SqliteDatabase, now_ms: int, queries: Sequence[Query]
             ) -> list[tuple[Row, Extra]]:
    sem = indexed_semantics(db, now_ms)

    async def run() -> list[tuple[Row, Extra]]:
        pend: list[Pending] = [
            p for q, stage, found in await cf.retrieved(db, sem, MODE, queries, now_ms)
            for p in _pending(source, q, stage, found)]
        qv = await _vectors(sem, {p[1] for p in pend}, "query")
        pv = await _vectors(sem, {t for p in pend for t in (p[2], p[3], *p[5])}, "passage")
        nan = float("nan")

        def cos(query: str, text: str) -> float:
            return float(qv[query] @ pv[text]) if query and text else nan

        out = []
        for row, query, unit, owner, on_reply, rest in pend:
            if not query:
                out.append((row, Extra(nan, nan, nan, nan, nan)))
                continue
            reply, partner = rest[0], rest[1:]
            o, r = cos(query, owner), cos(query, reply)
            out.append((row, Extra(cos(query, unit), o, r, r if on_reply else o,
                                   max((cos(query, t) for t in partner), default=nan))))
        return out

    return asyncio.run(run())


def sources() -> list[tuple[cf.Source, Callable[[], list[tuple[Row, Extra]]]]]:
    """bench.confidence_fit's tuning sources, the same splits and samples."""
    out: list[tuple[cf.Source, Callable[[], list[tuple[Row, Extra]]]]] = []
    for name, path, split in (("dev", cf.DEV, "all"),
                              ("mixed-vault", cf.SETS / "mixed-vault", "tune"),
                              ("no-answer", cf.SETS / "no-answer", "tune"),
                              ("regression", cf.SETS / "regression", "all")):
        def rows(name: str = name, path: Path = path, split: str = split
                 ) -> list[tuple[Row, Extra]]:
            with cf._vault_set(path) as (db, now_ms):
                return _collect(name, db, now_ms, read_queries(path, split))
        out.append((cf.Source(name, 1.0), rows))
    for sample in cf.LOCOMO_TUNE:
        def loco(sample: int = sample) -> list[tuple[Row, Extra]]:
            with memory(DEFAULT_ROOT, sample) as mem:
                qs = questions(DEFAULT_ROOT, "owner", sample, list(cf.LOCOMO_TUNE))
                return _collect(f"locomo-{sample}", mem.db, mem.now_ms, qs)
        out.append((cf.Source(f"locomo-{sample}", cf.LOCOMO_WEIGHT), loco))
    return out


def gathered(refresh: bool) -> tuple[list[Row], list[Extra], dict[str, float]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    extras: list[Extra] = []
    weights: dict[str, float] = {}
    for source, make in sources():
        path = CACHE / f"{MODE.value}-{source.name}.json"
        if refresh or not path.exists():
            got = make()
            path.write_text(json.dumps([[astuple(r), astuple(e)] for r, e in got]),
                            encoding="utf-8")
            print(f"{source.name}: {len(got)} rows", file=sys.stderr, flush=True)
        for r, e in json.loads(path.read_text(encoding="utf-8")):
            rows.append(Row(r[0], r[1], r[2], r[3], r[4], tuple(r[5]), r[6], r[7]))
            extras.append(Extra(*(float("nan") if v is None else v for v in e)))
        weights[source.name] = source.weight
    return rows, extras, weights


# --- the comparison ---------------------------------------------------------------------

def auc(score: np.ndarray, y: np.ndarray) -> float:
    """P(a relevant row outscores an irrelevant one), ties half (unweighted)."""
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score))
    s = score[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = y.astype(bool)
    n1, n0 = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)) if n1 and n0 else np.nan


def new_columns(rows: Sequence[Row], extras: Sequence[Extra], best_of: Callable[..., Any]
                ) -> dict[str, np.ndarray]:
    """Candidate features, per row. A note (and a unit without a turn) keeps its unit
    cosine as its turn cosine; the `*_all` columns hold a cosine for every conversation
    row, lexical-only ones too (their unit cosine is 0 in FEATURES)."""
    at = FEATURES.index("cosine")
    unit = np.array([r.features[at] for r in rows])
    in_vec = np.array([r.features[FEATURES.index("vector_rr")] > 0 for r in rows])
    msg = np.array([r.kind == "message" for r in rows])
    owner = np.array([e.owner for e in extras])
    reply = np.array([e.reply for e in extras])
    focus = np.array([e.focus for e in extras])
    partner = np.array([e.partner for e in extras])
    recomputed = np.array([e.unit for e in extras])
    tmax = np.fmax(owner, reply)
    tmax = np.where(np.isnan(tmax), recomputed, tmax)
    tmax_p = np.fmax(tmax, partner)
    gap = np.abs(np.nan_to_num(owner - reply))
    # `turn_max`: the turn cosines only where the unit has a cosine (in the vector list),
    # as if only vector hits were looked up; the `_all` versions everywhere
    cols = {
        "turn_max": np.where(msg, np.where(in_vec, tmax, 0.0), unit),
        "turn_max_all": np.where(msg, np.nan_to_num(tmax), unit),
        "turn_max_partner_all": np.where(msg, np.nan_to_num(tmax_p), unit),
        "focus_cos_all": np.where(msg, np.nan_to_num(np.where(np.isnan(focus), recomputed,
                                                              focus)), unit),
        "turn_gap_all": np.where(msg, gap, 0.0),
        "unit_cos_all": np.where(msg, np.nan_to_num(recomputed), unit),
        "turn_minus_unit_all": np.where(msg, np.nan_to_num(tmax - recomputed), 0.0),
    }
    cols["turn_max_to_best_all"] = best_of(rows, cols["turn_max_all"])
    cols["turn_max_partner_to_best_all"] = best_of(rows, cols["turn_max_partner_all"])
    cols["unit_cos_to_best_all"] = best_of(rows, cols["unit_cos_all"])
    return cols


def to_best(rows: Sequence[Row], v: np.ndarray) -> np.ndarray:
    """Each row's value minus the best of its list (query and stage), over the rows the
    gate weighs (its depth)."""
    best: dict[tuple[str, str, int], float] = {}
    for r, x in zip(rows, v, strict=True):
        k = (r.source, r.query, r.stage)
        best[k] = max(best.get(k, -1.0), float(x))
    return np.array([x - best[(r.source, r.query, r.stage)]
                     for r, x in zip(rows, v, strict=True)])


def query_level(rows: Sequence[Row], scores: dict[str, np.ndarray]) -> None:
    """Per family, what one score alone does at the query level: each answerable query's
    best relevant row against each no-answer query's best row (the gate injects whatever
    passes, so a no-answer query's best row is its false positive)."""
    for fam, names in cf.families(rows).items():
        qs: dict[tuple[str, str], list[int]] = {}
        for i, r in enumerate(rows):
            if r.source in names:
                qs.setdefault((r.source, r.query), []).append(i)
        ans = [k for k in qs if rows[qs[k][0]].answerable]
        empty = [k for k in qs if not rows[qs[k][0]].answerable]
        held = [k for k in ans if any(rows[i].relevant for i in qs[k])]
        print(f"  {fam}: {len(ans)} answerable ({len(held)} with a relevant row within the "
              f"gate's depth: {len(held) / len(ans):.3f}), {len(empty)} no-answer")
        for name, v in scores.items():
            pos = np.array([max(v[i] for i in qs[k] if rows[i].relevant) for k in held])
            neg = np.array([max(v[i] for i in qs[k]) for k in empty])
            lab = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
            bar = float(np.quantile(neg, 0.95))
            print(f"    {name}: AUC {auc(np.concatenate([pos, neg]), lab):.3f}; above the "
                  f"no-answer queries' 95th percentile ({bar:.3f}): "
                  f"{(pos > bar).sum() / len(ans):.3f} of answerable")


def report(name: str, rows: Sequence[Row], x: np.ndarray, y: np.ndarray, w: np.ndarray
           ) -> dict[str, Any]:
    p = cf.out_of_fold(rows, x, y, w)
    fams = cf.families(rows)
    out: dict[str, Any] = {"name": name}
    cells = []
    for target in (0.04, 0.05):
        t = cf.choose_threshold(rows, p, target)
        tally = cf.gate_figures(rows, p, t)
        figs = {f: cf.rates(tally, n) for f, n in fams.items()}
        per = cf.choose_kind_thresholds(rows, p, target)
        ptally = cf.gate_figures(rows, p, per)
        pfigs = {f: cf.rates(ptally, n) for f, n in fams.items()}
        out[f"fpr{target}"] = {"threshold": t, "one": figs, "kinds": per, "per_kind": pfigs}
        cells.append(
            f"  FPR<={target}: one t={t:.2f} vault {figs['vault sets'][0]:.3f}/"
            f"{figs['vault sets'][1]:.3f} locomo {figs['locomo 0-4'][0]:.3f}/"
            f"{figs['locomo 0-4'][1]:.3f} | per kind {per} vault "
            f"{pfigs['vault sets'][0]:.3f}/{pfigs['vault sets'][1]:.3f} locomo "
            f"{pfigs['locomo 0-4'][0]:.3f}/{pfigs['locomo 0-4'][1]:.3f}")
    print(name)
    print("\n".join(cells), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--refresh", action="store_true", help="retrieve the rows again")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    rows, extras, source_weight = gathered(args.refresh)
    x = np.array([r.features for r in rows], dtype=float)
    y = np.array([r.relevant for r in rows], dtype=float)
    w = np.array([source_weight[r.source] for r in rows], dtype=float)
    cols = new_columns(rows, extras, to_best)
    msg = np.array([r.kind == "message" for r in rows])
    loco = np.array([r.source.startswith("locomo") for r in rows])
    at = FEATURES.index("cosine")
    in_vec = x[:, FEATURES.index("vector_rr")] > 0
    rec = np.array([e.unit for e in extras])
    ok = msg & in_vec & ~np.isnan(rec)
    print(f"{len(rows)} rows, {int(msg.sum())} conversation rows "
          f"({int((msg & in_vec).sum())} in the vector list), {int(y.sum())} relevant")
    print(f"check: recomputed unit cosine vs the row's, over {int(ok.sum())} vector rows: "
          f"max |diff| {np.abs(rec[ok] - x[ok, at]).max():.2e}")
    print("\nAUC among conversation rows (unweighted), relevant vs not:")
    for subset, mask in (("all conversation rows", msg),
                         ("in the vector list", msg & in_vec),
                         ("locomo conversation rows", msg & loco),
                         ("locomo, in the vector list", msg & loco & in_vec)):
        vals = {"cosine": x[:, at], **{k: cols[k] for k in (
            "unit_cos_all", "turn_max_all", "turn_max_partner_all", "focus_cos_all",
            "turn_gap_all", "turn_minus_unit_all", "turn_max_to_best_all",
            "unit_cos_to_best_all")}}
        print(f"  {subset} ({int(mask.sum())} rows, {int(y[mask].sum())} relevant): "
              + ", ".join(f"{k} {auc(v[mask], y[mask]):.3f}" for k, v in vals.items()))
    print("\nquery level, one score alone:")
    query_level(rows, {"cosine": x[:, at], "unit_cos_all": cols["unit_cos_all"],
                       "turn_max_all": cols["turn_max_all"],
                       "turn_max_partner_all": cols["turn_max_partner_all"]})
    per: dict[tuple[str, str, int], int] = {}
    for r in rows:
        k = (r.source, r.query, r.stage)
        per[k] = per.get(k, 0) + (r.kind == "message")
    m = np.array(list(per.values()))
    print(f"\nconversation rows the gate weighs per retrieval: {m.mean():.2f} mean, "
          f"p95 {np.quantile(m, 0.95):.0f} (two turns each to embed)\n")
    variants: list[tuple[str, list[str]]] = [
        ("present features", []),
        ("+ unit_cos_all (control: unit cosine filled in for lexical-only units)",
         ["unit_cos_all", "unit_cos_to_best_all"]),
        ("+ turn_max (vector-list units only)", ["turn_max"]),
        ("+ turn_max_all", ["turn_max_all"]),
        ("+ turn_max_all, turn_max_to_best_all", ["turn_max_all", "turn_max_to_best_all"]),
        ("+ turn_max_all, focus_cos_all, turn_gap_all",
         ["turn_max_all", "focus_cos_all", "turn_gap_all"]),
        ("+ turn_max_partner_all, its to_best",
         ["turn_max_partner_all", "turn_max_partner_to_best_all"]),
        ("+ all turn columns", ["turn_max_all", "turn_max_to_best_all", "focus_cos_all",
                                "turn_gap_all", "turn_minus_unit_all",
                                "turn_max_partner_all", "turn_max_partner_to_best_all"]),
    ]
    results = []
    for name, extra in variants:
        xx = np.hstack([x, *(cols[k][:, None] for k in extra)]) if extra else x
        results.append(report(name, rows, xx, y, w))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

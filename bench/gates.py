"""The release gates (docs/design.md) as a command: a candidate run against a recorded baseline.

    uv run python -m bench.gates --baseline bench/baselines/mixed-vault.json \\
        (--candidate CANDIDATE.json | --set bench/sets/mixed-vault [--mode M])

Both runs are `bench.relevance --json` files (with --set the candidate is run here, on
the baseline's split, in --mode or the default mode). The gates, compared query by query
on the same judged queries:
1. every exact-title or identifier query whose target (a document of its highest grade)
   the baseline places in its top 3 keeps a target in the top 3;
2. nDCG@10 at least 10% above the baseline (candidate ≥ 1.10 × baseline);
3. MRR at most 2% below it (≥ 0.98 × baseline);
4. automatic false-positive rate at least 25% below it (≤ 0.75 × baseline; a baseline
   of 0 leaves no room to fall, so the candidate must stay at 0);
5. Recall@20 at most 2 points below it (≥ baseline − 0.02).

Scope: the held-out queries when either run holds any (a set with a split); a set
without a split (regression, dev) is gated on all its queries, and the output says so.
Exit 0 when every gate passes, 1 when one fails, 2 on bad input: unreadable runs, no
per-query results, runs of different queries or judgments, a figure no query backs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import runfile
from bench.report import figure
from bench.runfile import RunFileError
from bench.scoring import BY_KEY, contributions, paired_figures, ratio
from bench.system import DEFAULT_MODE, MODES, ModeUnavailable
from bench.system import require as require_mode

EXACT_CATEGORIES = ("exact_title", "identifier")
TOP = 3
NDCG_GAIN = 0.10  # relative
MRR_LOSS = 0.02  # relative
FPR_CUT = 0.25  # relative
RECALL_LOSS = 0.02  # absolute: two points
# A candidate exactly on a bound passes, whatever the last bit of the float says.
TOLERANCE = 1e-9
HELDOUT = "heldout"


class GateInputError(ValueError):
    """Runs the gates cannot compare."""


@dataclass(frozen=True)
class Threshold:
    rule: str  # the gate in words
    metric: str  # a key of bench.scoring.METRICS
    bound: Callable[[float], float]  # the candidate's bound, from the baseline's figure
    at_least: bool  # the candidate must be ≥ the bound (else ≤)


THRESHOLDS = (
    Threshold(f"nDCG@10 ≥ {1 + NDCG_GAIN:.2f} × baseline", "ndcg@10",
              lambda b: b * (1 + NDCG_GAIN), True),
    Threshold(f"MRR ≥ {1 - MRR_LOSS:.2f} × baseline", "mrr", lambda b: b * (1 - MRR_LOSS),
              True),
    Threshold(f"auto FPR ≤ {1 - FPR_CUT:.2f} × baseline", "auto_fpr",
              lambda b: b * (1 - FPR_CUT), False),
    Threshold(f"Recall@20 ≥ baseline − {RECALL_LOSS:.2f}", "recall@20",
              lambda b: b - RECALL_LOSS, True),
)


@dataclass(frozen=True)
class Verdict:
    rule: str
    passed: bool
    detail: str


Entries = Mapping[str, Mapping[str, Any]]  # per-query results by query id


def scope(baseline: Mapping[str, Any], candidate: Mapping[str, Any]
          ) -> tuple[str, list[str], Entries, Entries]:
    """The queries gated (held-out when there is a split), the same in both runs."""
    runs = [{e["id"]: e for e in r["per_query"]} for r in (baseline, candidate)]
    split = any(e["split"] == HELDOUT for run in runs for e in run.values())
    b, c = ({i: e for i, e in run.items() if not split or e["split"] == HELDOUT}
            for run in runs)
    if b.keys() != c.keys():
        only_b, only_c = sorted(b.keys() - c.keys()), sorted(c.keys() - b.keys())
        raise GateInputError("the runs hold different queries (only in the baseline: "
                             f"{', '.join(only_b[:5]) or 'none'}; only in the candidate: "
                             f"{', '.join(only_c[:5]) or 'none'}): not the same set")
    for qid, entry in b.items():
        if (entry["judgments"], entry["category"]) != (c[qid]["judgments"], c[qid]["category"]):
            raise GateInputError(f"query {qid} is judged differently in the two runs: "
                                 "not the same set, or the judgments changed between them")
    name = "held-out split" if split else "all queries (the set has no held-out split)"
    return name, list(b), b, c


def has_target_in_top(entry: Mapping[str, Any]) -> bool:
    judgments = entry["judgments"]
    best = max(judgments.values(), default=0)
    return best > 0 and any(judgments.get(d) == best for d in entry["ranked"][:TOP])


def exact_gate(ids: Sequence[str], b: Entries, c: Entries) -> Verdict:
    held = [i for i in ids if b[i]["category"] in EXACT_CATEGORIES and has_target_in_top(b[i])]
    lost = [i for i in held if not has_target_in_top(c[i])]
    detail = (f"{len(held) - len(lost)} of {len(held)} kept"
              + (f"; lost: {', '.join(lost)}" if lost else ""))
    return Verdict(f"exact-title/identifier queries in the baseline's top {TOP} stay there",
                   not lost, detail)


def threshold_gate(t: Threshold, ids: Sequence[str], b: Entries, c: Entries) -> Verdict:
    fb, fc = [b[i]["figures"] for i in ids], [c[i]["figures"] for i in ids]
    base = ratio(*contributions(fb, BY_KEY[t.metric]))
    cand = ratio(*contributions(fc, BY_KEY[t.metric]))
    if base is None or cand is None:
        raise GateInputError(f"no gated query backs {t.metric}: the gate cannot be computed")
    bound = t.bound(base)
    passed = cand >= bound - TOLERANCE if t.at_least else cand <= bound + TOLERANCE
    change = f"{(cand - base) / base:+.1%}" if base else "baseline 0"
    diff = paired_figures(fc, fb, [t.metric])[t.metric]
    # Every gated metric is a share in [0, 1]: a bound above 1 cannot be met.
    unreachable = ", unreachable" if t.at_least and bound > 1 else ""
    detail = (f"candidate {cand:.3f}, baseline {base:.3f}, bound {bound:.3f}{unreachable} "
              f"({change}; "
              f"candidate − baseline {figure(diff['difference'], diff['ci'], signed=True)})")
    return Verdict(t.rule, passed, detail)


def evaluate(baseline: Mapping[str, Any], candidate: Mapping[str, Any]
             ) -> tuple[str, list[Verdict]]:
    name, ids, b, c = scope(baseline, candidate)
    verdicts = [exact_gate(ids, b, c), *(threshold_gate(t, ids, b, c) for t in THRESHOLDS)]
    return f"{name}, {len(ids)} queries", verdicts


def describe(run: Mapping[str, Any]) -> str:
    return f"mode {run.get('mode')}, commit {run.get('commit')}, set {run.get('set')}"


def report(baseline: Mapping[str, Any], candidate: Mapping[str, Any]) -> int:
    try:
        scope_name, verdicts = evaluate(baseline, candidate)
    except GateInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"baseline:  {describe(baseline)}\ncandidate: {describe(candidate)}\n"
          f"gated on:  {scope_name}")
    for v in verdicts:
        print(f"{'PASS' if v.passed else 'FAIL'}  {v.rule}: {v.detail}")
    failed = sum(not v.passed for v in verdicts)
    print(f"{len(verdicts) - failed} of {len(verdicts)} gates pass")
    return 1 if failed else 0


def candidate_run(args: argparse.Namespace, baseline: Mapping[str, Any]) -> dict[str, Any]:
    if args.candidate:
        return runfile.read(args.candidate)
    from bench.provenance import provenance
    from bench.relevance import run

    mode = args.mode or DEFAULT_MODE
    require_mode(mode)
    if not (args.set / "queries.jsonl").is_file():
        raise RunFileError(f"{args.set} has no queries.jsonl (docs/design.md, Evaluation sets)")
    result = {**run(args.set, baseline.get("split", "all"), mode), **provenance()}
    return runfile.checked(result, f"the run on {args.set}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, type=Path,
                        help="a recorded bench.relevance --json run")
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--candidate", type=Path, help="a recorded run to gate")
    given.add_argument("--set", type=Path, help="run the candidate on this set here")
    parser.add_argument("--mode", metavar="|".join(MODES),
                        help=f"the candidate's mode with --set (default: {DEFAULT_MODE})")
    args = parser.parse_args(argv)
    if args.mode and args.candidate:
        print("error: --mode goes with --set (a recorded candidate has its own mode)",
              file=sys.stderr)
        return 2
    try:
        baseline = runfile.read(args.baseline)
        candidate = candidate_run(args, baseline)
    except (RunFileError, ModeUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return report(baseline, candidate)


if __name__ == "__main__":
    sys.exit(main())

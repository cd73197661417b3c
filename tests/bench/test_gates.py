"""The release gates on hand-made recorded runs: each gate failing alone, all passing, a
false-positive baseline of 0, the held-out scope and bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from bench import gates, runfile
from tests.conftest import ROOT

SETS = ROOT / "bench" / "sets"

RULES = {"exact": "exact-title/identifier", "ndcg": "nDCG@10", "mrr": "MRR",
         "fpr": "auto FPR", "recall": "Recall@20"}


def entry(qid: str, category: str, judgments: dict[str, int], ranked: list[str],
          figures: dict[str, float], split: str = "heldout") -> dict[str, Any]:
    return {"id": qid, "category": category, "split": split, "judgments": judgments,
            "ranked": ranked, "injected": ranked[:1], "figures": figures}


def answerable(ndcg: float, mrr: float, recall: float) -> dict[str, float]:
    return {"ndcg@10": ndcg, "mrr": mrr, "recall@20": recall, "n_injected": 1.0,
            "auto_hit": 1.0, "injected_relevant": 1.0}


def empty(fp: float) -> dict[str, float]:
    return {"auto_fp": fp, "n_injected": fp}


# Held-out baseline: nDCG@10 0.75, MRR 0.75, Recall@20 0.90, FPR 0.5; one exact title at
# rank 1. The tune query is never gated.
BASELINE: dict[str, Any] = {"mode": "lexical", "split": "all", "system": {}, "per_query": [
    entry("e1", "exact_title", {"note:A.md": 3, "note:B.md": 1}, ["note:A.md", "note:B.md"],
          answerable(1.0, 1.0, 1.0)),
    entry("e2", "question", {"note:Q.md": 3}, ["note:X.md", "note:Q.md"],
          answerable(0.5, 0.5, 0.8)),
    entry("e3", "negative", {}, ["note:X.md"], empty(1.0)),
    entry("e4", "chit_chat", {}, [], empty(0.0)),
    entry("t1", "identifier", {"note:I.md": 3}, ["note:I.md"], answerable(1.0, 1.0, 1.0),
          split="tune"),
]}


def candidate(**changes: Any) -> dict[str, Any]:
    """A candidate that passes every gate (nDCG@10 0.85, FPR 0), with `changes` applied:
    {query id: {key: value}} on the entry, figures merged."""
    run = copy.deepcopy(BASELINE)
    by_id = {e["id"]: e for e in run["per_query"]}
    by_id["e2"]["figures"]["ndcg@10"] = 0.7
    by_id["e3"]["figures"] = empty(0.0)
    by_id["t1"].update(ranked=["note:X.md"], figures=answerable(0.0, 0.0, 0.0))
    for qid, change in changes.items():
        by_id[qid]["figures"].update(change.pop("figures", {}))
        by_id[qid].update(change)
    return run


def verdicts(baseline: dict[str, Any], cand: dict[str, Any]) -> dict[str, bool]:
    _, found = gates.evaluate(baseline, cand)
    return {key: next(v.passed for v in found if v.rule.startswith(rule))
            for key, rule in RULES.items()}


def test_a_clear_improvement_passes_every_gate() -> None:
    assert verdicts(BASELINE, candidate()) == dict.fromkeys(RULES, True)


@pytest.mark.parametrize(("gate", "change"), [
    ("exact", {"e1": {"ranked": ["note:X.md", "note:B.md", "note:Y.md", "note:A.md"]}}),
    ("ndcg", {"e2": {"figures": {"ndcg@10": 0.6}}}),  # 0.80 < 1.10 × 0.75
    ("mrr", {"e2": {"figures": {"mrr": 0.45}}}),  # 0.725 < 0.98 × 0.75
    ("fpr", {"e3": {"figures": empty(1.0)}}),  # 0.5 > 0.75 × 0.5
    ("recall", {"e2": {"figures": {"recall@20": 0.7}}}),  # 0.85 < 0.90 − 0.02
])
def test_each_gate_fails_alone(gate: str, change: dict) -> None:
    assert verdicts(BASELINE, candidate(**change)) == {k: k != gate for k in RULES}


def test_a_candidate_on_a_bound_passes() -> None:
    # Recall@20 (1.0 + 0.76) / 2 = 0.88 = 0.90 − 0.02 exactly, up to the float.
    assert verdicts(BASELINE, candidate(e2={"figures": {"recall@20": 0.76}}))["recall"]


def test_a_lesser_target_in_the_top_three_does_not_keep_an_exact_title() -> None:
    lost = candidate(e1={"ranked": ["note:B.md", "note:X.md", "note:Y.md"]})
    assert not verdicts(BASELINE, lost)["exact"]


def test_a_false_positive_baseline_of_zero_leaves_no_room() -> None:
    zero = copy.deepcopy(BASELINE)
    zero["per_query"][2]["figures"] = empty(0.0)
    assert verdicts(zero, candidate())["fpr"]
    assert not verdicts(zero, candidate(e4={"figures": empty(1.0)}))["fpr"]


def test_only_held_out_queries_are_gated_when_there_is_a_split() -> None:
    scope, _ = gates.evaluate(BASELINE, candidate())
    assert scope == "held-out split, 4 queries"  # t1 collapsed to 0 in the candidate


def test_a_set_without_a_split_is_gated_on_all_queries() -> None:
    def unsplit(run: dict) -> dict:
        run = copy.deepcopy(run)
        for e in run["per_query"]:
            e["split"] = "all"
        return run

    scope, _ = gates.evaluate(unsplit(BASELINE), unsplit(candidate()))
    assert scope == "all queries (the set has no held-out split), 5 queries"
    assert not verdicts(unsplit(BASELINE), unsplit(candidate()))["exact"]  # t1 now counts


@pytest.mark.parametrize(("cand", "message"), [
    ({"per_query": candidate()["per_query"][:3]}, "different queries"),
    ({"per_query": [{**e, "judgments": {"note:Z.md": 3}} if e["id"] == "e2" else e
                    for e in candidate()["per_query"]]}, "e2 is judged differently"),
])
def test_runs_of_different_sets_are_refused(cand: dict, message: str) -> None:
    with pytest.raises(gates.GateInputError, match=message):
        gates.evaluate(BASELINE, {**candidate(), **cand})


def test_a_figure_no_query_backs_is_refused() -> None:
    answerable_only = copy.deepcopy(BASELINE)
    answerable_only["per_query"] = answerable_only["per_query"][:2]
    with pytest.raises(gates.GateInputError, match="no gated query backs auto_fpr"):
        gates.evaluate(answerable_only, copy.deepcopy(answerable_only))


def write(tmp_path: Path, name: str, run: dict) -> Path:
    path = tmp_path / name
    runfile.write(run, path)
    return path


def test_the_command_exits_0_1_or_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    base = write(tmp_path, "base.json", BASELINE)
    good, bad = write(tmp_path, "good.json", candidate()), write(
        tmp_path, "bad.json", candidate(e2={"figures": {"mrr": 0.1}}))
    assert gates.main(["--baseline", str(base), "--candidate", str(good)]) == 0
    out = capsys.readouterr().out
    assert "gated on:  held-out split, 4 queries" in out and "5 of 5 gates pass" in out
    assert ("PASS  nDCG@10 ≥ 1.10 × baseline: candidate 0.850, baseline 0.750, bound 0.825"
            in out)
    assert gates.main(["--baseline", str(base), "--candidate", str(bad)]) == 1
    assert "FAIL  MRR ≥ 0.98 × baseline: candidate 0.550" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "not JSON"),
    (json.dumps({"system": {}}), "no per-query results"),
    (json.dumps({"system": {}, "per_query": [{"id": "e1"}]}), "per_query[0] lacks"),
])
def test_bad_run_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture, content: str,
                              message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    good = write(tmp_path, "good.json", candidate())
    assert gates.main(["--baseline", str(bad), "--candidate", str(good)]) == 2
    assert message in capsys.readouterr().err


def test_mismatched_runs_and_misused_flags_exit_2(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    base = write(tmp_path, "base.json", BASELINE)
    other = write(tmp_path, "other.json", {**candidate(),
                                           "per_query": candidate()["per_query"][1:]})
    assert gates.main(["--baseline", str(base), "--candidate", str(other)]) == 2
    assert "only in the baseline: e1" in capsys.readouterr().err
    assert gates.main(["--baseline", str(base), "--candidate", str(base),
                       "--mode", "hybrid"]) == 2
    assert "--mode goes with --set" in capsys.readouterr().err
    assert gates.main(["--baseline", str(base), "--set", str(tmp_path)]) == 2
    assert "has no queries.jsonl" in capsys.readouterr().err
    assert gates.main(["--baseline", str(base), "--set", str(SETS / "regression"),
                       "--mode", "turbo"]) == 2
    assert "unknown mode 'turbo'" in capsys.readouterr().err

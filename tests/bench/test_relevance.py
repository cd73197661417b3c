"""The relevance, ablation and gates commands end to end on the regression set (loaded
through the real path): the recorded JSON, its intervals and per-query results, and the
gates run on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import ablation, gates, relevance, runfile, system
from bench.report import print_table
from bench.scoring import METRICS, PAIRED
from tests.conftest import ROOT

SET = ROOT / "bench" / "sets" / "regression"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, str]:
    path = tmp_path_factory.mktemp("run") / "regression.json"
    assert relevance.main(["--set", str(SET), "--mode", "lexical", "--json", str(path)]) == 0
    return path, json.loads(path.read_text(encoding="utf-8")), path.read_text(encoding="utf-8")


def test_the_json_keeps_its_schema_and_adds_intervals(recorded: tuple) -> None:
    _, result, _ = recorded
    assert {"system", "baselines", "paired", "per_query", "mode", "commit", "machine"} <= \
        result.keys()
    assert result["mode"] == "lexical" and result["set"] == "regression"
    for figures in (result["system"], *result["baselines"].values()):
        assert {m.key for m in METRICS} | {"n_queries", "per_category", "ci"} <= figures.keys()
        lo, hi = figures["ci"]["ndcg@10"]
        assert lo <= figures["ndcg@10"] <= hi
        for category in figures["per_category"].values():
            assert category["ci"].keys() == {m.key for m in METRICS}
    assert set(result["paired"]) == {"fts5_naive", "bm25s"}
    assert set(result["paired"]["bm25s"]) == set(PAIRED)
    # Only the contradiction queries mark a canonical doc or a conflict; elsewhere there is
    # no figure, not a zero.
    assert result["system"]["contradiction_coverage"] == 1.0
    per_category = result["system"]["per_category"]
    assert per_category["contradiction"]["canonical_first_auto"] == 1.0
    assert per_category["exact_title"]["canonical_first_auto"] is None
    assert per_category["exact_title"]["contradiction_coverage"] is None


def test_the_table_shows_each_figure_with_its_interval(recorded: tuple,
                                                      capsys: pytest.CaptureFixture) -> None:
    result = recorded[1]
    print_table(result)
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.startswith("ndcg@10 "))
    lo, hi = result["system"]["ci"]["ndcg@10"]
    assert row.split()[1:4] == [f"{result['system']['ndcg@10']:.3f}", f"[{lo:.3f},",
                                f"{hi:.3f}]"]
    assert any(line.startswith("mallory − baseline (paired bootstrap)") for line in lines)


def test_every_query_is_recorded_on_one_line(recorded: tuple) -> None:
    _, result, text = recorded
    entries = result["per_query"]
    assert len(entries) == result["system"]["n_queries"] == 44
    first = entries[0]
    assert set(first) == set(runfile.PER_QUERY_KEYS)
    assert first["ranked"][0] in first["judgments"] and len(first["ranked"]) <= 20
    lines = [line for line in text.splitlines() if line.startswith('    {"id": ')]
    assert len(lines) == 44
    assert runfile.read(recorded[0])["per_query"] == entries


def test_a_run_gated_against_itself_fails_only_the_improvement_gates(
        recorded: tuple, capsys: pytest.CaptureFixture) -> None:
    path = str(recorded[0])
    assert gates.main(["--baseline", path, "--candidate", path]) == 1
    out = capsys.readouterr().out
    assert "gated on:  all queries (the set has no held-out split), 44 queries" in out
    assert "FAIL  nDCG@10" in out and "PASS  MRR" in out and "PASS  Recall@20" in out
    assert "PASS  exact-title/identifier" in out


def test_ablation_runs_modes_through_the_same_seam(recorded: tuple,
                                                   capsys: pytest.CaptureFixture) -> None:
    result = ablation.run(SET, ["lexical"])
    assert result["modes"]["lexical"] == recorded[1]["system"]
    ablation.print_table(result)
    assert capsys.readouterr().out.splitlines()[2].startswith("lexical")


@pytest.mark.parametrize("command", [relevance.main, ablation.main])
def test_an_unknown_mode_is_refused_before_loading(command, capsys: pytest.CaptureFixture
                                                   ) -> None:
    args = ["--set", str(SET), "--mode" if command is relevance.main else "--modes",
            "lexical,turbo" if command is ablation.main else "turbo"]
    assert command(args) == 2
    assert "unknown mode 'turbo'" in capsys.readouterr().err


def test_a_mode_without_its_stack_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(system, "BUILDERS", {"lexical": system.BUILDERS["lexical"]})
    with pytest.raises(system.ModeUnavailable, match="not available in this build"):
        system.require("hybrid")

"""The gate curve on the regression set (loaded through the real path): today's setting
reproduces bench.relevance's automatic figures, a stricter floor never injects more, and
bad input is refused."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from bench import gate_curve, relevance
from shared.rank.confidence_models import LEXICAL
from shared.rank.policy import AUTOMATIC
from tests.conftest import ROOT

SET = ROOT / "bench" / "sets" / "regression"


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    path = tmp_path_factory.mktemp("curve") / "curve.json"
    assert gate_curve.main(["--set", str(SET), "--mode", "lexical", "--json", str(path)]) == 0
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_current_setting_reproduces_the_relevance_run(rows: list[dict]) -> None:
    system = relevance.run(SET, "all", "lexical")["system"]
    current = [r for r in rows if r["current"]]
    assert {r["knob"]: r["value"] for r in current} == {
        "min_relevance": AUTOMATIC.min_relevance, "threshold": LEXICAL.threshold}
    for r in current:
        assert r["auto_fpr"] == system["auto_fpr"]
        assert r["auto_hit_rate"] == system["auto_hit_rate"]
        assert r["auto_precision"] == system["auto_precision"]


@pytest.mark.parametrize("knob", ["threshold", "min_relevance"])
def test_a_stricter_gate_never_injects_more(rows: list[dict], knob: str) -> None:
    curve = sorted((r for r in rows if r["knob"] == knob), key=lambda r: r["value"])
    assert len(curve) >= 5
    for low, high in pairwise(curve):
        assert high["auto_hit_rate"] <= low["auto_hit_rate"]
        assert high["auto_fpr"] <= low["auto_fpr"]


def test_the_threshold_moves_the_curve(rows: list[dict]) -> None:
    curve = sorted((r for r in rows if r["knob"] == "threshold"), key=lambda r: r["value"])
    assert curve[0]["auto_fpr"] > curve[-1]["auto_fpr"]
    assert curve[0]["auto_hit_rate"] > curve[-1]["auto_hit_rate"]


def test_bad_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert gate_curve.main(["--set", str(tmp_path)]) == 2
    assert "no queries.jsonl" in capsys.readouterr().err
    assert gate_curve.main(["--set", str(SET), "--mode", "nope"]) == 2
    assert "unknown mode" in capsys.readouterr().err
    assert gate_curve.main(["--set", str(SET), "--split", "tune"]) == 2
    assert "no query in split" in capsys.readouterr().err

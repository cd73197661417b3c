"""bench.standing: every constant measured on its own, on the regression set (the one with
judged conflict cases that runs in CI)."""

from __future__ import annotations

import pytest

from bench.standing import CONSTANTS, print_table, run, variants
from shared.rank.policy import NEUTRAL, STANDING
from tests.conftest import ROOT


def test_variants_switch_one_constant_at_a_time() -> None:
    by_name = {v.name: v for v in variants()}
    assert by_name["none"].weights == NEUTRAL and not by_name["none"].together
    assert by_name["design"].weights == STANDING and by_name["design"].together
    for c in CONSTANTS:
        assert getattr(by_name[f"without {c}"].weights, c) == 0.0
        only = by_name[f"only {c}"].weights
        assert [getattr(only, k) for k in CONSTANTS] == [
            getattr(STANDING, k) if k == c else 0.0 for k in CONSTANTS]


def test_bundles_are_what_shows_competing_notes_together(capsys: pytest.CaptureFixture
                                                        ) -> None:
    result = run(ROOT / "bench" / "sets" / "regression", only=("none", "design", "no bundles"))
    figures = result["variants"]
    assert figures["design"]["contradiction_coverage"] == 1.0
    assert figures["no bundles"]["contradiction_coverage"] < 1.0
    assert figures["none"]["ndcg@10"] == pytest.approx(figures["design"]["ndcg@10"])
    print_table(result)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "set: regression  split: all  mode: lexical"
    assert "design − none (paired bootstrap, 95%):" in out

"""The fit of the confidence model (bench/confidence_fit.py): it recovers a known logistic
model, replays the gate on estimates as automatic recall would, and rewrites the constants
file keeping the other model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench import confidence_fit as cf
from shared.rank.evidence import FEATURES
from shared.rank.policy import AUTOMATIC
from worker.recall.retrieval_mode import RetrievalMode


def test_the_fit_recovers_a_known_model() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4_000, 3))
    truth = np.array([2.0, -1.0, 0.0])
    y = (rng.random(4_000) < 1 / (1 + np.exp(-(0.5 + x @ truth)))).astype(float)
    bias, weights = cf.fit(x, y, np.ones(4_000), l2=0.0)
    assert bias == pytest.approx(0.5, abs=0.15)
    assert weights == pytest.approx(truth, abs=0.15)


def test_an_extension_fits_its_features_and_the_bias_and_keeps_every_other_weight() -> None:
    # The shipped model is off in its bias and lacks the third feature: the extension finds
    # both and leaves the first two weights as shipped, however the data would refit them.
    rng = np.random.default_rng(11)
    x = rng.normal(size=(6_000, 3))
    truth_bias, truth = -1.0, np.array([1.5, -2.0, 1.2])
    y = (rng.random(6_000) < 1 / (1 + np.exp(-(truth_bias + x @ truth)))).astype(float)
    shipped = np.array([1.0, -2.0, 0.0])
    bias, weights = cf.extension(-3.0, shipped, [2])(x, y, np.ones(6_000))
    assert weights[:2].tolist() == shipped[:2].tolist()
    assert weights[2] == pytest.approx(1.0, abs=0.25)  # 1.2, with weight 1.0 kept for 1.5
    assert bias == pytest.approx(truth_bias, abs=0.3)


def _row(query: str, rank: int, relevant: bool, answerable: bool, stage: int = 1,
         kind: str = "note", source: str = "s") -> cf.Row:
    return cf.Row(source, query, stage, rank, f"{kind}:g{rank}", (0.0,) * len(FEATURES),
                  relevant, answerable)


def test_the_gate_is_replayed_in_list_order_within_the_time_named_first() -> None:
    rows = [_row("a", 1, False, True), _row("a", 2, True, True),  # answerable
            _row("n", 1, False, False),  # no answer
            _row("t", 1, True, True, stage=0), _row("t", 1, False, True, stage=1)]
    p = np.array([0.9, 0.8, 0.3, 0.6, 0.9])
    tally = cf.gate_figures(rows, p, 0.5)["s"]
    assert (tally["hit"], tally["answerable"], tally["fp"], tally["empty"]) == (2, 2, 0, 1)
    tally = cf.gate_figures(rows, p, 0.85)["s"]
    # "a": only its irrelevant first hit passes; "t": the scoped stage has none, so as typed.
    assert (tally["hit"], tally["answerable"]) == (0, 2)
    many = [_row("m", r, r == AUTOMATIC.max_hits + 1, True) for r in range(1, 6)]
    assert cf.gate_figures(many, np.full(5, 0.9), 0.5)["s"]["hit"] == 0  # past max_hits


def test_each_kind_is_replayed_against_its_own_threshold() -> None:
    rows = [_row("a", 1, False, True), _row("a", 2, True, True, kind="message")]
    p = np.array([0.9, 0.4])
    assert cf.gate_figures(rows, p, {"note": 0.5, "message": 0.3})["s"]["hit"] == 1
    assert cf.gate_figures(rows, p, 0.5)["s"]["hit"] == 0


def test_the_kinds_thresholds_are_the_best_mean_hit_within_the_fpr_bound() -> None:
    # Vault sets: notes; LoCoMo: conversation units. A unit's estimate of 0.3 answers its
    # query, and the no-answer units reach 0.2 at most; a note needs 0.7.
    rows = [_row("v1", 1, True, True, source="dev"),
            _row("v0", 1, False, False, source="dev"),
            _row("l1", 1, True, True, kind="message", source="locomo-0"),
            _row("l0", 1, False, False, kind="message", source="locomo-0")]
    p = np.array([0.8, 0.6, 0.3, 0.2])
    # One threshold for both is held by the notes: above the no-answer note's 0.6.
    assert 0.6 <= cf.choose_threshold(rows, p, 0.0) <= 0.61
    bars = cf.choose_kind_thresholds(rows, p, 0.0)
    assert bars["note"] > 0.6 and 0.2 < bars["message"] <= 0.3
    tally = cf.gate_figures(rows, p, bars)
    assert [cf.rates(tally, [n]) for n in ("dev", "locomo-0")] == [(1.0, 0.0), (1.0, 0.0)]


def test_each_memory_is_estimated_by_a_fit_on_the_others_only() -> None:
    """A feature that only tells memories apart predicts within one memory and nothing
    across them: out of fold it looks useful, with the memory left out it does not.
    no-answer's queries are asked of mixed-vault's corpus: one memory, left out together."""
    rng = np.random.default_rng(3)
    rows: list[cf.Row] = []
    for source, base in (("dev", 0.9), ("mixed-vault", 0.1), ("no-answer", 0.1),
                         ("regression", 0.9)):
        for i in range(300):
            values = [0.0] * len(FEATURES)
            values[FEATURES.index("index_size")] = base  # a memory's identity
            rows.append(cf.Row(source, f"q{i}", 1, 1, "note:g", tuple(values),
                               bool(rng.random() < base), True))
    x = np.array([r.features for r in rows])
    y = np.array([r.relevant for r in rows], dtype=float)
    w = np.ones(len(rows))
    folds, left_out = cf.out_of_fold(rows, x, y, w), cf.memory_out(rows, x, y, w)
    dev = np.array([r.source == "dev" for r in rows])
    assert folds[dev].mean() == pytest.approx(0.9, abs=0.05)
    # Fitted without dev, the feature's value 0.9 is regression's alone: still high...
    assert left_out[dev].mean() > 0.8
    # ...but mixed-vault left out takes no-answer with it, and is never seen at all.
    mv = np.array([r.source in ("mixed-vault", "no-answer") for r in rows])
    assert folds[mv].mean() == pytest.approx(0.1, abs=0.05)
    assert left_out[mv].mean() > 0.5
    assert cf.memory_of("no-answer") == "mixed-vault" == cf.memory_of("mixed-vault")


def test_writing_one_model_keeps_the_other(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cf, "MODELS_FILE", tmp_path / "models.py")
    weights = np.zeros(len(FEATURES))
    for mode, threshold in ((RetrievalMode.LEXICAL, 0.4), (RetrievalMode.ADAPTIVE, 0.6),
                            (RetrievalMode.LEXICAL, 0.45)):
        name, prefixes = cf.FIT_FOR[mode]
        cf.write_model(mode, cf.model_source(name, prefixes, -1.0, weights, threshold,
                                             threshold, "Fitted on a test.",
                                             {"message": threshold - 0.1}))
    namespace: dict[str, object] = {}
    exec(compile(cf.MODELS_FILE.read_text(encoding="utf-8"), "models.py", "exec"), namespace)
    assert namespace["LEXICAL"].threshold == 0.45  # type: ignore[attr-defined]
    assert namespace["MINILM"].threshold == 0.6  # type: ignore[attr-defined]
    assert namespace["LEXICAL"].threshold_for("message") == pytest.approx(  # type: ignore[attr-defined]
        0.35)
    assert namespace["MODELS"] == (namespace["MINILM"],)

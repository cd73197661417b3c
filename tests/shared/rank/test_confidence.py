"""The calibrated estimate: its inference, and the models shipped."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.rank.confidence import ConfidenceModel, model_for
from shared.rank.confidence_models import LEXICAL, MODELS
from shared.rank.evidence import FEATURES


def test_the_estimate_is_the_logistic_of_the_weighted_features() -> None:
    model = ConfidenceModel(name="t", model_prefixes=(), bias=-1.0,
                            weights={"relevance": 2.0, "coverage": 1.0}, threshold=0.5,
                            related_floor=0.0)
    values = [0.0] * len(FEATURES)
    values[FEATURES.index("relevance")] = 0.5
    values[FEATURES.index("coverage")] = 1.0
    assert model.estimate(values) == pytest.approx(1 / (1 + math.exp(-1.0)))


def test_a_model_that_weighs_an_unknown_feature_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown features"):
        ConfidenceModel(name="t", model_prefixes=(), bias=0.0, weights={"nonsense": 1.0},
                        threshold=0.5, related_floor=0.0)


def test_a_kind_with_a_threshold_of_its_own_is_held_to_it_and_any_other_to_the_models(
        ) -> None:
    model = ConfidenceModel(name="t", model_prefixes=(), bias=0.0, weights={}, threshold=0.5,
                            related_floor=0.0, kind_thresholds={"message": 0.4})
    assert (model.threshold_for("message"), model.threshold_for("note"),
            model.threshold_for("bookmark")) == (0.4, 0.5, 0.5)


def test_the_shipped_models_hold_conversation_units_to_a_lower_threshold() -> None:
    # Chosen per kind on tuning data (bench/confidence_fit.py): a unit's estimate reaches
    # the false-positive target lower than a note's.
    for m in (LEXICAL, *MODELS):
        assert set(m.kind_thresholds) == {"note", "message"}, m.name
        assert m.threshold_for("message") < m.threshold_for("note"), m.name


def test_the_lexical_model_reads_no_vector_feature() -> None:
    for name in ("vector_rr", "both_lists", "vector_only", "cosine", "cosine_to_best"):
        assert LEXICAL.weights.get(name, 0.0) == 0.0, name


def test_each_embedder_gets_its_own_model_and_any_other_the_lexical_one() -> None:
    for m in MODELS:
        for prefix in m.model_prefixes:
            assert model_for(MODELS, LEXICAL, prefix + "-int8@x/t256") is m
    assert model_for(MODELS, LEXICAL, "@cf/baai/bge-small-en-v1.5") is LEXICAL
    assert model_for(MODELS, LEXICAL, None) is LEXICAL


@given(low=st.floats(0.0, 1.0), high=st.floats(0.0, 1.0))
def test_more_relevance_never_lowers_the_lexical_estimate(low: float, high: float) -> None:
    low, high = sorted((low, high))
    values = [0.0] * len(FEATURES)
    at, root = FEATURES.index("relevance"), FEATURES.index("sqrt_relevance")

    def p(r: float) -> float:
        values[at], values[root] = r, math.sqrt(r)
        return LEXICAL.estimate(values)

    assert p(low) <= p(high) + 1e-12


@given(z=st.floats(-800.0, 800.0))
def test_the_estimate_never_overflows(z: float) -> None:
    model = ConfidenceModel(name="t", model_prefixes=(), bias=z, weights={}, threshold=0.5,
                            related_floor=0.0)
    assert 0.0 <= model.estimate([0.0] * len(FEATURES)) <= 1.0

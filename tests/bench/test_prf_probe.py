"""The RM3 probe (bench/prf_probe.py): BM25 over a sample's units loaded through the real
path, the query expanded by its best units' terms, and the reporting samples refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import prf_probe
from bench.prf_probe import Expansion, Units, bag
from tests.bench.test_locomo import TALKS, _sample

UNITS = Units([(("msg:a", "msg:b"), bag("I adopted a rescue greyhound called Biscuit.")),
               (("msg:c", "msg:d"), bag("Biscuit sleeps on the sofa and snores.")),
               (("msg:e",), bag("My pottery class starts glazing next Tuesday."))])


def test_the_query_is_expanded_by_its_best_units_words() -> None:
    weights = {"greyhound": 1.0}
    first = UNITS.ranked(weights)
    assert [i for _, i in first] == [0]  # only the unit that holds the word
    mixed = UNITS.expanded(weights, first, Expansion(docs=1, terms=6, keep=0.7))
    assert mixed["greyhound"] > 0.7 and sum(mixed.values()) == pytest.approx(1.0)
    assert "biscuit" in mixed and "pottery" not in mixed
    # Through the expansion the unit that never says "greyhound" is found too.
    assert [i for _, i in UNITS.ranked(mixed)][:2] == [0, 1]
    assert UNITS.listed(UNITS.ranked(mixed)) == ["msg:a", "msg:b", "msg:c", "msg:d"]


def test_without_feedback_units_the_query_is_kept() -> None:
    assert UNITS.expanded({"kiln": 1.0}, [], Expansion(3, 10, 0.7)) == {"kiln": 1.0}


def test_a_sample_is_read_through_its_memory(tmp_path: Path) -> None:
    root = tmp_path / "locomo"
    for n in TALKS:
        _sample(root, n)
    (root / "manifest.json").write_text(json.dumps({}), encoding="utf-8")
    result = prf_probe.run([0], root, tmp_path / "cache",
                           (Expansion(0, 0, 1.0), Expansion(1, 5, 0.7)))
    for rows in result.values():
        ((category, recall, ndcg),) = rows  # the sample's one question
        assert category == "single_hop" and recall == 1.0 and 0 < ndcg <= 1.0


def test_the_reporting_samples_are_refused(capsys: pytest.CaptureFixture) -> None:
    assert prf_probe.main(["--samples", "4-5"]) == 2
    assert "5–9 are for reporting only" in capsys.readouterr().err

"""bench.pool: several relevance runs as one set of queries, with the pointer ratio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.pool import main, pooled


def run(name: str, figures: list[dict[str, float]]) -> dict:
    return {"set": name, "mode": "lexical", "per_query": [
        {"id": f"{name}-{i}", "category": "single_hop", "judgments": {"msg:a": 1},
         "figures": f} for i, f in enumerate(figures)]}


def test_runs_pool_as_one_set_and_the_pointer_ratio_is_a_ratio_of_sums() -> None:
    a = run("a", [{"ndcg@10": 1.0, "ndcg@10_pointer": 0.5}])
    b = run("b", [{"ndcg@10": 0.5, "ndcg@10_pointer": 0.5}, {"ndcg@10": 0.5,
                                                              "ndcg@10_pointer": 0.0}])
    result = pooled([a, b])
    assert result["n_queries"] == 3
    assert result["ndcg@10"] == pytest.approx(2 / 3)
    assert result["pointer_ratio"] == pytest.approx(1.0 / 2.0)
    low, high = result["ci"]["pointer_ratio"]
    assert low <= 0.5 <= high


def test_a_missing_run_file_is_an_error_naming_it(tmp_path: Path, capsys) -> None:
    good = tmp_path / "a.json"
    good.write_text(json.dumps(run("a", [{"ndcg@10": 1.0, "ndcg@10_pointer": 1.0}])))
    assert main([str(good), str(tmp_path / "nope.json")]) == 2
    assert "nope.json" in capsys.readouterr().err
    assert main([str(good)]) == 0
    assert "pointer_ratio               1.000" in capsys.readouterr().out

"""Writing and reading a recorded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.runfile import RunFileError, dumps, read, write

ENTRY = {"id": "q1", "category": "typo", "split": "all", "judgments": {"note:é.md": 3},
         "ranked": ["note:é.md"], "injected": [], "figures": {"mrr": 1.0}}


def test_a_run_round_trips_with_intervals_and_queries_on_one_line() -> None:
    result = {"system": {"ci": {"mrr": [-1e-05, 0.5], "auto_waste": None}},
              "per_query": [ENTRY, {**ENTRY, "id": "q2"}]}
    text = dumps(result)
    assert json.loads(text) == result
    assert '"mrr": [-1e-05, 0.5]' in text
    assert f"    {json.dumps(ENTRY, ensure_ascii=False)}," in text.splitlines()


def test_a_run_without_per_query_results_is_plain_json() -> None:
    assert json.loads(dumps({"system": {}})) == {"system": {}}


def test_read_checks_what_the_gates_need(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    write({"system": {}, "per_query": [ENTRY]}, path)
    assert read(path)["per_query"] == [ENTRY]
    write({"system": {}, "per_query": [ENTRY, ENTRY]}, path)
    with pytest.raises(RunFileError, match="repeats query ids"):
        read(path)
    with pytest.raises(RunFileError, match="cannot be read"):
        read(tmp_path / "missing.json")
    path.write_text("[]")
    with pytest.raises(RunFileError, match=r"not a bench\.relevance run"):
        read(path)

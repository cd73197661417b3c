"""bench.d1_reads on a tiny corpus in real D1 (Miniflare): rows read and D1 calls per step."""

from __future__ import annotations

import json
from pathlib import Path

from bench import d1_reads


def test_rows_read_and_calls_are_counted_per_step(tmp_path: Path) -> None:
    out = tmp_path / "d1.json"
    assert d1_reads.main(["--messages", "60", "--notes", "6", "--queries", "3",
                          "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    for step in d1_reads.STEPS:
        assert figures[step]["median"] >= 0 and figures[step]["calls_max"] >= 1, step
    # One statement or batch each; recall's whole path takes more than its first pass.
    for step in ("floor", "df lookups", "ranking", "semantic first pass"):
        assert figures[step]["calls_mean"] == figures[step]["calls_max"] == 1
    assert figures["recall"]["calls_mean"] >= figures["gated"]["calls_mean"] > 1
    assert figures["recall"]["median"] >= figures["ranking"]["median"] > 0

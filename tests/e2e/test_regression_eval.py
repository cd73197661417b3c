"""The regression eval: the demo vault plus a few conversations, 41 judged queries loaded
through the real path (hub → POST /vault/sync over HTTP, the chat store), with floors.

Each floor is the figure measured when it was set, minus a margin of one query (1/30 of
the answerable queries, 1/11 of the empty ones), so a change that makes recall worse
fails CI. Raise a floor when a change lifts its figure; never lower one without saying
why in the commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.relevance import run
from tests.conftest import ROOT

SET = ROOT / "bench" / "sets" / "regression"
ANSWERABLE, EMPTY = 30, 11
ONE_JUDGED, ONE_EMPTY = 1 / ANSWERABLE, 1 / EMPTY

# Measured 2026-12-01, per mode.
# lexical (conversation units, sections, gate v1 with dialogue acts): hit@3 1.000,
# nDCG@10 0.969, auto hit rate 0.833, auto false-positive rate 0.000 (0.182 before social
# messages skipped recall: "good morning Mallory" recalled an old greeting, "thanks, the
# soup was great" the lentil soup).
# adaptive (the score blend, the MiniLM cosine bar, names decided lexically): hit@3 1.000,
# nDCG@10 0.965, auto hit rate 1.000, auto false-positive rate 0.000.
MEASURED = {
    "lexical": {"hit@3": 1.000, "ndcg@10": 0.969, "auto_hit_rate": 0.833},
    "adaptive": {"hit@3": 1.000, "ndcg@10": 0.965, "auto_hit_rate": 1.000},
}
CEILINGS = {"auto_fpr": 0.000 + ONE_EMPTY}
MODES = [pytest.param("lexical"), pytest.param("adaptive", marks=pytest.mark.embed)]


def floors(mode: str) -> dict[str, float]:
    return {metric: value - ONE_JUDGED for metric, value in MEASURED[mode].items()}


@pytest.fixture(scope="module", params=MODES)
def figures(request: pytest.FixtureRequest) -> dict:
    assert (SET / "corpus" / "notes").resolve() == ROOT / "examples" / "vault"
    return run(SET, mode=request.param)


def test_the_set_loads_whole(figures: dict) -> None:
    assert figures["documents"] == {"notes": 20, "rejected_notes": 0, "all": 38}
    system = figures["system"]
    assert (system["n_queries"], system["n_judged"], system["n_empty"]) == (41, ANSWERABLE,
                                                                            EMPTY)


@pytest.mark.parametrize("metric", sorted(MEASURED["lexical"]))
def test_recall_stays_above_its_floor(figures: dict, metric: str) -> None:
    floor = floors(figures["mode"])[metric]
    assert figures["system"][metric] >= floor - 1e-9, (
        f"{figures['mode']}: {metric} fell to {figures['system'][metric]:.3f} "
        f"(floor {floor:.3f})")


@pytest.mark.parametrize("metric", sorted(CEILINGS))
def test_false_positives_stay_under_their_ceiling(figures: dict, metric: str) -> None:
    assert figures["system"][metric] <= CEILINGS[metric] + 1e-9, (
        f"{metric} rose to {figures['system'][metric]:.3f} (ceiling {CEILINGS[metric]:.3f})")


def test_off_topic_questions_inject_nothing(figures: dict) -> None:
    assert figures["system"]["per_category"]["negative"]["auto_fpr"] == 0.0


def test_set_files_use_the_documented_format() -> None:
    path = Path(SET / "queries.jsonl")
    assert path.read_text(encoding="utf-8").count("\n") == 41

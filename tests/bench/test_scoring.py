"""Per-query figures and their aggregation, on hand-built queries and hits."""

from __future__ import annotations

import math

import pytest

from bench.evalset import Query
from bench.metrics import canonical_first, covers_all
from bench.scoring import METRICS, paired, per_query, query_figures, run_queries, summarise
from bench.system import Injection

CANON, OLD, OTHER = "note:Decisions/new.md", "note:Decisions/old.md", "note:Howto/x.md"
DECISION = Query("q1", "what did I decide", "conclusion", {CANON: 3, OLD: 1}, "heldout",
                 canonical=(CANON,), conflict_set=(CANON, OLD))
EMPTY = Query("q2", "thanks!", "chit_chat", {}, "tune")
CHAT = Query("q3", "vanilla", "conversation", {"msg:a": 3, "msg:q": 1}, "tune")


def test_canonical_first_looks_at_the_first_hit_only() -> None:
    assert canonical_first([(CANON,), (OLD,)], [CANON]) == 1.0
    assert canonical_first([(OLD,), (CANON,)], [CANON]) == 0.0
    assert canonical_first([("msg:q", CANON)], [CANON]) == 1.0  # a unit holding it
    assert canonical_first([], [CANON]) == 0.0


def test_contradiction_coverage_needs_the_whole_set_together() -> None:
    assert covers_all([(CANON,), (OLD,)], [CANON, OLD]) == 1.0
    assert covers_all([(CANON,), (OTHER,)], [CANON, OLD]) == 0.0


def test_figures_of_an_answerable_query() -> None:
    f = query_figures(DECISION, [(OLD,), (CANON,)], Injection([(OLD,), (OTHER,)]))
    assert f["mrr"] == 1.0 and f["hit@3"] == 1.0 and f["recall@20"] == 1.0
    assert 0 < f["ndcg@10"] < 1
    assert (f["auto_hit"], f["injected_relevant"], f["n_injected"]) == (1.0, 1.0, 2.0)
    assert (f["canonical_first_auto"], f["canonical_first_explicit"]) == (0.0, 0.0)
    assert f["contradiction_covered"] == 0.0
    assert "auto_fp" not in f and "auto_waste" not in f  # no block was built


def test_figures_of_an_empty_query() -> None:
    f = query_figures(EMPTY, [(OTHER,)], Injection([(OTHER,)]))
    assert f == {"n_injected": 1.0, "auto_fp": 1.0}
    assert query_figures(EMPTY, [], Injection([]))["auto_fp"] == 0.0


def test_a_unit_hit_is_credited_with_the_best_document_it_holds() -> None:
    f = query_figures(CHAT, [("msg:q", "msg:a")], Injection([("msg:q", "msg:a")]))
    # One hit is credited once (grade 3), though it covers both judged messages.
    assert f["ndcg@10"] == pytest.approx(7 / (7 + 1 / math.log2(3)))
    assert f["mrr"] == 1.0 and f["recall@20"] == 1.0 and f["injected_relevant"] == 1.0


def test_a_built_block_gives_a_waste_figure() -> None:
    block = "<recall>\n[1] note “x” (2026-01-01)\n    excerpt: «some text»\n</recall>"
    f = query_figures(DECISION, [], Injection([(CANON,)], block, ("note:x",)))
    assert f["auto_waste"] == 0.0
    assert f["canonical_first_auto"] == 1.0 and f["canonical_first_explicit"] == 0.0


def fixed(hits: dict[str, tuple[list, list]]) -> tuple:
    return (lambda text: hits[text][0]), (lambda text: Injection(hits[text][1]))


def test_summary_means_ratios_intervals_and_categories() -> None:
    runs = run_queries([DECISION, EMPTY, CHAT], *fixed({
        "what did I decide": ([(CANON,)], [(CANON,), (OTHER,)]),
        "thanks!": ([], []),
        "vanilla": ([(OTHER,)], [(OTHER,)]),
    }))
    s = summarise(runs)
    assert s["mrr"] == pytest.approx(0.5)  # 1 and 0 over the two answerable queries
    assert s["auto_fpr"] == 0.0
    assert s["auto_precision"] == pytest.approx(1 / 3)  # 1 relevant of 3 injected
    assert s["canonical_first_auto"] == 1.0 and s["contradiction_coverage"] == 0.0
    assert s["auto_waste"] is None and s["ci"]["auto_waste"] is None
    assert (s["n_queries"], s["n_judged"], s["n_empty"]) == (3, 2, 1)
    assert set(s["ci"]) == {m.key for m in METRICS}
    lo, hi = s["ci"]["mrr"]
    assert lo <= 0.5 <= hi
    assert sorted(s["per_category"]) == ["chit_chat", "conclusion", "conversation"]
    chat = s["per_category"]["chit_chat"]
    assert chat["ndcg@10"] is None and chat["ci"]["ndcg@10"] is None
    assert chat["auto_fpr"] == 0.0 and chat["ci"]["auto_fpr"] == [0.0, 0.0]


def test_paired_differences_and_per_query_records() -> None:
    queries = [DECISION, EMPTY, CHAT]
    ours = run_queries(queries, *fixed({"what did I decide": ([(CANON,)], [(CANON,)]),
                                        "thanks!": ([], []),
                                        "vanilla": ([("msg:q", "msg:a")], [])}))
    theirs = run_queries(queries, *fixed({"what did I decide": ([(OTHER,), (CANON,)], []),
                                          "thanks!": ([(OTHER,)], [(OTHER,)]),
                                          "vanilla": ([], [])}))
    d = paired(ours, theirs)
    assert d["mrr"]["difference"] == pytest.approx(1.0 - 0.25)
    assert d["auto_fpr"]["difference"] == -1.0 and d["auto_fpr"]["ci"] == [-1.0, -1.0]
    records = per_query(ours)
    assert records[2] == {"id": "q3", "category": "conversation", "split": "tune",
                          "judgments": {"msg:a": 3, "msg:q": 1}, "ranked": ["msg:a"],
                          "injected": [], "figures": ours[2].figures}
    with pytest.raises(ValueError, match="same queries"):
        paired(ours, theirs[:2])


def test_a_document_judged_irrelevant_must_not_be_injected() -> None:
    judged = Query("fb", "bake sourdough", "question", {CANON: 2}, irrelevant=(OTHER,))
    assert query_figures(judged, [], Injection([(CANON,), (OTHER,)]))[
        "irrelevant_injected"] == 1.0
    assert query_figures(judged, [], Injection([(CANON,)]))["irrelevant_injected"] == 0.0
    # A unit hit that holds the 👎 document injects it too.
    assert query_figures(judged, [], Injection([("msg:q", OTHER)]))[
        "irrelevant_injected"] == 1.0
    # 👎 only: scored for what it injected, never as a false positive.
    only_bad = Query("fb2", "bake sourdough", "generic", {}, irrelevant=(OTHER,))
    f = query_figures(only_bad, [], Injection([(OTHER,)]))
    assert f == {"n_injected": 1.0, "irrelevant_injected": 1.0}
    summary = summarise(run_queries([judged, only_bad], lambda _: [],
                                    lambda _: Injection([(OTHER,)])))
    assert summary["auto_irrelevant_injected"] == 1.0 and summary["auto_fpr"] is None

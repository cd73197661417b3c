"""The LoCoMo harness on two tiny samples in LoCoMo's converted layout, loaded through the
real path: own questions are scored by the turns their hits show, the other sample's are
no-answer questions, the memory is built once and reused, and bad input is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import locomo
from bench.evalset import Query
from bench.locomo_memory import cross_partner, questions, samples_arg
from bench.system import Injection

TALKS = {
    0: [("user", "I adopted a rescue greyhound called Biscuit last weekend."),
        ("assistant", "Congratulations! How is Biscuit settling in?"),
        ("user", "Biscuit sleeps on the sofa all day and snores."),
        ("assistant", "Greyhounds are famous couch potatoes.")],
    1: [("user", "My pottery class starts glazing next Tuesday."),
        ("assistant", "Which glaze colours will you try?"),
        ("user", "A celadon green and a tenmoku brown, fired in the kiln."),
        ("assistant", "Celadon over stoneware looks wonderful.")],
}
ASKED = {0: ("What is the name of the greyhound I adopted?", "D1-1"),
         1: ("What glazes did I fire in the kiln?", "D1-3")}


def _sample(root: Path, n: int) -> None:
    for name in (f"locomo-{n}", f"locomo-owner-{n}"):
        folder = root / name / "corpus"
        folder.mkdir(parents=True)
        lines = [{"conversation_id": f"locomo-s{n}", "message_id": f"s{n}-D1-{i + 1}",
                  "role": role, "content": text,
                  "created_at": f"2023-05-08T13:56:{i * 5:02d}Z"}
                 for i, (role, text) in enumerate(TALKS[n])]
        (folder / "conversations.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        text, turn = ASKED[n]
        q = {"id": f"s{n}-q0", "query": text, "category": "single_hop",
             "judgments": {f"msg:s{n}-{turn}": 3}}
        (root / name / "queries.jsonl").write_text(json.dumps(q) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("locomo")
    for n in TALKS:
        _sample(folder, n)
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    return folder


def test_a_hit_shows_turns_each_scored_once() -> None:
    q = Query("q", "x", "single_hop", {"msg:a": 3, "msg:c": 3})
    ranked = [("msg:a", "msg:b"), ("msg:b", "msg:a"), ("msg:c",)]
    assert locomo.turns(ranked) == ["msg:a", "msg:b", "msg:c"]
    got = locomo.figures(q, ranked, Injection([("msg:b", "msg:c")]))
    assert got["turn_recall@10"] == 1.0 and got["auto_hit"] == 1.0
    assert got["turn_ndcg@10"] < 1.0  # msg:b sits between the two evidence turns
    assert got["auto_shown"] == 0.0  # the block was not built: it showed nothing
    # Linked by its second turn, the hit holding msg:c keeps none of its credit.
    linked = locomo.figures(q, [("msg:b", "msg:a"), ("msg:d", "msg:c")], Injection([]))
    assert linked["unit_ndcg@10"] == 1.0 and linked["pointer_ndcg@10"] == 0.0
    assert locomo.bucket([linked, got])["pointer_ratio"] == pytest.approx(
        got["pointer_ndcg@10"] / (1.0 + got["unit_ndcg@10"]))
    # A hit on msg:b whose block line also shows the turn after it, the evidence msg:c.
    around = locomo.figures(q, ranked, Injection([("msg:b",)], shown=("msg:b", "msg:c")))
    assert (around["auto_hit"], around["auto_shown"]) == (0.0, 1.0)
    # Of the 2 + 2 evidence turns of these two questions, the first one's hits hold one
    # (its block was not built) and the second one's block shows one.
    both = locomo.bucket([got, around])
    assert (both["hit_evidence_share"], both["shown_evidence_share"]) == (0.25, 0.25)
    full = locomo.figures(q, ranked, Injection([("msg:b", "msg:c")],
                                               shown=("msg:a", "msg:b", "msg:c")))
    assert locomo.bucket([full, around])["shown_evidence_share"] == 0.75
    assert locomo.figures(Query("n", "x", "cross_sample", {}), ranked,
                          Injection([("msg:b",)])) == {"auto_fp": 1.0}


def test_another_samples_questions_have_no_answer_here(root: Path) -> None:
    asked = questions(root, "owner", 0, [0, 1])
    assert [q.id for q in asked] == ["s0-q0", "x0-s1-q0"]
    assert asked[1].judgments == {} and asked[1].category == "cross_sample"
    assert cross_partner([5, 6, 7], 7) == 5
    assert questions(root, "owner", 0, [0]) == asked[:1]


def test_the_run_recalls_each_sample_and_reuses_its_memory(root: Path, tmp_path: Path
                                                           ) -> None:
    result = locomo.run(root, [0, 1], "owner", "lexical", cache=tmp_path)
    built = sorted(p.name for p in tmp_path.iterdir())
    assert len(built) == 2 and all(p.startswith("locomo-") for p in built)
    rows = {r["id"]: r for r in result["per_query"]}
    assert rows["s0-q0"]["figures"]["turn_recall@10"] == 1.0
    assert rows["s1-q0"]["figures"]["turn_recall@10"] == 1.0
    assert result["all"]["n"] == 4
    assert set(result["per_category"]) == {"single_hop", "cross_sample"}
    again = locomo.run(root, [0, 1], "owner", "lexical", cache=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == built
    assert again["per_query"] == result["per_query"]


def test_bad_input_is_refused(root: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(ValueError, match="0-4"):
        samples_arg("zero")
    assert samples_arg("0-2,7") == [0, 1, 2, 7]
    assert locomo.main(["--samples", "3-12", "--root", str(root)]) == 2
    assert "0…9" in capsys.readouterr().err
    assert locomo.main(["--root", str(root / "nowhere")]) == 2
    assert "not the LoCoMo folder" in capsys.readouterr().err
    assert locomo.main(["--mode", "nope", "--root", str(root)]) == 2
    assert "unknown mode" in capsys.readouterr().err

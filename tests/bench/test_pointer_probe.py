"""The pointer probe (bench/pointer_probe.py) on a tiny sample in LoCoMo's converted
layout, loaded through the real path: it keeps what the turn choice was given for each
unit, replays rules on the same hits, and refuses the reporting samples."""

from __future__ import annotations

import json

import pytest

from bench import pointer_probe
from tests.bench.test_locomo import TALKS, _sample
from worker.corpora import conversations


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> list[pointer_probe.Asked]:
    root = tmp_path_factory.mktemp("locomo")
    for n in TALKS:
        _sample(root, n)
    (root / "manifest.json").write_text(json.dumps({}), encoding="utf-8")
    return pointer_probe.asked([0], "lexical", root, tmp_path_factory.mktemp("cache"))


def test_what_the_turn_choice_was_given_is_kept_per_unit(
        asked: list[pointer_probe.Asked]) -> None:
    original = conversations._on_answer
    (a,) = asked
    assert conversations._on_answer is original  # the spy is gone after the search
    unit = frozenset({"msg:s0-D1-1", "msg:s0-D1-2"})
    assert unit in {frozenset(h) for h in a.ranked}
    given = a.given[unit]
    assert given.question.startswith("I adopted a rescue greyhound")
    assert given.asks == "user" and any(t.tokens == ("greyhound",) for t in given.terms)


def test_rules_are_replayed_on_the_same_hits(asked: list[pointer_probe.Asked]) -> None:
    # The evidence is the owner's own turn (s0-D1-1).
    owner, o_decisive, o_wrong = pointer_probe.ratio(asked, lambda g: False)
    reply, r_decisive, r_wrong = pointer_probe.ratio(asked, lambda g: True)
    assert owner == 1.0 and o_wrong == 0 and o_decisive >= 1
    assert reply < owner and r_wrong == r_decisive == o_decisive
    shipped = pointer_probe.ratio(asked, pointer_probe.weighted(0.5, 1.5))
    assert shipped == (1.0, o_decisive, 0)
    names = [name for name, _ in pointer_probe.rules()]
    assert sum("(shipped)" in n for n in names) == 1


def test_the_reporting_samples_are_refused(capsys: pytest.CaptureFixture) -> None:
    assert pointer_probe.main(["--samples", "4-5"]) == 2
    assert "5–9 are for reporting only" in capsys.readouterr().err


def test_rules_by_meaning_embed_each_turn_apart(asked: list[pointer_probe.Asked]) -> None:
    # The local model (tests install it), cached on disk as the probe caches it.
    of = pointer_probe.cosines(asked, pointer_probe.turn_embedder())
    (a,) = asked
    given = a.given[frozenset({"msg:s0-D1-1", "msg:s0-D1-2"})]
    owner, reply = of(given)
    assert -1.0 <= owner <= 1.0 and -1.0 <= reply <= 1.0 and owner != reply
    rules = dict(pointer_probe.cosine_rules(of))
    assert rules["the turn closer to the query"](given) == (reply > owner)
    # Beyond a margin no cosine gap reaches, the shipped rule decides.
    wide = pointer_probe.cosine_rules(lambda g: (0.0, 0.01))
    shipped = pointer_probe.weighted(0.5, 1.5)
    assert all(rule(given) == shipped(given) for name, rule in wide[1:])
    assert wide[0][1](given) is True

"""shared/rank/candidate.py: the copies made by construction (for speed, where a stage
changes one group of every candidate it sees) carry every field they do not write."""

from __future__ import annotations

from dataclasses import fields

from shared.rank.candidate import Candidate, Presentation
from tests.builders import candidate


def test_with_terms_carries_every_other_field_of_the_presentation() -> None:
    shown = candidate("a", text="the text", snippet="the", fuzzy=True,
                      fields=(("title", "A"),)).presentation
    out = shown.with_terms(frozenset({"text"}))
    assert out.terms == {"text"}
    for f in fields(Presentation):
        if f.name != "terms":
            assert getattr(out, f.name) == getattr(shown, f.name) != f.default, f.name


def test_with_presentation_and_with_scores_carry_every_other_group() -> None:
    cand = candidate("a", unit="u", seq=3, status="draft", cosine=0.4)
    shown = cand.presentation.with_terms(frozenset({"a"}))
    for out, written in ((cand.with_presentation(shown), "presentation"),
                         (cand.with_scores(cand.scores), "scores")):
        for f in fields(Candidate):
            if f.name != written:
                assert getattr(out, f.name) is getattr(cand, f.name), f.name
    assert cand.with_presentation(shown).presentation is shown

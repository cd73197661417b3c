"""A conversation hit brings the adjacent unit of its conversation when both were
retrieved (shared/rank/partners.py), and the gate weighs them as one hit."""

from __future__ import annotations

from shared.rank.partners import with_partners
from shared.rank.policy import AUTOMATIC, EXPLICIT, judge
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate
from tests.shared.rank.test_policy import gauge

QUERY = build_query("which breed of puppy did I adopt at the shelter", Mode.AUTOMATIC)


def unit(question_id: str, answer_id: str, seq: int, relevance: float, question: str,
         answer: str, conversation: str = "c1"):
    return candidate(question_id, relevance, kind="message", group=conversation, role="user",
                     covers=(question_id, answer_id), seq=seq, text=question, reply=answer)


ASKED = unit("q1", "a1", 1, 0.8, "We went to the shelter to adopt a puppy.",
             "Which breed did you choose?")
ANSWERED = unit("q3", "a3", 3, 0.6, "A border collie: the breed is clever.",
                "What a clever breed!")


def test_the_better_of_two_adjacent_units_brings_the_other_as_part_of_itself() -> None:
    kept, [joined] = with_partners([ANSWERED, ASKED], QUERY.terms)
    [hit] = kept
    assert hit.identity.id == "q1" and hit.scores == ASKED.scores  # its place and scores
    assert hit.identity.covers == ("q1", "a1", "q3", "a3")
    assert [(t.id, t.role, t.text, t.before) for t in hit.message.partner] == [
        ("q3", "user", "A border collie: the breed is clever.", False),
        ("a3", "assistant", "What a clever breed!", False)]
    # The terms either unit's turn states: "breed" only the partner's.
    assert hit.presentation.terms == {'"adopt"', '"breed"', '"puppy"', '"shelter"'}
    assert (joined.partner, joined.host) == (ANSWERED, hit)


def test_a_reply_partner_before_the_hit_is_shown_in_conversation_order() -> None:
    reply_hit = candidate("a3", 0.9, kind="message", group="c1", role="assistant",
                          covers=("a3", "q3"), seq=3, text="What a clever breed!",
                          asked="A border collie, nine weeks old.")
    [hit], _ = with_partners([ASKED, reply_hit], QUERY.terms)
    assert hit.identity.id == "a3"
    assert [(t.id, t.before) for t in hit.message.partner] == [("q1", True), ("a1", True)]


def test_units_apart_of_other_conversations_or_notes_are_not_joined() -> None:
    far = unit("q9", "a9", 9, 0.6, "The puppy sleeps a lot.", "Puppies do.")
    other = unit("q3", "a3", 3, 0.6, "A shelter puppy.", "Lovely.", conversation="c2")
    note = candidate("n.md", 0.7, seq=2)
    for pool in ([ASKED, far], [ASKED, other], [ASKED, note]):
        assert with_partners(pool, QUERY.terms) == (pool, [])


def test_a_hit_brings_one_partner_on_each_side_in_conversation_order() -> None:
    before = unit("q1", "a1", 1, 0.5, "We went to the shelter.", "Which breed?")
    host = unit("q3", "a3", 3, 0.8, "A border collie puppy.", "Clever breed!")
    after = unit("q5", "a5", 5, 0.6, "We adopted her on Sunday.", "Congratulations!")
    again = unit("q4", "a4", 4, 0.55, "She is nine weeks old.", "So young!")
    kept, joined = with_partners([after, before, host, again], QUERY.terms)
    assert [k.identity.id for k in kept] == ["q3", "q4"]  # one unit a side: q4 hosts itself
    [hit] = [k for k in kept if k.identity.id == "q3"]
    assert hit.identity.covers == ("q3", "a3", "q1", "a1", "q5", "a5")
    assert [(t.id, t.before) for t in hit.message.partner] == [
        ("q1", True), ("a1", True), ("q5", False), ("a5", False)]
    assert '"adopt"' in hit.presentation.terms and '"shelter"' in hit.presentation.terms
    assert sorted(j.partner.identity.id for j in joined) == ["q1", "q5"]
    decisions = judge([after, before, host], AUTOMATIC, gauge(text=QUERY.text))
    assert [(d.candidate.identity.id, d.verdict.rule) for d in decisions][:2] == [
        ("q5", "partnered"), ("q1", "partnered")]


def test_a_hit_brings_one_partner_and_a_partner_hosts_none() -> None:
    third = unit("q5", "a5", 5, 0.5, "She chews the shelter blanket.", "Try a toy.")
    kept, joined = with_partners([ASKED, ANSWERED, third], QUERY.terms)
    assert [k.identity.id for k in kept] == ["q1", "q5"]
    assert [(j.partner.identity.id, j.host.identity.id) for j in joined] == [("q3", "q1")]


def test_the_automatic_gate_weighs_joined_units_as_one_hit_and_search_lists_both() -> None:
    decisions = judge([ASKED, ANSWERED], AUTOMATIC, gauge(text=QUERY.text))
    assert [(d.candidate.identity.id, d.verdict.rule) for d in decisions] == [
        ("q3", "partnered"), ("q1", "confident")]
    assert "q1" in decisions[0].verdict.reason
    [chosen] = [d.candidate for d in decisions if d.chosen]
    assert chosen.identity.covers == ("q1", "a1", "q3", "a3")
    listed = judge([ASKED, ANSWERED], EXPLICIT, gauge(text=QUERY.text))
    assert [d.candidate.identity.covers for d in listed if d.chosen] == [
        ("q1", "a1"), ("q3", "a3")]

"""Automatic recall orchestration on real SQLite: exclusions, replies, failure codes."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import replace

import pytest

from local.sqlite_db import SqliteDatabase
from shared.rank.policy import AUTOMATIC, lexical_pass_floor
from tests.builders import Counted
from tests.conftest import DAY_MS, NOW_MS, note, store_notes
from worker.corpora import registry
from worker.corpora.conversations import SAVED_MEMORIES_ID
from worker.corpora.notes import NOTES
from worker.db.port import Result, Statement
from worker.recall.automatic import automatic_recall, candidates, decide, gate, gated
from worker.recall.echoes import without_echoes
from worker.recall.explicit import search
from worker.recall.modes import gauge
from worker.store import chats, memories, quotes


async def add_notes(db: SqliteDatabase, *upserts) -> None:
    await store_notes(db, *upserts)


async def test_the_message_being_answered_and_recent_turns_are_not_recalled(
        db: SqliteDatabase) -> None:
    await chats.create_conversation(db, "tiles", NOW_MS - 90 * DAY_MS, "old")
    await chats.append_message(db, "old", "user", "the bathroom tiles are terracotta",
                               NOW_MS - 90 * DAY_MS, message_id="old-fact")
    await chats.create_conversation(db, "now", NOW_MS, "now")
    await chats.append_message(db, "now", "user", "terracotta tiles need sealing",
                               NOW_MS - 10, message_id="recent")
    asked = await chats.append_message(db, "now", "user", "what colour are the bathroom tiles?",
                                       NOW_MS, message_id="asked")
    recall = await automatic_recall(db, asked.content, NOW_MS, message_id="asked",
                                    conversation_id="now")
    assert [i.candidate.identity.id for i in recall.injected] == ["old-fact"]
    assert recall.error is None


async def test_an_owner_question_points_at_the_reply_that_answers_it(db: SqliteDatabase
                                                                    ) -> None:
    await chats.create_conversation(db, "eyes", NOW_MS - 40 * DAY_MS, "c")
    await chats.append_message(db, "c", "user", "how do I rest my eyes from screens?",
                               NOW_MS - 40 * DAY_MS, message_id="q")
    await chats.append_message(db, "c", "assistant", "Use the 20-20-20 rule.",
                               NOW_MS - 40 * DAY_MS + 5, message_id="a")
    recall = await automatic_recall(db, "how should I rest my eyes from screens", NOW_MS,
                                    message_id="new", conversation_id="other")
    [hit] = [i.candidate for i in recall.injected]
    assert (hit.identity.id, hit.identity.role, hit.identity.href) == ("a", "assistant", "/?msg=a")
    assert hit.message.asked == "how do I rest my eyes from screens?"
    assert "20-20-20" in recall.block and "rest my eyes" in recall.block


async def test_a_database_failure_is_no_recall_with_a_code(db: SqliteDatabase) -> None:
    await add_notes(db, note("a.md", "sourdough bread"))
    await db.prepare("DROP TABLE conversation_units_df").run()
    recall = await automatic_recall(db, "sourdough bread", NOW_MS, message_id="m",
                                    conversation_id="c")
    assert (recall.block, recall.injected, recall.error) == ("", [], "recall_failed")


async def test_text_over_the_query_limit_recalls_from_its_weighed_words(
        db: SqliteDatabase) -> None:
    """One sentence of 5,000 characters (a pasted log has no full stops): what recall
    searches with is the words the index holds, not the sentence's first 2,000 characters."""
    await add_notes(db, note("a.md", "sourdough bread"))
    recall = await automatic_recall(db, "word " * 1_000 + "sourdough bread?", NOW_MS,
                                    message_id="m", conversation_id="c")
    assert recall.error is None
    assert [i.candidate.identity.id for i in recall.injected] == ["a.md"]


async def test_many_identifiers_in_one_message_still_recall(db: SqliteDatabase) -> None:
    ids = [str(uuid.UUID(hashlib.md5(bytes([i])).hexdigest())) for i in range(21)]
    await add_notes(db, note("Ops/Deploy.md", "Deploys rolled back: " + ", ".join(ids),
                             title="Deploy log"), note("Ops/Other.md", "Nothing to see."))
    recall = await automatic_recall(db, "did these deploy? " + " ".join(ids), NOW_MS,
                                    message_id="m", conversation_id="c")
    assert recall.error is None
    assert [i.candidate.identity.id for i in recall.injected] == ["Ops/Deploy.md"]


async def test_gated_hits_carry_the_terms_they_matched(db: SqliteDatabase) -> None:
    await add_notes(db, note("Recipes/Soup.md", "Lentil soup with cumin and lemon.",
                             title="Lentil soup"))
    found = await gated(db, "how much cumin goes in the lentil soup?", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Recipes/Soup.md"]
    assert found.hits[0].presentation.terms == {'"cumin"', '"lentil"', '"soup"'}


async def test_rows_the_lexical_gate_cannot_pass_are_not_made_candidates(
        db: SqliteDatabase) -> None:
    """Recall builds a candidate only for a row whose best possible score reaches the
    least score a passing hit has, and injects exactly what it would with every row."""
    await add_notes(db, note("Garden/Compost.md", "compost heap turning: compost needs air",
                             title="Compost heap"),
                    *(note(f"Misc/n{i}.md", f"a long note about many things, among them "
                           f"the heap of laundry number {i} " + "filler words " * 40)
                      for i in range(12)))
    text = "is the compost heap turning?"  # every word is in the index: no typo step
    found, _ = await candidates(db, text, NOW_MS)
    every, _ = await candidates(db, text, NOW_MS, every_row=True)
    assert len(every.candidates) == 13
    assert [c.identity.id for c in found.candidates] == ["Garden/Compost.md"]
    floor = lexical_pass_floor(AUTOMATIC)
    assert all(c.scores.relevance * c.scores.boost * AUTOMATIC.standing.ceiling < floor
               for c in every.candidates if c.identity.id != "Garden/Compost.md")
    pruned = await gate(db, found, AUTOMATIC, gauge(found, None), NOW_MS)
    whole = await gate(db, every, AUTOMATIC, gauge(every, None), NOW_MS)
    ids = [h.identity.id for h in pruned]
    assert ids == [h.identity.id for h in whole] == ["Garden/Compost.md"]


# 11 notes that match "compost heap turning" well (more than the gate weighs), 3 that
# mention a compost heap once in a longer text, and notes without the words.
COMPOST = (*(note(f"Garden/c{i}.md", f"compost heap turning {i}: the compost heap needs air",
                  title=f"Compost heap {i}") for i in range(11)),
           *(note(f"Misc/w{i}.md", f"a long note about laundry, and a compost heap once, "
                  f"number {i} " + "filler words " * 12) for i in range(3)),
           *(note(f"Other/o{i}.md", f"unrelated text about bicycles {i}") for i in range(30)))
WEAK = {"Misc/w0.md", "Misc/w1.md", "Misc/w2.md"}
UNBOUNDED = replace(AUTOMATIC, depth=0)  # the candidates as the depth bound had none


class Reads:
    """The real database, keeping the rowids each second pass of a search reads."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db = db
        self.rids: list[int] = []

    def prepare(self, sql: str) -> Statement:
        return self.db.prepare(sql)

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.rids += [rid for s in statements if s.sql == NOTES.rows_sql
                      for rid in json.loads(str(s.params[0]))]
        return await self.db.batch(statements)


async def test_groups_sure_to_rank_after_the_gate_depth_are_not_made_candidates(
        db: SqliteDatabase) -> None:
    """The weak notes could reach the lexical floor, but ten notes are sure to score above
    all they can: they are left out, and the gate decides the same on all it weighs. The
    search reads the text of only the rows it builds."""
    await add_notes(db, *COMPOST)
    text = "is the compost heap turning?"
    reads = Reads(db)
    found, _ = await candidates(reads, text, NOW_MS)
    assert len(reads.rids) == len(set(reads.rids)) == len(found.candidates)
    every, _ = await candidates(db, text, NOW_MS, policy=UNBOUNDED)
    assert {c.identity.id for c in every.candidates} >= WEAK
    assert {c.identity.id for c in found.candidates} == \
        {c.identity.id for c in every.candidates} - WEAK
    assert found.lexical.cut is not None
    assert found.lexical.cut.best < min(c.scores.final for c in found.candidates)
    pruned, hits = await decide(db, found, AUTOMATIC, gauge(found, None), NOW_MS)
    whole, all_hits = await decide(db, every, AUTOMATIC, gauge(every, None), NOW_MS)
    assert [h.identity.id for h in hits] == [h.identity.id for h in all_hits]
    weighed = [(d.candidate.identity.id, d.rank, d.candidate.scores.confidence,
                d.verdict.rule) for d in pruned if d.confidence is not None]
    assert len(weighed) == AUTOMATIC.depth
    assert weighed == [(d.candidate.identity.id, d.rank, d.candidate.scores.confidence,
                        d.verdict.rule) for d in whole if d.confidence is not None]


# A judgment of the note at ?1, made ?2 for another query through the answer "judging".
JUDGE_NOTE = """
INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, note_rid, created_at)
SELECT m.rid, 1, 'another query', 'relevant', n.rid, ?2 FROM messages AS m, vault_notes AS n
WHERE m.id = 'judging' AND n.path = ?1
"""


async def test_the_depth_bound_leaves_room_for_feedback_only_on_a_judged_note(
        db: SqliteDatabase) -> None:
    """The first pass reads whether the owner ever judged a note: one never judged is
    bounded by its standing exactly, a judged one by the feedback's range. Judging a weak
    note widens its own bound only, and the gate still weighs what it weighs unbounded."""
    await add_notes(db, *COMPOST)
    text = "is the compost heap turning?"
    before, _ = await candidates(db, text, NOW_MS)
    await chats.create_conversation(db, "judged", NOW_MS - DAY_MS, "j")
    await chats.append_message(db, "j", "assistant", "see [1]", NOW_MS - DAY_MS,
                               message_id="judging")
    await db.prepare(JUDGE_NOTE).bind("Misc/w0.md", NOW_MS - DAY_MS).run()
    after, _ = await candidates(db, text, NOW_MS)
    assert before.lexical.cut is not None and after.lexical.cut is not None
    assert before.lexical.cut.groups == after.lexical.cut.groups
    assert {g for _, g in after.lexical.cut.groups} == {f"1:{p}" for p in WEAK}
    assert after.lexical.cut.best == pytest.approx(
        before.lexical.cut.best * (1 + AUTOMATIC.standing.feedback))
    every, _ = await candidates(db, text, NOW_MS, policy=UNBOUNDED)
    pruned, _ = await decide(db, after, AUTOMATIC, gauge(after, None), NOW_MS)
    whole, _ = await decide(db, every, AUTOMATIC, gauge(every, None), NOW_MS)
    assert [(d.candidate.identity.id, d.verdict.rule) for d in pruned if d.rank] == \
        [(d.candidate.identity.id, d.verdict.rule) for d in whole if d.rank][:len(
            [d for d in pruned if d.rank])]


async def test_when_echoes_drop_what_the_depth_bound_counted_on_recall_searches_again(
        db: SqliteDatabase) -> None:
    """Bare questions (no reply, the owner only asked) score above the weak notes, and
    automatic recall drops them: the notes left out for them are searched again."""
    await add_notes(db, *COMPOST[11:])
    for i in range(11):
        await chats.create_conversation(db, f"q{i}", NOW_MS - DAY_MS, f"q{i}")
        await chats.append_message(db, f"q{i}", "user", f"is the compost heap turning {i}?",
                                   NOW_MS - DAY_MS, message_id=f"q{i}")
    for i in range(20):
        await chats.create_conversation(db, f"o{i}", NOW_MS - DAY_MS, f"o{i}")
        await chats.append_message(db, f"o{i}", "user", f"my bicycle has {i} gears",
                                   NOW_MS - DAY_MS, message_id=f"o{i}")
    text = "is the compost heap turning?"
    found, _ = await candidates(db, text, NOW_MS)
    every, _ = await candidates(db, text, NOW_MS, policy=UNBOUNDED)
    assert found.lexical.cut is None  # the second search, without the bound
    assert [c.identity.id for c in found.candidates] == [c.identity.id for c in every.candidates]
    assert {c.identity.id for c in found.candidates} >= WEAK


async def test_an_answer_in_the_next_unit_is_recalled_with_the_question_it_answers(
        db: SqliteDatabase) -> None:
    """Mallory asks in one unit and the owner answers in the next: both were retrieved,
    and one hit brings both, where one slot per conversation took the first alone."""
    then = NOW_MS - 30 * DAY_MS
    await chats.create_conversation(db, "puppy", then, "pup")
    for i, (role, text) in enumerate((
            ("user", "We went to the animal shelter on Saturday to adopt a puppy."),
            ("assistant", "How exciting! Which breed did you pick at the shelter?"),
            ("user", "A border collie puppy, nine weeks old, her name is Biscuit."),
            ("assistant", "Biscuit is a lovely name."))):
        await chats.append_message(db, "pup", role, text, then + i, message_id=f"m{i}")
    for i in range(6):  # other conversations, so that the index's IDFs mean something
        await chats.create_conversation(db, "other", then, f"o{i}")
        await chats.append_message(db, f"o{i}", "user", f"the tax return form {i} is due",
                                   then, message_id=f"o{i}")
    recall = await automatic_recall(db, "which breed of puppy did I adopt at the shelter?",
                                    NOW_MS, message_id="new", conversation_id="now")
    [hit] = [i.candidate for i in recall.injected]
    assert set(hit.identity.covers) == {"m0", "m1", "m2", "m3"}
    assert "border collie" in recall.block and "Which breed did you pick" in recall.block
    assert recall.gated is not None
    rules = {d.candidate.identity.id: d.verdict.rule for d in recall.gated.decisions}
    assert "partnered" in rules.values() and "group_taken" not in rules.values()


async def echo_of(db: SqliteDatabase, fact_id: str) -> None:
    """An exchange whose answer ("echo-reply") quotes the message `fact_id` back."""
    await chats.create_conversation(db, "echo", NOW_MS - DAY_MS, "echo")
    await chats.append_message(db, "echo", "user", "where is the kayak stored?",
                               NOW_MS - DAY_MS, message_id="ask")
    await chats.append_message(
        db, "echo", "assistant", "Here is what I found: the kayak is stored at the "
        "boathouse.", NOW_MS - DAY_MS + 1, message_id="echo-reply",
        after=quotes.record_statements(db, "echo-reply", [fact_id], [], NOW_MS))


async def test_an_echo_of_a_message_the_depth_left_out_is_judged_as_every_row_would(
        db: SqliteDatabase) -> None:
    """An echo built, and the message it quotes in a conversation the gate's depth left
    out: bounded recall decides as with every row built. An echo is left out whether its
    source was retrieved, left out by the depth, or not retrieved at all
    (worker/recall/echoes.without_echoes), so the depth has nothing to build for it."""
    await chats.create_conversation(db, "fact", NOW_MS - 200 * DAY_MS, "fact")
    fact = await chats.append_message(db, "fact", "user", "the kayak is stored at the "
                                      "boathouse", NOW_MS - 200 * DAY_MS, message_id="fact")
    # Many exchanges that match better than the fact does: the depth leaves its group out.
    for i in range(14):
        await chats.create_conversation(db, f"c{i}", NOW_MS - i * DAY_MS, f"c{i}")
        await chats.append_message(db, f"c{i}", "user", f"kayak paddle kayak storage {i}",
                                   NOW_MS - i * DAY_MS, message_id=f"c{i}")
    await echo_of(db, fact.id)
    for text in ("where is the kayak stored?", "kayak stored"):
        bounded = await gated(db, text, NOW_MS)
        whole = await gated(db, text, NOW_MS, every_row=True)
        assert [h.identity.id for h in bounded.hits] == [h.identity.id for h in whole.hits]
        assert "echo-reply" not in {h.identity.id for h in bounded.hits}
    # The judgment itself: the echo's source retrieved, left out, or not retrieved at all.
    listed = (await search(db, "kayak stored", NOW_MS)).hits  # every row, echoes kept
    echo = [c for c in listed if "echo-reply" in c.identity.covers]
    source = [c for c in listed if c.identity.id == "fact"]
    assert echo and source
    assert await without_echoes(db, [*echo, *source]) == (source, True)
    assert await without_echoes(db, echo, [("message", "fact")]) == ([], True)
    assert await without_echoes(db, echo, [("message", "c3")]) == ([], True)
    assert await without_echoes(db, echo) == ([], True)
    # A saved memory the depth left out may stand for a message that was built.
    assert await without_echoes(db, source, [("message", SAVED_MEMORIES_ID)]) == (source, True)
    await memories.save(db, "The kayak is at the boathouse.", "fact", NOW_MS)
    assert await without_echoes(db, source, [("message", SAVED_MEMORIES_ID)]) == (source, False)


async def test_what_answers_were_shown_and_the_feedback_are_read_in_one_round_trip(
        db: SqliteDatabase) -> None:
    """After retrieval, automatic recall reads what each retrieved answer was shown (its
    echoes) and the owner's judgments of every candidate in one D1 batch, and both still
    apply: the echo is left out, the 👍 of the fact it quotes moves it."""
    await chats.create_conversation(db, "fact", NOW_MS - 200 * DAY_MS, "fact")
    fact = await chats.append_message(db, "fact", "user", "the kayak is stored at the "
                                      "boathouse", NOW_MS - 200 * DAY_MS, message_id="fact")
    await echo_of(db, fact.id)
    await db.prepare(JUDGE).bind("fact", "echo-reply", NOW_MS).run()
    counted = Counted(db)
    found, _ = await candidates(counted, "where is the kayak stored?", NOW_MS)  # type: ignore[arg-type]
    judgments = {c.judgments.sql for c in registry.corpora()}
    read = [c for c in counted.calls if chats.SHOWN_TO_SQL in c or judgments & set(c)]
    [batch] = read
    assert chats.SHOWN_TO_SQL in batch  # what the answers were shown
    assert judgments & set(batch)  # the owner's judgments
    assert [c.identity.id for c in found.candidates] == ["fact"]  # the echo left out
    assert found.candidates[0].scores.feedback > 0


# A 👍 of message ?1 in the answer ?2's sources.
JUDGE = """
INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, doc_message_rid, created_at)
SELECT a.rid, 1, 'h', 'relevant', d.rid, ?3 FROM messages AS a, messages AS d
WHERE a.id = ?2 AND d.id = ?1
"""

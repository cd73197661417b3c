"""Corpus records: weights pinned to the FTS column order of the migrations, rows mapped
to candidates."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from shared.knowledge.names import stored
from shared.knowledge.standing import signals
from shared.text.sanitiser import Mode, build_query
from worker.corpora import registry
from worker.corpora.base import Scoring
from worker.corpora.conversations import MESSAGES, SAVED_MEMORIES_ID
from worker.corpora.notes import NOTES
from worker.store.relations_sql import partners_sql

CORPORA = registry.corpora()


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
async def test_weights_follow_the_fts_tables_column_order(db: SqliteDatabase, corpus) -> None:
    # bm25() takes its weights positionally: a reordered migration would silently move
    # the title's weight onto another column.
    rows = (await db.prepare(f"PRAGMA table_info({corpus.fts_table})").all()).results
    assert [r["name"] for r in rows] == list(corpus.columns)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
async def test_each_corpus_has_its_vocabulary_and_stats_row(db: SqliteDatabase,
                                                            corpus) -> None:
    stats = (await db.prepare("SELECT corpus FROM corpus_stats").all()).results
    assert corpus.name in {r["corpus"] for r in stats}
    df = (await db.prepare(f"PRAGMA table_info({corpus.df_table})").all()).results
    assert [r["name"] for r in df][:2] == ["term", "doc"]


def note_row() -> dict:
    return {"path": "Home/Plants.md", "vid": 3, "note_key": "3:Home/Plants.md",
            "vault": "My Vault", "title": "Plants", "name": "Plants", "aliases": "greenery",
            "tags": "home", "properties": "", "note_date": 5, "bm25": -3.0, "ord": 2,
            "heading": "Ferns & mosses", "heading_path": "Indoor › Ferns & mosses",
            "unit_id": "n:3:Home/Plants.md#0123456789abcdef", "text": "Water the fern.",
            "note_type": "Procedure", "status": "Stable", "role": None, "related": 1}


def test_a_note_row_becomes_a_candidate_grouped_by_vault_and_path() -> None:
    row = note_row()
    cand = NOTES.to_candidate(row, Scoring(0.5, 1.1, 5, "3:Home/Plants.md", ()))
    i = cand.identity
    assert (i.knowledge_role, cand.note.status, cand.note.related) == ("canonical", "stable",
                                                                       True)
    assert (i.kind, i.id, i.group, i.vault, i.vid, i.unit) == (
        "note", "Home/Plants.md", "3:Home/Plants.md", "My Vault", 3,
        "n:3:Home/Plants.md#0123456789abcdef")
    assert i.label == "Plants › Ferns & mosses" and i.heading == "Ferns & mosses"
    assert cand.identity.href == ("obsidian://open?vault=My%20Vault&file=Home%2FPlants"
                         "%23Ferns%20%26%20mosses")
    assert dict(cand.presentation.fields)["heading"] == "Indoor › Ferns & mosses"


def test_an_h1_that_restates_the_title_links_to_the_note() -> None:
    row = {"path": "Plants.md", "vid": 1, "vault": "V", "title": "Plants", "name": "Plants",
           "aliases": "", "tags": "", "properties": "", "heading": "Plants",
           "heading_path": "Plants", "unit_id": "u", "text": "x",
           "note_type": None, "status": None, "role": None, "related": 0}
    cand = NOTES.to_candidate(row, Scoring(0.5, 1.0, 5, "1:Plants.md", ()))
    assert (cand.identity.label, cand.identity.heading, cand.identity.href) == (
        "Plants", "", "obsidian://open?vault=V&file=Plants")


def test_note_fields_for_reasons() -> None:
    row = {"path": "Home/Plants.md", "vid": 3, "vault": "My Vault", "title": "Plants",
           "name": "Plants", "aliases": "greenery", "tags": "home", "properties": "",
           "heading": "", "heading_path": "", "unit_id": "u", "text": "Water the fern.",
           "note_type": None, "status": None, "role": None, "related": 0}
    cand = NOTES.to_candidate(row, Scoring(0.5, 1.1, 5, "3:Home/Plants.md", ()))
    assert cand.identity.href == "obsidian://open?vault=My%20Vault&file=Home%2FPlants"
    assert dict(cand.presentation.fields)["aliases"] == "greenery"
    assert cand.scores.final == pytest.approx(0.55)


def unit(question_id: str | None, answer_id: str | None, question: str, answer: str) -> dict:
    return {"id": f"{answer_id or question_id}:0", "conversation_id": "c1",
            "question_id": question_id, "answer_id": answer_id, "created_at": 9,
            "conversation_title": "", "bm25": -1.0, "question": question, "answer": answer}


def scoring(text: str) -> Scoring:
    return Scoring(0.2, 1.0, 9, "c1", build_query(text, Mode.AUTOMATIC).terms)


def test_a_unit_is_the_reply_when_the_reply_holds_the_match() -> None:
    row = unit("q", "a", "how do I clean the oven?", "Use baking soda paste on the oven.")
    cand = MESSAGES.to_candidate(row, scoring("how did you say to clean the oven"))
    i = cand.identity
    assert (i.kind, i.id, i.group, i.role) == ("message", "a", "c1", "assistant")
    assert (i.href, i.label, i.covers) == ("/?msg=a", "Conversation", ("a", "q"))
    assert cand.message.asked == "how do I clean the oven?" and cand.message.reply is None


def test_a_unit_is_the_reply_whenever_the_reply_matches_anything() -> None:
    row = unit("q", "a", "how do I clean the oven racks?", "Soak them overnight.")
    assert MESSAGES.to_candidate(row, scoring("clean oven racks soak")).identity.id == "a"


def test_a_unit_is_the_question_when_only_the_question_matches() -> None:
    row = unit("q", "a", "my bike chain squeaks", "Oil it lightly and wipe it.")
    cand = MESSAGES.to_candidate(row, scoring("bike chain squeaks"))
    assert (cand.identity.id, cand.identity.role, cand.message.reply, cand.message.asked) == (
        "q", "user", "Oil it lightly and wipe it.", None)


def test_an_unanswered_question_and_a_lone_reply() -> None:
    alone = MESSAGES.to_candidate(unit("q", None, "anyone there", ""), scoring("anyone"))
    assert (alone.identity.id, alone.identity.covers, alone.message.reply) == ("q", ("q",), None)
    spoke_first = MESSAGES.to_candidate(unit(None, "a", "", "Good morning!"), scoring("morning"))
    assert (spoke_first.identity.id, spoke_first.identity.role) == ("a", "assistant")


def test_the_vector_corpora_are_the_records_vector_sides() -> None:
    # One registration: a corpus is embedded because its record names a `vector`.
    assert tuple(c.vector for c in CORPORA if c.vector) == registry.vector_corpora()
    assert [v.name for v in registry.vector_corpora()] == ["notes", "messages"]
    for corpus in CORPORA:
        if corpus.vector is not None:
            assert (corpus.vector.name, corpus.vector.kind) == (corpus.name, corpus.kind)
            assert registry.vector_by_name(corpus.name) is corpus.vector
    # Note vectors carry the vault; a message belongs to no vault.
    assert NOTES.vector is not None and MESSAGES.vector is not None
    assert (NOTES.vector.by_vault, MESSAGES.vector.by_vault) == (True, False)


def test_each_record_names_the_documents_feedback_is_kept_for() -> None:
    note = NOTES.to_candidate(note_row(), Scoring(0.5, 1.0, 5, "3:Home/Plants.md", ()))
    assert registry.by_kind("note") is NOTES
    assert NOTES.judgments.documents(note) == ("note:3:Home/Plants.md",)
    assert NOTES.judgments.judged(note) == ((3, "Home/Plants.md"),)
    reply = MESSAGES.to_candidate(unit("q", "a", "oven?", "Soak the racks."), scoring("soak"))
    assert MESSAGES.judgments.documents(reply) == ("message:a", "message:q")
    assert MESSAGES.judgments.judged(reply) == ("a", "q")


def test_the_partners_statement_weighs_sections_with_the_columns_given() -> None:
    assert "bm25(note_sections_fts, 2.000, 0.500)" in partners_sql({"title": 2.0, "body": 0.5})


NOTE_ROW = {"path": "Home/Plants.md", "vid": 3, "vault": "V", "title": "Plants",
            "name": "Plants", "aliases": "greenery", "tags": "home", "properties": "",
            "heading": "Watering", "heading_path": "Plants > Watering", "unit_id": "u",
            "text": "Water the fern weekly.", "note_type": None, "status": None,
            "role": None, "related": 0}


@pytest.mark.parametrize(("corpus", "row", "text"), [
    (NOTES, NOTE_ROW, "fern"), (NOTES, {**NOTE_ROW, "heading_path": None}, "greenery"),
    (MESSAGES, unit("q", "a", "how do I clean the oven?", "Use baking soda."), "oven"),
    (MESSAGES, unit("q", "a", "how do I clean the oven?", "Use baking soda."), "soda"),
    (MESSAGES, unit(None, "a", "", "Good morning!"), "morning"),
])
def test_match_texts_are_the_candidates_text_and_fields(corpus, row, text) -> None:
    # The retriever corrects a row's relevance from these before the candidate exists:
    # they must be what the candidate itself holds (a unit: both its turns, as bm25()
    # matched both columns).
    s = scoring(text)
    cand = corpus.to_candidate(row, s)
    if corpus is NOTES:
        assert corpus.match_texts(row, s.terms) == (cand.presentation.text,
                                                    *(v for _, v in cand.presentation.fields))
    else:  # both turns of the unit, whichever of them the hit points at
        assert set(corpus.match_texts(row, s.terms)) - {""} == {
            cand.presentation.text, cand.message.reply, cand.message.asked} - {None, ""}


@pytest.mark.parametrize(("corpus", "row", "text"), [
    (NOTES, note_row(), "plants"),  # a canonical stable note the query names
    (NOTES, note_row(), "ferns"),
    (NOTES, {**NOTE_ROW, "name_keys": stored(("Plants", "Plants", "greenery"))}, "greenery"),
    (NOTES, {**NOTE_ROW, "role": "evidence", "status": "deprecated"}, "fern"),
    (MESSAGES, unit("q", "a", "how do I clean the oven?", "Use baking soda."), "oven"),
    (MESSAGES, {**unit("q", None, "the spare key is in the jar", ""),
                "conversation_id": SAVED_MEMORIES_ID}, "spare key"),
])
def test_a_rows_standing_signals_are_its_candidates(corpus, row, text) -> None:
    # The depth bound (worker/recall/depth.py) reads them from the row before the
    # candidate exists: they must be what standing derives from the candidate.
    query = build_query(text, Mode.AUTOMATIC)
    cand = corpus.to_candidate(row, Scoring(0.5, 1.0, 5, "g", query.terms))
    assert corpus.signals(row, query) == signals(query, cand)

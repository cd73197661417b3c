"""The contract suite: the same tests on the local SQLite adapter and on real D1 inside
Miniflare, proving the local adapter behaves like D1 where the project depends on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from local.migrate import MIGRATIONS_DIR, migrate
from shared.api.wire import Source
from shared.text.matcher import highlighter
from shared.text.sanitiser import Mode, build_query
from shared.text.snippets import make_snippet
from tests.conftest import NOW_MS, note, store_notes
from tests.rows import one
from worker.corpora.filters import Filters
from worker.db import ConstraintError, Database, DatabaseError, LimitExceeded, QueryError
from worker.recall import lexical
from worker.store import chats, forget

pytestmark = pytest.mark.miniflare

async def fts_paths(db: Database, match: str) -> list[str]:
    rows = (await db.prepare(
        "SELECT DISTINCT n.path FROM note_sections_fts"
        " JOIN note_sections s ON s.rid = note_sections_fts.rowid"
        " JOIN vault_notes n ON n.rid = s.note_rid"
        " WHERE note_sections_fts MATCH ? ORDER BY n.path").bind(match).all()).results
    return [r["path"] for r in rows]


async def integrity_ok(db: Database, table: str) -> bool:
    try:
        await db.prepare(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')").run()
    except QueryError:
        return False
    return True


async def apply(db: Database, batch_id: str, *upserts, deletes=()) -> None:
    await store_notes(db, *upserts, deletes=list(deletes), batch_id=batch_id)


async def test_migrations_apply_and_are_recorded(port: Database) -> None:
    rows = (await port.prepare("SELECT name FROM d1_migrations").all()).results
    assert [r["name"] for r in rows] == sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))
    assert await migrate(port) == []


async def test_triggers_keep_note_fts_in_sync_through_upserts_and_deletes(port: Database
                                                                          ) -> None:
    await apply(port, "1", note("a.md", "the aardvark digs", mtime=NOW_MS - 10))
    assert await fts_paths(port, "aardvark") == ["a.md"]
    await apply(port, "2", note("a.md", "the badger digs", mtime=NOW_MS))  # ON CONFLICT path
    assert await fts_paths(port, "aardvark") == []
    assert await fts_paths(port, "badger") == ["a.md"]
    await apply(port, "3", deletes=[{"path": "a.md", "deleted_at": NOW_MS + 1}])
    assert await fts_paths(port, "badger") == []
    assert await fts_paths(port, "badger") == []
    assert await integrity_ok(port, "note_sections_fts")
    stats = (await port.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'notes'")
             .first())
    assert stats == {"docs": 0}


UNITS_SQL = """
SELECT u.id, u.question_id, u.answer_id, u.part FROM conversation_units_fts AS f
JOIN conversation_units AS u ON u.rid = f.rowid
WHERE conversation_units_fts MATCH ? ORDER BY u.id
"""


async def units_matching(port: Database, match: str) -> list[tuple]:
    rows = (await port.prepare(UNITS_SQL).bind(match).all()).results
    return [(r["id"], r["question_id"], r["answer_id"], r["part"]) for r in rows]


async def test_conversation_units_follow_the_messages(port: Database) -> None:
    conv = await chats.create_conversation(port, "cats", NOW_MS, "c1")
    await chats.append_message(port, conv, "user", "my cat is called Biscuit", NOW_MS,
                               message_id="q")
    assert await units_matching(port, "biscuit") == [("q:0", "q", None, 0)]
    long_reply = "Biscuit is a lovely name [1]. " + "Cats like routine. " * 200
    await chats.append_message(port, conv, "assistant", long_reply, NOW_MS + 1,
                               message_id="a")
    parts = await units_matching(port, "routine")
    assert len(parts) > 1 and all(p[1:3] == ("q", "a") for p in parts)
    assert ("q:0", "q", None, 0) not in await units_matching(port, "biscuit")
    stored = await one(port.prepare("SELECT answer FROM conversation_units WHERE id = 'a:0'"))
    assert "[1]" not in stored["answer"]  # old citation markers never reach the index
    docs = await one(port.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'messages'"))
    assert docs["docs"] == len(parts)
    await port.prepare("DELETE FROM conversations WHERE id = 'c1'").run()
    assert await units_matching(port, "routine") == []
    docs = await one(port.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'messages'"))
    assert docs["docs"] == 0
    assert await integrity_ok(port, "conversation_units_fts")


async def test_insert_or_replace_corrupts_external_content_fts(port: Database) -> None:
    """Why the project never writes INSERT OR REPLACE: REPLACE deletes the old row without
    firing the delete trigger, so the FTS index keeps entries for a row that is gone."""
    await apply(port, "1", note("a.md", "the aardvark digs"))
    section = await one(port.prepare("SELECT rid, note_rid FROM note_sections"))
    await port.prepare(
        "INSERT OR REPLACE INTO note_sections (rid, note_rid, ord, unit_id, title, name, body)"
        " VALUES (?, ?, 0, 'u', 't', 'a', 'new text')").bind(section["rid"],
                                                            section["note_rid"]).run()
    body = await port.prepare("SELECT body FROM note_sections").first()
    assert body == {"body": "new text"}
    stale = (await port.prepare(
        "SELECT rowid FROM note_sections_fts WHERE note_sections_fts MATCH 'aardvark'"
    ).all()).results
    assert len(stale) == 1  # the index still holds the replaced row's words


def test_project_sql_never_uses_insert_or_replace() -> None:
    root = Path(__file__).resolve().parents[2]
    offenders = [str(p) for folder in ("worker", "shared", "migrations")
                 for p in (root / folder).rglob("*") if p.suffix in (".py", ".sql")
                 and re.search(r"INSERT\s+OR\s+REPLACE\s+INTO", p.read_text(), re.I)]
    assert offenders == []


async def test_match_bm25_weights_and_snippet_agree(port: Database) -> None:
    await apply(port, "1",
                note("sqlite/wal.md", "Turn on write-ahead logging with PRAGMA journal_mode",
                     title="Enabling WAL mode for SQLite"),
                note("misc/modes.md", "Many modes exist; WAL is one of them among others",
                     title="Modes"),
                note("misc/other.md", "Nothing relevant here at all", title="Other"))
    conv = await chats.create_conversation(port, "wal?", NOW_MS, "c1")
    await chats.append_message(port, conv, "assistant", "WAL mode lets readers and writers "
                               "work at the same time in SQLite", NOW_MS, message_id="m1")
    query = build_query("sqlite wal mode", Mode.EXPLICIT)
    found = await lexical.retrieve(port, query, Filters(limit=10), NOW_MS)
    hits = sorted(found.candidates, key=lambda c: -c.scores.final)
    marks = highlighter(query.terms)
    summary = [(h.identity.kind, h.identity.id, round(h.scores.relevance, 4),
                make_snippet(h.presentation.text, marks)) for h in hits]
    ids = [s[1] for s in summary]
    assert ids[0] == "sqlite/wal.md" and "misc/modes.md" in ids and "misc/other.md" not in ids
    assert summary[0][2] > summary[1][2] > 0
    # The exact figures are pinned per adapter and compared across adapters below.
    port_results[type(port).__name__] = summary
    if len(port_results) == 2:
        first, second = port_results.values()
        assert first == second


port_results: dict[str, list] = {}


async def test_a_failing_batch_applies_nothing(port: Database) -> None:
    await chats.create_conversation(port, "x", NOW_MS, "c1")
    with pytest.raises(ConstraintError):
        await port.batch([
            port.prepare("INSERT INTO conversations (id, title, created_at, updated_at) "
                         "VALUES ('c2', 't', 1, 1)"),
            port.prepare("INSERT INTO conversations (id, title, created_at, updated_at) "
                         "VALUES ('c1', 'duplicate', 1, 1)"),
        ])
    rows = (await port.prepare("SELECT id FROM conversations ORDER BY id").all()).results
    assert rows == [{"id": "c1"}]


async def test_bound_parameter_limit_is_hit_the_same_way(port: Database) -> None:
    ok = await port.prepare("SELECT " + ", ".join(["?"] * 100) + " AS x").bind(*range(100)).all()
    assert len(ok.results) == 1
    with pytest.raises(LimitExceeded, match="too many SQL variables"):
        await port.prepare("SELECT " + ", ".join(["?"] * 101)).bind(*range(101)).all()


async def test_errors_come_back_typed(port: Database) -> None:
    with pytest.raises(QueryError, match="syntax error"):
        await port.prepare("SELEC 1").all()
    with pytest.raises(QueryError, match="no such table"):
        await port.prepare("SELECT * FROM nowhere").all()
    with pytest.raises(QueryError):
        await port.prepare("SELECT rowid FROM conversation_units_fts "
                           "WHERE conversation_units_fts MATCH ?").bind(
            '"unterminated').all()
    await chats.create_conversation(port, "x", NOW_MS, "c1")
    with pytest.raises(ConstraintError):
        await chats.create_conversation(port, "x", NOW_MS, "c1")
    with pytest.raises(ConstraintError):  # foreign keys are always on in D1
        await chats.append_message(port, "no-such-conversation", "user", "hi", NOW_MS)


async def test_statement_length_limit_is_hit_the_same_way(port: Database) -> None:
    with pytest.raises(LimitExceeded, match="statement too long"):
        await port.prepare("SELECT '" + "x" * 150_000 + "' AS v").all()


async def test_transaction_control_is_refused(port: Database) -> None:
    with pytest.raises(DatabaseError):
        await port.prepare("BEGIN TRANSACTION").run()


async def test_forgetting_fires_the_fts_triggers_through_the_cascade(port: Database) -> None:
    """DELETE /api/conversations relies on the FK cascade firing conversation_units_ad,
    and on the json_each/json_group_array SQL that removes citations: both must hold on
    real D1."""
    match = ("SELECT rowid FROM conversation_units_fts "
             "WHERE conversation_units_fts MATCH ?")
    await chats.append_message(port, "c1", "user", "the okapi lives in the forest", NOW_MS,
                               message_id="m1", new_conversation=True)
    await chats.append_message(port, "c1", "assistant", "an okapi, noted", NOW_MS + 1,
                               message_id="m2")
    cited = Source(n=1, kind="message", id="m1", label="Okapi", snippet="okapi",
                   href="/?msg=m1")
    kept = Source(n=2, kind="note", id="Zoo.md", label="Zoo", snippet="zoo",
                  href="obsidian://open?vault=V&file=Zoo")
    await chats.append_message(port, "c2", "assistant", "The okapi [1] [2].", NOW_MS + 2,
                               message_id="m3", sources=[cited, kept], new_conversation=True)
    forgotten = await forget.delete_conversation(port, "c1", NOW_MS + 3)
    assert (forgotten.messages, forgotten.citations) == (2, 1)
    assert len((await port.prepare(match).bind("forest").all()).results) == 0
    assert len((await port.prepare(match).bind("okapi").all()).results) == 1  # m3 stays
    stats = await port.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'messages'").first()
    assert stats == {"docs": 1}
    assert await integrity_ok(port, "conversation_units_fts")
    row = await one(port.prepare("SELECT sources FROM messages WHERE id = 'm3'"))
    assert json.loads(row["sources"]) == [kept.model_dump()]
    await forget.delete_message(port, "m3", NOW_MS + 4)
    assert (await port.prepare(match).bind("okapi").all()).results == []
    stats = await port.prepare("SELECT docs FROM corpus_stats WHERE corpus = 'messages'").first()
    assert stats == {"docs": 0}


async def note_dates(db: Database, path: str) -> list[tuple[int | None, int | None]]:
    rows = (await db.prepare(
        "SELECT d.day, d.at FROM note_dates d JOIN vault_notes n ON n.rid = d.note_rid"
        " WHERE n.path = ? ORDER BY d.day, d.at").bind(path).all()).results
    return [(r["day"], r["at"]) for r in rows]


async def test_note_dates_follow_upserts_edits_and_deletes(port: Database) -> None:
    first = note("Daily/2026-10-02.md", "the aardvark digs", mtime=NOW_MS - 10)
    await apply(port, "1", first)
    assert await note_dates(port, "Daily/2026-10-02.md") == [(20_728, None)]
    edited = note("Daily/2026-10-02.md", "the badger digs", mtime=NOW_MS)
    edited = edited.model_copy(update={"days": ["2026-03-14"], "times": [NOW_MS - 5]})
    await apply(port, "2", edited)
    assert await note_dates(port, "Daily/2026-10-02.md") == [
        (None, NOW_MS - 5), (20_526, None), (20_728, None)]
    await apply(port, "3", deletes=[{"path": "Daily/2026-10-02.md", "deleted_at": NOW_MS + 1}])
    left = (await port.prepare("SELECT count(*) AS n FROM note_dates").first())
    assert left is not None and left["n"] == 0


async def test_feedback_rows_go_with_their_note_and_message(port: Database) -> None:
    from worker.recall.explicit import search
    from worker.recall.feedback import judgments
    from worker.store import feedback
    from worker.store.citations import Citation, record_statements

    await apply(port, "1", note("Garden/Tomatoes.md", "prune tomato plants weekly"),
                note("Daily/2026-05-20.md", "pruned the tomato plants"))
    told = await chats.append_message(port, "c", "user", "the greenhouse tomato trial", NOW_MS,
                                      new_conversation=True)
    await chats.append_message(port, "c2", "user", "how do I prune tomatoes?", NOW_MS + 1,
                               new_conversation=True)
    sources = [Source(n=1, kind="note", id="Garden/Tomatoes.md", label="T", snippet="prune",
                      href="obsidian://open?vault=Life&file=Garden%2FTomatoes"),
               Source(n=2, kind="message", id=told.id, label="c", snippet="trial",
                      href=f"/?msg={told.id}")]
    vid = (await one(port.prepare("SELECT vid FROM vault_notes LIMIT 1")))["vid"]
    answer_id = "answer-1"
    await chats.append_message(port, "c2", "assistant", "Weekly [1][2].", NOW_MS + 2,
                               sources=sources, message_id=answer_id,
                               after=record_statements(port, answer_id, [Citation(
                                   vid, "Garden/Tomatoes.md", "prune")], NOW_MS + 2))
    await feedback.record(port, answer_id, 1, "relevant", NOW_MS + 3)
    await feedback.record(port, answer_id, 1, "irrelevant", NOW_MS + 4)  # replaces
    await feedback.record(port, answer_id, 2, "relevant", NOW_MS + 5)
    rows = await judgments(port, {"notes": [(vid, "Garden/Tomatoes.md")],
                                  "messages": [told.id]})
    assert sorted((r["doc"], r["judgment"]) for r in rows) == [
        (f"message:{told.id}", "relevant"), (f"note:{vid}:Garden/Tomatoes.md", "irrelevant")]
    assert [r["question"] for r in await feedback.export_rows(port)] == [
        "how do I prune tomatoes?"] * 2
    windowed = await search(port, "tomato plants on 2026-05-20", NOW_MS)
    assert [h.identity.id for h in windowed.hits] == ["Daily/2026-05-20.md"]
    listed = await search(port, "what did I write on 2026-05-20?", NOW_MS)  # the timeline
    assert [h.identity.id for h in listed.hits] == ["Daily/2026-05-20.md"]
    await apply(port, "2", deletes=[{"path": "Garden/Tomatoes.md", "deleted_at": NOW_MS + 6}])
    await forget.delete_message(port, told.id, NOW_MS + 7)
    left = await port.prepare("SELECT count(*) AS n FROM recall_feedback").first()
    assert left is not None and left["n"] == 0


async def test_a_gated_search_reads_only_the_rows_that_may_pass(port: Database) -> None:
    """The two passes (ranking, then the rows kept) run on D1 as on SQLite, and build the
    same candidates as one pass does for the rows that may reach the floor."""
    await store_notes(port, note("Garden/Compost.md", "compost heap turning: compost needs air",
                                 title="Compost heap"),
                      *(note(f"Misc/n{i}.md", f"the heap of laundry number {i} "
                             + "filler words " * 30) for i in range(8)))
    await chats.create_conversation(port, "chat", NOW_MS, "c1")
    await chats.append_message(port, "c1", "user", "my compost heap smells of ammonia",
                               NOW_MS, message_id="m1")
    await chats.append_message(port, "c1", "user", "a heap of ironing again", NOW_MS + 1,
                               message_id="m2")
    query = build_query("is the compost heap turning?", Mode.AUTOMATIC)
    whole = Filters(limit=20)
    gated = Filters(limit=20, score_floor=0.27, standing_ceiling=1.1)
    one = await lexical.retrieve(port, query, whole, NOW_MS)
    two = await lexical.retrieve(port, query, gated, NOW_MS)
    assert len(one.candidates) == 11
    assert [c.identity.id for c in two.candidates] == [
        c.identity.id for c in one.candidates
        if c.scores.relevance * c.scores.boost * 1.1 >= 0.27] == [
        "Garden/Compost.md", "m1"]
    assert two.candidates == [c for c in one.candidates
                              if c.identity.id in ("Garden/Compost.md", "m1")]


async def test_the_typo_step_and_the_depth_bound_recall_on_d1(port: Database) -> None:
    """Automatic recall's gated search with a misspelt word: the typo step reads the
    typed and the corrected rows in one batch, the first pass reads whether a note was
    judged (a judged note keeps the feedback's range), on D1 as on SQLite."""
    from worker.recall.automatic import candidates

    await store_notes(port, note("Baking/Sourdough.md", "sourdough starter: feed it daily"),
                      note("Baking/Starter.md", "a starter jar, washed weekly"),
                      note("Baking/Bread.md", "sourdough bread with a dark crust"),
                      *(note(f"Misc/m{i}.md", f"unrelated note {i}") for i in range(5)))
    await chats.create_conversation(port, "jar", NOW_MS - 10, "c1")
    await chats.append_message(port, "c1", "user", "my sourdough loaf came out flat",
                               NOW_MS - 10, message_id="flat")
    await chats.append_message(port, "c1", "assistant", "see [1]", NOW_MS - 5,
                               message_id="judging")
    await port.prepare(
        "INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, note_rid,"
        " created_at) SELECT m.rid, 1, 'another query', 'relevant', n.rid, ?2"
        " FROM messages AS m, vault_notes AS n WHERE m.id = 'judging' AND n.path = ?1"
    ).bind("Baking/Bread.md", NOW_MS - 5).run()
    found, _ = await candidates(port, "sourdoguh starter?", NOW_MS)
    assert found.lexical.corrections == {"sourdoguh": "sourdough"}
    assert {(c.identity.id, c.presentation.fuzzy) for c in found.candidates} == {
        ("Baking/Sourdough.md", False), ("Baking/Starter.md", False),
        ("Baking/Bread.md", True), ("flat", True)}


async def test_a_query_of_many_words_recalls_on_d1(port: Database) -> None:
    """D1 runs a compound SELECT of at most 5 terms: the document-count lookups of a query
    with more distinct words are chunked (a 6-word query was refused, and recall failed)."""
    text = "sourdough starter rye flour hydration levain feeding schedule"
    await store_notes(port, note("Baking/Sourdough.md", text, title="Sourdough"))
    query = build_query(text, Mode.AUTOMATIC)
    assert len({s for t in query.terms for s in t.stems}) > 5
    found = await lexical.retrieve(port, query, Filters(limit=5), NOW_MS)
    assert [c.identity.id for c in found.candidates] == ["Baking/Sourdough.md"]
    with pytest.raises(QueryError, match="compound SELECT"):
        await port.prepare(" UNION ALL ".join(["SELECT 1"] * 6)).all()

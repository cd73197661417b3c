"""migrations/0011 on the local SQLite adapter and on real D1 in Miniflare: answers
withdrawn before it lose their text, Sources and note citations, answers that quoted them
(to any depth) are withdrawn with them, and their units leave the conversation index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local.migrate import migrate
from tests.contract.history import migrations_before
from worker.db import Database

pytestmark = pytest.mark.miniflare

CONVERSATION_SQL = "INSERT INTO conversations (id, title, created_at, updated_at) " \
                   "VALUES (?1, ?1, 1, 1)"
MESSAGE_SQL = """
INSERT INTO messages (id, conversation_id, seq, role, content, sources, created_at,
                      withdrawn_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7)
"""
QUOTE_SQL = """
INSERT INTO message_quotes (message_rid, quoted_rid)
SELECT a.rid, q.rid FROM messages AS a, messages AS q WHERE a.id = ?1 AND q.id = ?2
"""
UNIT_SQL = """
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
VALUES (?2 || ':0', ?1, ?3, ?2, 0, 1, ?4, ?5, 1)
"""
NOTE_SOURCE = json.dumps([{"n": 1, "kind": "note", "id": "Bank.md", "label": "Bank",
                           "snippet": "sort code 40-51-62", "href": "obsidian://x"}])


async def test_0011_redacts_withdrawn_answers_and_follows_their_quotes(
        blank: Database, tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0011"))
    await blank.batch([
        blank.prepare(CONVERSATION_SQL).bind("c"),
        blank.prepare(MESSAGE_SQL).bind("q1", "c", 1, "user", "my sort code?", "[]", None),
        blank.prepare(MESSAGE_SQL).bind("a1", "c", 2, "assistant", "It is 40-51-62 [1].",
                                        NOTE_SOURCE, 5),
        blank.prepare(MESSAGE_SQL).bind("q2", "c", 3, "user", "again?", "[]", None),
        blank.prepare(MESSAGE_SQL).bind("a2", "c", 4, "assistant", "You said 40-51-62.",
                                        "[]", None),
        blank.prepare(MESSAGE_SQL).bind("q3", "c", 5, "user", "and once more?", "[]", None),
        blank.prepare(MESSAGE_SQL).bind("a3", "c", 6, "assistant", "Still 40-51-62.", "[]",
                                        None),
        blank.prepare(MESSAGE_SQL).bind("q4", "c", 7, "user", "the weather?", "[]", None),
        blank.prepare(MESSAGE_SQL).bind("a4", "c", 8, "assistant", "Sunny.", "[]", None),
        blank.prepare(QUOTE_SQL).bind("a2", "a1"),
        blank.prepare(QUOTE_SQL).bind("a3", "a2"),
        blank.prepare(UNIT_SQL).bind("c", "a2", "q2", "again?", "You said 40-51-62."),
        blank.prepare(UNIT_SQL).bind("c", "a4", "q4", "the weather?", "Sunny."),
        blank.prepare("INSERT INTO vaults (uuid, name, created_at) VALUES ('v', 'V', 1)"),
        blank.prepare("INSERT INTO message_citations (message_rid, vid, path, content_hash, "
                      "excerpt) SELECT rid, 1, 'Bank.md', 'h', 'sort code 40-51-62' "
                      "FROM messages WHERE id = 'a1'"),
    ])
    assert (await migrate(blank))[0] == "0011_withdrawn_answers_redacted.sql"
    rows = (await blank.prepare("SELECT id, content, sources, withdrawn_at IS NOT NULL AS w "
                                "FROM messages WHERE role = 'assistant' ORDER BY seq").all()
            ).results
    assert [(r["id"], r["content"], r["sources"], r["w"]) for r in rows] == [
        ("a1", "", "[]", 1), ("a2", "", "[]", 1), ("a3", "", "[]", 1),
        ("a4", "Sunny.", "[]", 0)]
    assert (await blank.prepare("SELECT count(*) AS n FROM message_citations").first()
            ) == {"n": 0}
    units = (await blank.prepare("SELECT id, answer FROM conversation_units ORDER BY id")
             .all()).results
    assert [(u["id"], u["answer"]) for u in units] == [
        ("a4:0", "Sunny."), ("q1:0", ""), ("q2:0", ""), ("q3:0", "")]
    hits = await blank.prepare("SELECT count(*) AS n FROM conversation_units_fts "
                               "WHERE conversation_units_fts MATCH '40'").first()
    assert hits == {"n": 0}

"""migrations/0009 on the local SQLite adapter and on real D1 in Miniflare: answers stored
before it quote the messages their Sources cite, and forgetting such a message (one D1
batch) withdraws them; quotes go with either message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local.migrate import migrate
from tests.conftest import NOW_MS
from tests.contract.history import migrations_before
from worker.db import Database
from worker.store import forget

pytestmark = pytest.mark.miniflare

CONVERSATION_SQL = "INSERT INTO conversations (id, title, created_at, updated_at) " \
                   "VALUES (?1, ?1, 1, 1)"
MESSAGE_SQL = """
INSERT INTO messages (id, conversation_id, seq, role, content, sources, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)
"""


def cites(message_id: str) -> str:
    return json.dumps([{"n": 1, "kind": "message", "id": message_id, "label": "Keys",
                        "snippet": "jar", "href": f"/?msg={message_id}"}])


async def test_0009_backfills_quotes_and_forget_withdraws(blank: Database,
                                                           tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0009"))
    await blank.batch([
        blank.prepare(CONVERSATION_SQL).bind("keys"),
        blank.prepare(CONVERSATION_SQL).bind("later"),
        blank.prepare(MESSAGE_SQL).bind("fact", "keys", 1, "user", "keys in the jar", "[]"),
        blank.prepare(MESSAGE_SQL).bind("ask", "later", 1, "user", "where are my keys?", "[]"),
        blank.prepare(MESSAGE_SQL).bind("answer", "later", 2, "assistant", "In the jar [1].",
                                        cites("fact")),
        blank.prepare(MESSAGE_SQL).bind("gone", "later", 3, "assistant", "A ghost [1].",
                                        cites("no-such-message")),
    ])
    assert (await migrate(blank))[0] == "0009_message_quotes.sql"
    quotes = (await blank.prepare(
        "SELECT a.id AS answer, q.id AS quoted FROM message_quotes "
        "JOIN messages AS a ON a.rid = message_rid JOIN messages AS q ON q.rid = quoted_rid"
    ).all()).results
    assert quotes == [{"answer": "answer", "quoted": "fact"}]
    forgotten = await forget.delete_message(blank, "fact", NOW_MS)
    assert (forgotten.messages, forgotten.citations, forgotten.withdrawn) == (1, 1, 1)
    row = await blank.prepare("SELECT withdrawn_at FROM messages WHERE id = 'answer'").first()
    assert row == {"withdrawn_at": NOW_MS}
    left = await blank.prepare("SELECT count(*) AS n FROM message_quotes").first()
    assert left == {"n": 0}

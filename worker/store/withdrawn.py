"""What withdrawing answers does beyond marking them: it follows quotes, and it takes
their words out of storage.

An answer is withdrawn when it was given with something since forgotten in view: a note
since deleted or edited so that the excerpt it was shown is gone (worker/store/
citations.py), a past message since forgotten (worker/store/quotes.py), or, for the reply
to a forgotten owner message, the message itself (worker/store/forget.py). Then, in the
same D1 batch, `after_withdrawal`:

- withdraws every answer that quoted a withdrawn one, to any depth (a recursive CTE over
  message_quotes: one statement, however deep the chain);
- takes the withdrawn replies out of the conversation index (worker/store/units.py);
- redacts them: the text and the Sources go (an answer may repeat what it was shown in
  words of its own, so no part of it is safe to keep); the row stays, so the conversation
  shows where an answer was withdrawn (`withdrawn: true`, an empty `content`);
- drops their note citations, whose excerpts hold the note's text;
- has FTS5 merge each index into one segment ('optimize'), so the deleted text leaves
  the index's shadow tables (a delete only adds a tombstone to a new segment).

Every statement finds this batch's withdrawals by their `withdrawn_at` (?1, the batch's
time), as worker/store/units.withdrawn_unit_statements does.
"""

from __future__ import annotations

from worker.db import Database, Statement
from worker.store.units import withdrawn_unit_statements

FOLLOW_QUOTES_SQL = """
UPDATE messages SET withdrawn_at = ?1
WHERE withdrawn_at IS NULL AND rid IN (
    WITH RECURSIVE gone (rid) AS (
        SELECT rid FROM messages WHERE withdrawn_at = ?1
        UNION
        SELECT q.message_rid FROM message_quotes AS q JOIN gone ON q.quoted_rid = gone.rid)
    SELECT rid FROM gone)
RETURNING id
"""
REDACT_SQL = """
UPDATE messages SET content = '', sources = '[]'
WHERE withdrawn_at = ?1 AND role = 'assistant' AND (content != '' OR sources != '[]')
"""
DROP_CITATIONS_SQL = """
DELETE FROM message_citations
WHERE message_rid IN (SELECT rid FROM messages WHERE withdrawn_at = ?1)
"""
# The FTS5 tables that hold message or note text (migrations/0003, 0005).
FTS_TABLES = ("conversation_units_fts", "note_sections_fts")
OPTIMIZE_SQL = {table: f"INSERT INTO {table} ({table}) VALUES ('optimize')"
                for table in FTS_TABLES}


def follow_quotes_statement(db: Database, now_ms: int) -> Statement:
    """Withdraws (RETURNING id) the answers that quoted this batch's withdrawals."""
    return db.prepare(FOLLOW_QUOTES_SQL).bind(now_ms)


def optimize_statements(db: Database) -> list[Statement]:
    return [db.prepare(OPTIMIZE_SQL[table]) for table in FTS_TABLES]


def after_withdrawal(db: Database, now_ms: int, optimize: bool = True) -> list[Statement]:
    """The statements after follow_quotes_statement, at the end of the batch. `optimize`
    False: an answer's own batch, withdrawn at once because what it was shown went
    meanwhile (its text never reached an index segment of its own: its units are inserted
    and dropped in one transaction), where rewriting every index on each chat would cost
    more than it saves."""
    return [*withdrawn_unit_statements(db, now_ms),
            db.prepare(REDACT_SQL).bind(now_ms),
            db.prepare(DROP_CITATIONS_SQL).bind(now_ms),
            *(optimize_statements(db) if optimize else [])]

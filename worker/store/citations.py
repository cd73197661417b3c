"""Citations of notes by Mallory's answers, and their withdrawal.

When an answer is stored, the notes it cites are recorded with the excerpt it was shown
(`record_statements`, in the answer's own D1 batch). When a sync batch deletes a cited
note, or edits it so that the excerpt no longer appears (shared/block/withdrawal.py), the
answers citing it are withdrawn in the sync's D1 batch (`withdrawal`), with those that
quoted them, and redacted (worker/store/withdrawn.py): they keep their place in the
history, without their text, and are never recalled again (worker/corpora/). Every
statement checks the note's state after the batch's own writes, so a write refused as
stale withdraws nothing. A note moved unchanged (deleted here, the same content upserted
at another path of the vault) keeps its answers, and their citations follow it (their
Sources links open it at its new path: worker/store/chats.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.api.sync_payload import NoteDelete, NoteUpsert
from shared.block.withdrawal import still_quoted
from worker.db import Database, Statement
from worker.store.withdrawn import after_withdrawal, follow_quotes_statement

# The live citations of the notes a batch upserts (?1 the vault's uuid, ?2 their paths).
CITED_SQL = """
SELECT c.message_rid, c.path, c.excerpt
FROM message_citations AS c JOIN messages AS m ON m.rid = c.message_rid
WHERE c.vid = (SELECT vid FROM vaults WHERE uuid = ?1) AND m.withdrawn_at IS NULL
  AND c.path IN (SELECT value FROM json_each(?2))
"""
# ?2: [[message rid, path, the upsert's content hash], ...] of excerpts the edit removed;
# withdrawn only where that upsert landed.
WITHDRAW_EDITED_SQL = """
UPDATE messages SET withdrawn_at = ?1
WHERE withdrawn_at IS NULL AND rid IN (
    SELECT json_extract(w.value, '$[0]') FROM json_each(?2) AS w
    JOIN vault_notes AS n ON n.vid = ?3 AND n.path = json_extract(w.value, '$[1]')
                         AND n.content_hash = json_extract(w.value, '$[2]'))
RETURNING rid
"""
# Kept citations of edited notes now cite the new version (so a later move is recognised).
REFRESH_CITED_SQL = """
UPDATE message_citations SET content_hash = n.content_hash
FROM vault_notes AS n
WHERE message_citations.vid = ?1 AND n.vid = ?1 AND n.path = message_citations.path
  AND message_citations.path IN (SELECT value FROM json_each(?2))
"""
WITHDRAW_DELETED_SQL = """
UPDATE messages SET withdrawn_at = ?1
WHERE withdrawn_at IS NULL AND rid IN (
    SELECT c.message_rid FROM message_citations AS c
    WHERE c.vid = ?2 AND c.path IN (SELECT value FROM json_each(?3))
      AND NOT EXISTS (SELECT 1 FROM vault_notes AS n WHERE n.vid = c.vid AND n.path = c.path)
      AND NOT EXISTS (SELECT 1 FROM vault_notes AS n
                      WHERE n.vid = c.vid AND n.content_hash = c.content_hash))
RETURNING rid
"""
FOLLOW_MOVES_SQL = """
UPDATE OR IGNORE message_citations SET path = (
    SELECT n.path FROM vault_notes AS n
    WHERE n.vid = message_citations.vid AND n.content_hash = message_citations.content_hash
    ORDER BY n.path LIMIT 1)
WHERE vid = ?1 AND path IN (SELECT value FROM json_each(?2))
  AND NOT EXISTS (SELECT 1 FROM vault_notes AS n
                  WHERE n.vid = message_citations.vid AND n.path = message_citations.path)
  AND EXISTS (SELECT 1 FROM vault_notes AS n
              WHERE n.vid = message_citations.vid
                AND n.content_hash = message_citations.content_hash)
"""
RECORD_SQL = """
INSERT INTO message_citations (message_rid, vid, path, content_hash, excerpt, cited_path)
SELECT m.rid, n.vid, n.path, n.content_hash, ?4, n.path
FROM messages AS m JOIN vault_notes AS n ON n.vid = ?2 AND n.path = ?3
WHERE m.id = ?1
ON CONFLICT DO NOTHING
"""
# A note deleted between recall and storing the answer: the answer is withdrawn at once.
WITHDRAW_IF_GONE_SQL = """
UPDATE messages SET withdrawn_at = ?2
WHERE id = ?1 AND withdrawn_at IS NULL AND EXISTS (
    SELECT 1 FROM json_each(?3) AS c
    WHERE NOT EXISTS (SELECT 1 FROM vault_notes AS n
                      WHERE n.vid = json_extract(c.value, '$[0]')
                        AND n.path = json_extract(c.value, '$[1]')))
"""


@dataclass
class Withdrawal:
    """Statements for the end of a sync batch; `withdrawing[i]`: statement i withdraws
    answers (its RETURNING rows count them: D1's `changes` also counts trigger and index
    writes), rather than moving citations along."""

    statements: list[Statement] = field(default_factory=list)
    withdrawing: list[bool] = field(default_factory=list)

    def add(self, statement: Statement, withdrawing: bool) -> None:
        self.statements.append(statement)
        self.withdrawing.append(withdrawing)


@dataclass(frozen=True)
class Citation:
    vid: int
    path: str
    excerpt: str  # what the answer was shown of the note


def record_statements(db: Database, message_id: str, cited: Sequence[Citation],
                      now_ms: int) -> list[Statement]:
    """Statements to run in the answer's own batch, after its INSERT."""
    if not cited:
        return []
    notes = json.dumps([[c.vid, c.path] for c in cited])
    return [*(db.prepare(RECORD_SQL).bind(message_id, c.vid, c.path, c.excerpt)
              for c in cited),
            db.prepare(WITHDRAW_IF_GONE_SQL).bind(message_id, now_ms, notes),
            *after_withdrawal(db, now_ms, optimize=False)]


def cited_statement(db: Database, vault_id: str, upserts: Sequence[NoteUpsert]) -> Statement:
    """The read `withdrawal` needs, to run before the sync batch (with the vault's)."""
    return db.prepare(CITED_SQL).bind(vault_id, json.dumps(sorted({u.path for u in upserts})))


def withdrawal(db: Database, vid: int, upserts: Sequence[NoteUpsert],
               deletes: Sequence[NoteDelete], cited: Sequence[Mapping[str, Any]],
               now_ms: int) -> Withdrawal:
    """Statements to run after a sync batch's writes; `cited`: the rows of
    `cited_statement`. When any may withdraw, worker/store/withdrawn.py's follow."""
    out = Withdrawal()
    by_path = {u.path: u for u in upserts}
    removed = [[r["message_rid"], r["path"], by_path[r["path"]].content_hash]
               for r in cited if not still_quoted(str(r["excerpt"]), by_path[r["path"]].body)]
    if removed:
        out.add(db.prepare(WITHDRAW_EDITED_SQL).bind(now_ms, json.dumps(removed), vid), True)
    if cited:
        cited_paths = sorted({str(r["path"]) for r in cited})
        out.add(db.prepare(REFRESH_CITED_SQL).bind(vid, json.dumps(cited_paths)), False)
    if deletes:
        gone = json.dumps([d.path for d in deletes])
        out.add(db.prepare(WITHDRAW_DELETED_SQL).bind(now_ms, vid, gone), True)
        out.add(db.prepare(FOLLOW_MOVES_SQL).bind(vid, gone), False)
    if any(out.withdrawing):  # and those that quoted them; all are redacted
        out.add(follow_quotes_statement(db, now_ms), True)
        for statement in after_withdrawal(db, now_ms):
            out.add(statement, False)
    return out

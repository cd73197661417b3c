"""Past messages quoted by Mallory's answers, and the withdrawal of those answers when a
quoted message is forgotten (migrations/0009).

An answer quotes every message automatic recall injected into its prompt, cited or not:
the model may repeat what it was shown without a marker. `record_statements` runs in the
answer's own batch; `forget_message_statement` and `forget_conversation_statement` run
in the forget's batch (worker/store/forget.py) before the delete, so the withdrawal and
the delete land together or not at all. A withdrawn answer stays in its conversation,
redacted, and leaves recall, as one that quoted a deleted note does; answers that quoted
it follow (worker/store/withdrawn.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from worker.db import Database, Statement
from worker.store.withdrawn import after_withdrawal

# ?1 the answer's id, ?2 the quoted ids (JSON). A message forgotten between recall and
# storing the answer has no row to quote, and one withdrawn meanwhile has no text to have
# repeated; WITHDRAW_IF_GONE_SQL then withdraws the answer.
RECORD_SQL = """
INSERT OR IGNORE INTO message_quotes (message_rid, quoted_rid)
SELECT m.rid, q.rid FROM messages AS m JOIN messages AS q
  ON q.id IN (SELECT value FROM json_each(?2))
WHERE m.id = ?1
"""
# The replies shown with owner messages (?2; worker/recall/neighbours.with_replies attaches
# the live reply that follows each).
RECORD_REPLIES_SQL = """
INSERT OR IGNORE INTO message_quotes (message_rid, quoted_rid)
SELECT m.rid, a.rid FROM messages AS m, messages AS q
JOIN messages AS a ON a.conversation_id = q.conversation_id AND a.seq = q.seq + 1
WHERE m.id = ?1 AND q.id IN (SELECT value FROM json_each(?2)) AND a.role = 'assistant'
  AND a.withdrawn_at IS NULL
"""
WITHDRAW_IF_GONE_SQL = """
UPDATE messages SET withdrawn_at = ?2
WHERE id = ?1 AND withdrawn_at IS NULL AND EXISTS (
    SELECT 1 FROM json_each(?3) AS q
    WHERE NOT EXISTS (SELECT 1 FROM messages AS m
                      WHERE m.id = q.value AND m.withdrawn_at IS NULL))
"""


def quoted_sql(quoted: str, answers: str = "1") -> str:
    """Withdraw (at ?1) the answers (those matching `answers`) that quote any message in
    `quoted`; both are fixed SQL over ?2."""
    return f"""
UPDATE messages SET withdrawn_at = ?1
WHERE withdrawn_at IS NULL AND {answers} AND rid IN (
    SELECT message_rid FROM message_quotes WHERE quoted_rid IN {quoted})
RETURNING id
"""


WITHDRAW_QUOTING_MESSAGE_SQL = quoted_sql("(SELECT rid FROM messages WHERE id = ?2)")
# Answers inside the conversation go with it; only those elsewhere are withdrawn.
WITHDRAW_QUOTING_CONVERSATION_SQL = quoted_sql(
    "(SELECT rid FROM messages WHERE conversation_id = ?2)", "conversation_id != ?2")


def record_statements(db: Database, answer_id: str, quoted: Sequence[str],
                      replied: Sequence[str], now_ms: int) -> list[Statement]:
    """Statements for the answer's own batch, after its INSERT (none if it quoted none).
    `replied`: the quoted owner messages whose reply was shown with them."""
    if not quoted:
        return []
    ids = json.dumps(sorted(set(quoted)))
    statements = [db.prepare(RECORD_SQL).bind(answer_id, ids),
                  db.prepare(WITHDRAW_IF_GONE_SQL).bind(answer_id, now_ms, ids)]
    if replied:
        statements.append(db.prepare(RECORD_REPLIES_SQL).bind(
            answer_id, json.dumps(sorted(set(replied)))))
    return [*statements, *after_withdrawal(db, now_ms, optimize=False)]


def forget_message_statement(db: Database, message_id: str, now_ms: int) -> Statement:
    return db.prepare(WITHDRAW_QUOTING_MESSAGE_SQL).bind(now_ms, message_id)


def forget_conversation_statement(db: Database, conversation_id: str,
                                  now_ms: int) -> Statement:
    return db.prepare(WITHDRAW_QUOTING_CONVERSATION_SQL).bind(now_ms, conversation_id)

"""What semantic recall embeds, per corpus: the retrieval units' text, the units still
without a vector of the current model, the orphans to remove, and vector ids resolved back
to live rows (in the same shape as the corpus's search rows, so its row → candidate
applies unchanged).

A unit's id changes with its content (a conversation unit is immutable; a note unit
carries its content hash), so "pending" is simply "no vector row for this id and model".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from worker.db.port import Value
from worker.recall.filters import Filters
from worker.store.search_sql import NOTE_ROW_SELECT, TEXT_CHARS

# The text embedded for a unit: MiniLM and bge-small read 256 and 512 word pieces at
# most, about 1,000 and 2,000 characters; the start of a unit carries its gist.
EMBED_CHARS = 1_200


@dataclass(frozen=True)
class VectorCorpus:
    # The lexical corpus record it belongs to (worker/recall/corpora.py), whose `vector`
    # registers it: VECTOR_CORPORA there lists what is embedded.
    name: str
    kind: str  # the `kind` metadata its vectors carry
    by_vault: bool  # its vectors carry the `vault` metadata, so a vault filter applies
    units_sql: str  # ?1 model, ?2 limit → unit_id, text: units without a vector of ?1
    orphans_sql: str  # ?1 limit → vector_id: rows whose unit is gone
    # Vector ids (?1 JSON array) of model ?2 → search-shaped rows with their vector_id.
    resolve_sql: str
    resolve_params: Callable[[list[str], str, Filters], tuple[Value, ...]]


# A section is embedded with its note's title and heading path: "Kitchen renovation ›
# Budget. <text>" places the text the way a reader of the note sees it.
NOTES = VectorCorpus(
    name="notes", kind="note", by_vault=True,
    units_sql=f"""
SELECT DISTINCT s.unit_id, v.name AS vault,
       n.title || CASE WHEN s.heading_path = '' THEN '' ELSE ' › ' || s.heading_path END
           || '. ' || substr(s.body, 1, {EMBED_CHARS}) AS text
FROM note_sections AS s
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
LEFT JOIN vector_units AS u ON u.unit_id = s.unit_id AND u.model = ?1
WHERE u.vector_id IS NULL
ORDER BY s.unit_id LIMIT ?2
""",
    orphans_sql="""
SELECT u.vector_id FROM vector_units AS u
WHERE u.corpus = 'notes'
  AND NOT EXISTS (SELECT 1 FROM note_sections AS s WHERE s.unit_id = u.unit_id)
LIMIT ?1
""",
    resolve_sql=f"""
{NOTE_ROW_SELECT}, u.vector_id, NULL AS bm25
FROM vector_units AS u
JOIN note_sections AS s ON s.unit_id = u.unit_id
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
WHERE u.vector_id IN (SELECT value FROM json_each(?1)) AND u.model = ?2
  AND (?3 IS NULL OR v.name = ?3)
""",
    resolve_params=lambda ids, model, filters: (json.dumps(ids), model, filters.vault),
)

MESSAGES = VectorCorpus(
    name="messages", kind="message", by_vault=False,
    units_sql=f"""
SELECT u.id AS unit_id, NULL AS vault,
       substr(trim(u.question || char(10) || u.answer), 1, {EMBED_CHARS}) AS text
FROM conversation_units AS u
LEFT JOIN vector_units AS v ON v.unit_id = u.id AND v.model = ?1
WHERE v.vector_id IS NULL
ORDER BY u.rid LIMIT ?2
""",
    orphans_sql="""
SELECT v.vector_id FROM vector_units AS v
WHERE v.corpus = 'messages'
  AND NOT EXISTS (SELECT 1 FROM conversation_units AS u WHERE u.id = v.unit_id)
LIMIT ?1
""",
    resolve_sql=f"""
SELECT v.vector_id, u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       c.title AS conversation_title, NULL AS bm25,
       substr(u.question, 1, {TEXT_CHARS}) AS question,
       substr(u.answer, 1, {TEXT_CHARS}) AS answer
FROM vector_units AS v
JOIN conversation_units AS u ON u.id = v.unit_id
JOIN conversations AS c ON c.id = u.conversation_id
WHERE v.vector_id IN (SELECT value FROM json_each(?1)) AND v.model = ?2
  AND coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND NOT (u.conversation_id = ?4 AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
""",
    resolve_params=lambda ids, model, filters: (
        json.dumps(ids), model, json.dumps(list(filters.exclude_message_ids)),
        filters.conversation_id or "", filters.exclude_recent_turns),
)

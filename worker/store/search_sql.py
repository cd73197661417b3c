"""The SQL of recall's reads, as named constants built by pure functions: the row shape of
a note section (NOTE_ROW_SELECT, which every note query selects so one row → candidate
applies), the FTS searches of both corpora (migrations/0003, 0005) and, for a query that
names only a time, the timeline of a window (migrations/0007). The corpus records
(worker/recall/corpora.py) hold the column weights and bind the parameters.
"""

from __future__ import annotations

from collections.abc import Mapping

# Candidates are cut from this much of a unit's text (a match deeper in a long note still
# ranks it; its snippet then shows the note's start).
TEXT_CHARS = 8_000


def weights_sql(columns: Mapping[str, float]) -> str:
    return ", ".join(f"{w:.3f}" for w in columns.values())


# A note section's row, as every query that yields one selects it (here, in
# worker/store/relations_sql.py and worker/recall/vector_corpora.py), over note_sections s,
# vault_notes n and vaults v.
# `related`: the note declares an effective relation or is the target of one (two index
# lookups, migrations/0006), so automatic recall reads relations only for notes that have
# some and a vault without relations pays no extra round trip.
NOTE_ROW_SELECT = f"""SELECT n.path, n.vid, n.vid || ':' || n.path AS note_key, v.name AS vault,
       n.title, n.name, n.aliases, n.tags, n.properties, n.note_date, n.note_type, n.status,
       n.role, s.ord, s.heading, s.heading_path, s.unit_id,
       substr(s.body, 1, {TEXT_CHARS}) AS text,
       (EXISTS (SELECT 1 FROM note_relations AS r WHERE r.note_rid = n.rid AND r.linked = 1)
        OR EXISTS (SELECT 1 FROM note_relations AS r
                   WHERE r.vid = n.vid AND r.target_path = n.path AND r.linked = 1)) AS related"""


# Notes dated within a window of days (migrations/0007): ?{0} and ?{1} the first and last
# day number, ?{2} and ?{3} the UTC start and end (exclusive). One indexed range per kind.
NOTES_IN_WINDOW_SQL = """SELECT note_rid FROM note_dates WHERE day BETWEEN ?{0} AND ?{1}
            UNION SELECT note_rid FROM note_dates WHERE at >= ?{2} AND at < ?{3}"""


def _notes_ranked(columns: Mapping[str, float]) -> str:
    return f"""
    SELECT rowid AS rid, bm25(note_sections_fts, {weights_sql(columns)}) AS bm25
    FROM note_sections_fts WHERE note_sections_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s
            JOIN vault_notes AS n ON n.rid = s.note_rid
            JOIN vaults AS v ON v.vid = n.vid WHERE v.name = ?3))
      AND (?4 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s WHERE s.note_rid IN (
            {NOTES_IN_WINDOW_SQL.format(4, 5, 6, 7)})))
    ORDER BY bm25 LIMIT ?2"""


def notes_search_sql(columns: Mapping[str, float]) -> str:
    """Note sections (migrations/0005). ?1 the MATCH expression, ?2 how many rows, ?3 a
    vault name or NULL for every vault, ?4–?7 a window of days (NOTES_IN_WINDOW_SQL) or
    NULL. The window, like the vault, is applied before the LIMIT. The CTE ranks on the FTS
    index alone and keeps ?2
    rows; only those are joined to the content tables. All vaults share one index, so one
    bm25() scale ranks them together; the vault filter is applied before the LIMIT, so a
    vault's hits are never crowded out by another's. No snippet() here: it re-runs the
    MATCH per row and tokenizes the whole column, which cost more than the ranking itself
    (bench.latency); shared.text.snippets cuts snippets for the final hits."""
    return f"""
WITH ranked AS ({_notes_ranked(columns)}
)
{NOTE_ROW_SELECT}, ranked.bm25
FROM ranked
JOIN note_sections AS s ON s.rid = ranked.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY ranked.bm25
"""


def notes_ranked_sql(columns: Mapping[str, float]) -> str:
    """The first pass of a gated search (worker/recall/lexical.py): notes_search_sql's
    ranking alone, with its parameters: the rowid and bm25() of each section, no row read."""
    return f"SELECT rid, bm25 FROM ({_notes_ranked(columns)}\n)"


# The second pass: the rows of the sections the first pass ranked, in its order. ?1 a JSON
# array of [rowid, keep] in that order; a row not kept is read only if its note has
# relations (the gate's bundles take a retrieved partner's candidate). The bm25() values
# stay with the caller (no round trip through JSON text).
NOTES_ROWS_SQL = f"""
WITH ranked AS (
    SELECT json_extract(value, '$[0]') AS rid, json_extract(value, '$[1]') AS keep,
           key AS pos FROM json_each(?1)
)
SELECT * FROM (
{NOTE_ROW_SELECT}, ranked.rid, ranked.keep, ranked.pos
FROM ranked
JOIN note_sections AS s ON s.rid = ranked.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid)
WHERE keep OR related
ORDER BY pos
"""


def _messages_ranked(columns: Mapping[str, float]) -> str:
    return f"""
    SELECT rowid AS rid, bm25(conversation_units_fts, {weights_sql(columns)}) AS bm25
    FROM conversation_units_fts WHERE conversation_units_fts MATCH ?1
      AND (?6 IS NULL OR rowid IN (
            SELECT rid FROM conversation_units WHERE created_at >= ?6 AND created_at < ?7))
    ORDER BY bm25 LIMIT ?2"""


_UNIT_COLUMNS = """u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       c.title AS conversation_title"""
_UNIT_TEXTS = f"""substr(u.question, 1, {TEXT_CHARS}) AS question,
       substr(u.answer, 1, {TEXT_CHARS}) AS answer"""


def _unit_exclusions(ids: str, conversation: str, turns: str) -> str:
    return (f"""coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each({ids}))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each({ids}))
  AND NOT (u.conversation_id = {conversation} AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages """
            f"WHERE conversation_id = {conversation}) - {turns})")


def messages_search_sql(columns: Mapping[str, float]) -> str:
    """Conversation units (migrations/0003). ?1 MATCH, ?2 rows; ?6 and ?7 a window (UTC
    start, exclusive end; NULL: any time), applied before the LIMIT; excluded: units
    holding a message whose id is in ?3 (a JSON array) and, in conversation ?4, units
    among its last ?5 turns (already in the model's context). A withdrawn reply (it quoted
    a note since deleted or changed) has no unit: worker/store/units.py takes it out of
    the index."""
    return f"""
WITH ranked AS ({_messages_ranked(columns)}
)
SELECT {_UNIT_COLUMNS}, ranked.bm25,
       {_UNIT_TEXTS}
FROM ranked
JOIN conversation_units AS u ON u.rid = ranked.rid
JOIN conversations AS c ON c.id = u.conversation_id
WHERE {_unit_exclusions("?3", "?4", "?5")}
ORDER BY ranked.bm25
"""


def messages_ranked_sql(columns: Mapping[str, float]) -> str:
    """The first pass of a gated search: messages_search_sql's ranking alone, with its
    parameters (?3–?5, the exclusions, are unused here: SQLite counts parameters up to the
    highest number, so one parameter list binds both)."""
    return f"SELECT rid, bm25 FROM ({_messages_ranked(columns)}\n)"


# The second pass: the units the first pass ranked and kept, in its order, with
# messages_search_sql's exclusions. ?1 a JSON array of rowids, ?2–?4 as its ?3–?5.
MESSAGES_ROWS_SQL = f"""
WITH ranked AS (SELECT value AS rid, key AS pos FROM json_each(?1))
SELECT {_UNIT_COLUMNS}, ranked.rid,
       {_UNIT_TEXTS}
FROM ranked
JOIN conversation_units AS u ON u.rid = ranked.rid
JOIN conversations AS c ON c.id = u.conversation_id
WHERE {_unit_exclusions("?2", "?3", "?4")}
ORDER BY ranked.pos
"""


# The timeline (worker/recall/timeline.py): what was dated within a window, newest first.
# ?1–?4 the window (day numbers, then UTC ms), ?5 a vault name or NULL, ?6 rows.
TIMELINE_NOTES_SQL = f"""
WITH dated AS (
    SELECT note_rid, 1 AS by_day FROM note_dates WHERE day BETWEEN ?1 AND ?2
    UNION ALL SELECT note_rid, 0 FROM note_dates WHERE at >= ?3 AND at < ?4
), notes AS (SELECT note_rid, max(by_day) AS by_day FROM dated GROUP BY note_rid)
{NOTE_ROW_SELECT}, notes.by_day
FROM notes
JOIN vault_notes AS n ON n.rid = notes.note_rid
JOIN note_sections AS s ON s.note_rid = n.rid AND s.ord = 0
JOIN vaults AS v ON v.vid = n.vid
WHERE ?5 IS NULL OR v.name = ?5
ORDER BY notes.by_day DESC, n.note_date DESC, n.path
LIMIT ?6
"""
# ?1 ?2 the window (UTC ms), ?3–?5 the exclusions of messages_search_sql, ?6 rows.
TIMELINE_MESSAGES_SQL = f"""
SELECT u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       c.title AS conversation_title, 0 AS by_day,
       substr(u.question, 1, {TEXT_CHARS}) AS question,
       substr(u.answer, 1, {TEXT_CHARS}) AS answer
FROM conversation_units AS u
JOIN conversations AS c ON c.id = u.conversation_id
WHERE u.created_at >= ?1 AND u.created_at < ?2
  AND coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND NOT (u.conversation_id = ?4 AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
ORDER BY u.created_at DESC, u.id
LIMIT ?6
"""

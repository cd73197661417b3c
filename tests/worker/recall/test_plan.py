"""The search planner: the exact SQL and parameters it plans, with no database."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import date

from shared.text.sanitiser import Mode, build_query
from shared.time.expressions import DateSpan
from shared.time.zones import pick_zone
from shared.time.zones import window as owner_window
from worker.corpora.filters import Filters
from worker.db.port import MAX_BOUND_PARAMETERS, MAX_COMPOUND_SELECT
from worker.recall.plan import CORPUS_STATS_SQL, plan, vocab_sql

NOTES_SQL = """
WITH ranked AS (
    SELECT rowid AS rid, bm25(note_sections_fts, 8.000, 6.000, 6.000, 3.000, 2.000, 2.000, 4.000, 1.000) AS bm25
    FROM note_sections_fts WHERE note_sections_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s
            JOIN vault_notes AS n ON n.rid = s.note_rid
            JOIN vaults AS v ON v.vid = n.vid WHERE v.name = ?3))
      AND (?4 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s WHERE s.note_rid IN (
            SELECT note_rid FROM note_dates WHERE day BETWEEN ?4 AND ?5
            UNION SELECT note_rid FROM note_dates WHERE at >= ?6 AND at < ?7)))
    ORDER BY bm25 LIMIT ?2
)
SELECT n.path, n.vid, n.vid || ':' || n.path AS note_key, v.name AS vault,
       n.title, n.name, n.aliases, n.tags, n.properties, n.note_date, n.note_type, n.status,
       n.role, n.name_keys, s.ord, s.heading, s.heading_path, s.unit_id,
       substr(s.body, 1, 8000) AS text,
       (EXISTS (SELECT 1 FROM note_relations AS r WHERE r.note_rid = n.rid AND r.linked = 1)
        OR EXISTS (SELECT 1 FROM note_relations AS r
                   WHERE r.vid = n.vid AND r.target_path = n.path AND r.linked = 1)) AS related, ranked.bm25
FROM ranked
JOIN note_sections AS s ON s.rid = ranked.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY ranked.bm25
"""  # noqa: E501

MESSAGES_SQL = """
WITH ranked AS (
    SELECT rowid AS rid, bm25(conversation_units_fts, 1.000, 1.000) AS bm25
    FROM conversation_units_fts WHERE conversation_units_fts MATCH ?1
      AND (?6 IS NULL OR rowid IN (
            SELECT rid FROM conversation_units WHERE created_at >= ?6 AND created_at < ?7))
    ORDER BY bm25 LIMIT ?2
)
SELECT u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       u.seq, c.title AS conversation_title, ranked.bm25,
       substr(u.question, 1, 8000) AS question,
       substr(u.answer, 1, 8000) AS answer
FROM ranked
JOIN conversation_units AS u ON u.rid = ranked.rid
JOIN conversations AS c ON c.id = u.conversation_id
WHERE coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND NOT (u.conversation_id = ?4 AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
ORDER BY ranked.bm25
"""


def test_plan_pins_the_sql_and_parameters_of_both_corpora() -> None:
    query = build_query("sourdough starter pg:pull", Mode.AUTOMATIC)
    filters = Filters(limit=5, exclude_message_ids=("m1",), conversation_id="c1",
                      exclude_recent_turns=10)
    planned = {p.key: (p.sql, p.params) for p in plan(query, filters)}
    match = '"sourdough" OR "starter" OR "pg pull"'
    stems = ("pg", "pull", "sourdough", "starter")
    assert planned == {
        ("stats", "", 0): (CORPUS_STATS_SQL, ()),
        ("hits", "notes", 0): (NOTES_SQL, (match, 15, None, None, None, None, None)),
        ("df", "notes", 0): (vocab_sql("note_sections_df", 4), stems),
        # 5 hits × 3 per conversation, plus room for the excluded message and 10 turns
        ("hits", "messages", 0): (MESSAGES_SQL, (match, 26, '["m1"]', "c1", 10, None,
                                                        None)),
        ("df", "messages", 0): (vocab_sql("conversation_units_df", 4), stems),
    }


def test_a_document_frequency_lookup_is_one_equality_per_term() -> None:
    assert vocab_sql("note_sections_df", 2) == (
        "SELECT term, doc FROM note_sections_df WHERE term = ? UNION ALL "
        "SELECT term, doc FROM note_sections_df WHERE term = ?")


def test_vault_filter_is_bound_to_the_notes_search_only() -> None:
    query = build_query("sourdough", Mode.EXPLICIT)
    planned = {p.key: p.params for p in plan(query, Filters(vault="Work", limit=4))}
    assert planned[("hits", "notes", 0)] == (query.match, 12, "Work", *[None] * 4)
    assert planned[("hits", "messages", 0)] == (query.match, 12, "[]", "", 0, None, None)


def test_a_window_binds_days_to_notes_and_instants_to_both() -> None:
    query = build_query("boiler", Mode.EXPLICIT)
    span = DateSpan(date(2026, 11, 16), date(2026, 11, 22), "last week")
    window = owner_window(span, pick_zone("Europe/Rome"))
    planned = {p.key: p.params for p in plan(query, Filters(limit=4, window=window))}
    start, end = window.start_ms, window.end_ms
    assert end - start == 7 * 86_400_000
    assert planned[("hits", "notes", 0)] == (query.match, 12, None, 20_773, 20_779, start, end)
    assert planned[("hits", "messages", 0)][-2:] == (start, end)


def test_source_filter_plans_one_corpus() -> None:
    query = build_query("sourdough", Mode.EXPLICIT)
    keys = [p.key for p in plan(query, Filters(source="notes"))]
    assert keys == [("stats", "", 0), ("hits", "notes", 0), ("df", "notes", 0)]


def test_many_stems_are_chunked_within_d1s_limits() -> None:
    uuids = " ".join(str(uuid.UUID(hashlib.md5(bytes([i])).hexdigest()))
                     for i in range(21))  # 105 distinct tokens
    query = build_query(uuids, Mode.EXPLICIT)
    statements = plan(query, Filters())
    lookups = [p for p in statements if p.key[0] == "df" and p.key[1] == "notes"]
    assert len(lookups) == 21  # compound SELECTs of at most 5 terms
    assert all(p.sql.count(" UNION ALL ") < MAX_COMPOUND_SELECT for p in lookups)
    assert all(len(p.params) <= MAX_BOUND_PARAMETERS for p in statements)
    assert sum(len(p.params) for p in lookups) == len({s for t in query.terms for s in t.stems})
    for p in statements:  # every planned statement binds exactly what its SQL asks for
        numbered = set(re.findall(r"\?(\d+)", p.sql))
        assert len(p.params) == (len(numbered) if numbered else p.sql.count("?"))

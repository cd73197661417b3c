"""The timeline: what was dated within a window, newest first, for a query that names a
time and nothing else ("what did I write yesterday?", "journal entries from this week"
once the time words and "write" are gone).

There are no terms to rank by, so relevance says how the item is dated: a note that states
a day of the window (a daily note, `date: 2026-10-02`) is that day's record and matches the
query fully (DAY_RELEVANCE); a note touched then, or a message written then, is evidence
of it (TIME_RELEVANCE). With the automatic gate's relative floor (0.75) a day's record
therefore keeps the chat's few slots for itself when there is one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from shared.candidate import Candidate
from shared.ranking import recency_boost
from worker.db import Database
from worker.db.port import Value
from worker.recall.corpora import BY_NAME, NOTE_ROW_SELECT, TEXT_CHARS, Corpus, Scoring
from worker.recall.filters import Filters
from worker.recall.plan import Planned
from worker.recall.run import run

DAY_RELEVANCE = 1.0
TIME_RELEVANCE = 0.5

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


def timeline_plan(filters: Filters) -> list[Planned]:
    """The statements of one D1 batch: the window's notes and messages (those wanted)."""
    rows = max(filters.limit, 1)
    planned = []
    if filters.wants("notes"):
        planned.append(Planned(("timeline", "notes", 0), TIMELINE_NOTES_SQL,
                               (*filters.window_params(days=True), filters.vault, rows)))
    if filters.wants("messages"):
        excluded = filters.exclude_message_ids
        params: tuple[Value, ...] = (
            *filters.window_params(days=False), json.dumps(list(excluded)),
            filters.conversation_id or "", filters.exclude_recent_turns,
            rows + len(excluded) + filters.exclude_recent_turns)
        planned.append(Planned(("timeline", "messages", 0), TIMELINE_MESSAGES_SQL, params))
    return planned


def _candidates(corpus: Corpus, rows: Sequence[dict], now_ms: int) -> list[Candidate]:
    found = []
    for row in rows:
        ts = int(row[corpus.timestamp_column])
        relevance = DAY_RELEVANCE if row["by_day"] else TIME_RELEVANCE
        found.append(corpus.to_candidate(row, Scoring(relevance, recency_boost(ts, now_ms), ts,
                                                      str(row[corpus.group_column]), ())))
    return found


async def retrieve(db: Database, filters: Filters, now_ms: int) -> list[Candidate]:
    """Everything dated within the filters' window (which must be set), newest first."""
    if filters.window is None:
        raise ValueError("the timeline needs a window of days")
    rows = await run(db, timeline_plan(filters))
    return [cand for (_, corpus, _), found in rows.items()
            for cand in _candidates(BY_NAME[corpus], found, now_ms)]

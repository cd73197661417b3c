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

from shared.rank.candidate import Candidate
from shared.rank.scoring import recency_boost
from worker.db import Database
from worker.db.port import Value
from worker.recall.corpora import BY_NAME, Corpus, Scoring
from worker.recall.filters import Filters
from worker.recall.plan import Planned
from worker.recall.run import run
from worker.store.search_sql import TIMELINE_MESSAGES_SQL, TIMELINE_NOTES_SQL

DAY_RELEVANCE = 1.0
TIME_RELEVANCE = 0.5


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

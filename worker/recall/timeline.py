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

from collections.abc import Sequence

from shared.rank.candidate import Candidate
from shared.rank.scoring import recency_boost
from worker.corpora import registry
from worker.corpora.base import Corpus, Row, Scoring
from worker.corpora.filters import Filters
from worker.db import Database
from worker.recall.plan import Planned
from worker.recall.run import run

DAY_RELEVANCE = 1.0
TIME_RELEVANCE = 0.5


def timeline_plan(filters: Filters) -> list[Planned]:
    """The statements of one D1 batch: each wanted corpus's rows of the window."""
    rows = max(filters.limit, 1)
    return [Planned(("timeline", corpus.name, 0), corpus.timeline_sql,
                    corpus.timeline_params(filters, rows))
            for corpus in registry.corpora() if filters.wants(corpus.name)]


def _candidates(corpus: Corpus, rows: Sequence[Row], now_ms: int) -> list[Candidate]:
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
            for cand in _candidates(registry.by_name(corpus), found, now_ms)]

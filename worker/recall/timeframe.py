"""Time-aware recall: a query that names a time is searched within that time.

"what did I write last week about the boiler" → the span of days "last week" in the
owner's zone (shared/time/expressions.py, shared/time/zones.py) → the terms without the time words
("boiler") → a search restricted, before FTS5's LIMIT, to notes dated and messages written
in that window (worker/recall/corpora.py). A query that names only a time lists the window
(worker/recall/timeline.py).

Filter, not boost: a boost cannot bring a note from last week into a list that twenty
better-matching older notes fill (mixed-vault "what was yesterday's tip of the day?": 43
daily notes hold "tip of the day"), and within the window the ordinary ranking and gate
still decide. When nothing in the window is found (explicit search) or passes the gate
(automatic recall), the caller searches again exactly as without the time words — so a
message that merely mentions a time ("run a command later today") is recalled as before.

A window is searched lexically: the vector index knows no dates, and the window is the
strong signal. A semantic mode says so with fallback code "time_window".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from shared.text.sanitiser import Mode, SearchQuery, Term, build_query
from shared.text.stopwords import TIME_META
from shared.text.tokenizer import normalize_query, tokens
from shared.time.expressions import parse_time
from shared.time.zones import TimeWindow, Zone, local_date, window
from worker.db import Database
from worker.recall import lexical, timeline
from worker.recall.filters import Filters
from worker.recall.modes import Retrieved
from worker.recall.retrieval_mode import Ran, RetrievalMode

FALLBACK_CODE = "time_window"


@dataclass(frozen=True)
class TimeScope:
    window: TimeWindow
    zone: Zone
    query: SearchQuery  # the terms to search within the window; `text` as typed
    applied: bool = True  # False: nothing in the window, so the search ran without it


def scope_of(text: str, mode: Mode, now_ms: int, zone: Zone) -> TimeScope | None:
    """The query's time scope, if it names a time. Raises QueryTooLong like build_query."""
    normalized = normalize_query(text)
    parsed = parse_time(normalized, local_date(now_ms, zone), southern=zone.southern)
    if parsed.span is None:
        return None
    query = replace(build_query(parsed.text, mode, drop=TIME_META), text=normalized)
    last = query.terms[-1] if query.terms else None
    if last and last.prefix and tokens(normalized)[-1:] != [last.tokens[-1]]:
        # The text ends with the time words: its last search word was typed out in full.
        query = replace(query, terms=(*query.terms[:-1], Term(last.tokens)))
    return TimeScope(window(parsed.span, zone), zone, query)


async def within(db: Database, scope: TimeScope, filters: Filters, now_ms: int,
                 mode: RetrievalMode, listing_max_days: int | None = None) -> Retrieved:
    """Candidates from the scope's window: ranked by its terms, or with no terms the
    window's timeline (only for a span of at most `listing_max_days`, when given)."""
    ran = Ran(mode=RetrievalMode.LEXICAL,
              fallback=None if mode is RetrievalMode.LEXICAL else FALLBACK_CODE)
    scoped = replace(filters, window=scope.window)
    if scope.query.is_empty:
        span = scope.window.span
        if listing_max_days is not None and (span.end - span.start).days >= listing_max_days:
            return Retrieved(lexical=lexical.LexicalResult(query=scope.query), ran=ran)
        found = await timeline.retrieve(db, scoped, now_ms)
        return Retrieved(lexical=lexical.LexicalResult(query=scope.query), candidates=found,
                         ran=ran)
    result = await lexical.retrieve(db, scope.query, scoped, now_ms)
    return Retrieved(lexical=result, candidates=result.candidates, ran=ran)

"""Time expressions in a query → a range of the owner's days (pure).

    parse_time("what did I write last week about the boiler", today=date(2026, 11, 27))
    → TimeParse(text="what did I write about the boiler",
                span=DateSpan(date(2026, 11, 16), date(2026, 11, 22), "last week"))

`today` is the owner's local date (shared/time/zones.py computes it from the clock and the
owner's time zone), so the parser itself has no clock and no time zone. The words that
said the time are cut from the text: they are not search terms (a note about the boiler
written last week rarely says "last week").

What it understands (English, case-insensitive; the rules are in shared/time/rules.py),
each becoming whole days:
- days: today, tonight, this morning, yesterday('s), last night, the day before
  yesterday, N days ago, on 2026-10-02, March 3(rd)(, 2025), the 3rd of March, on the
  19th, on Monday / last Friday (the most recent one before today), Thursday the 19th;
- weeks (Monday to Sunday): this week, last week, N weeks ago, last weekend, over the
  weekend; months: this month, last month, N months ago, in March, early/mid/late August,
  March 2025, last March; years: this year, last year, in 2025, N years ago;
- rolling spans ending today: the past week, in the last 3 days, the past few weeks;
- seasons: last summer, this winter, in the spring, summer 2025 (meteorological, whole
  months; see shared/time/days.py and `southern` below).

A month, day or season without a year is the most recent one that has started ("in
December" asked in January is last December); "last March" and "last summer" are the most
recent ones that are over. A year said beside it moves it there ("in March last year").
Future expressions ("next week", "tomorrow") are left alone: recall looks back. Bare
month, weekday and season names ("March", "Monday", "summer") stay search terms: they are
too often names or topics ("March budget", "Summer reading list").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from shared.time.days import add_months
from shared.time.rules import RULES, Context, Resolved, Span


@dataclass(frozen=True)
class DateSpan:
    start: date  # first day, in the owner's calendar
    end: date  # last day (inclusive)
    expression: str  # the words that said it, as typed


@dataclass(frozen=True)
class TimeParse:
    text: str  # the text without its time words
    span: DateSpan | None = None


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    resolved: Resolved


def _matches(text: str, ctx: Context) -> list[_Match]:
    """Every resolvable expression; overlaps resolved leftmost, then longest."""
    found = []
    for pattern, resolver in RULES:
        for m in pattern.finditer(text):
            resolved = resolver(m, ctx)
            if resolved is not None and m[0][:5].lower() == "since":  # up to today
                resolved = replace(resolved, days=(resolved.days[0], ctx.today))
            if resolved is not None:
                found.append(_Match(m.start(), m.end(), resolved))
    chosen: list[_Match] = []
    for match in sorted(found, key=lambda f: (f.start, -(f.end - f.start))):
        if not chosen or match.start >= chosen[-1].end:
            chosen.append(match)
    return chosen


def _combined(matches: list[_Match]) -> Span:
    """One span for several expressions: a year said beside a yearless month or day moves
    it into that year ("in March last year"); then their overlap, else the first."""
    years = [m.resolved.year for m in matches if m.resolved.year is not None]
    spans = []
    for m in matches:
        start, end = m.resolved.days
        if years and m.resolved.floating:
            shift = years[0] - start.year
            start, end = _shift_year(start, shift), _shift_year(end, shift)
        spans.append((start, end))
    start, end = max(s for s, _ in spans), min(e for _, e in spans)
    return (start, end) if start <= end else spans[0]


def _shift_year(day: date, years: int) -> date:
    return add_months(day, 12 * years)


def parse_time(text: str, today: date, *, southern: bool = False) -> TimeParse:
    """The text's time expressions as one span of days, and the text without them."""
    ctx = Context(today=today, southern=southern)
    matches = _matches(text, ctx)
    if not matches:
        return TimeParse(text=text)
    start, end = _combined(matches)
    kept, cursor = [], 0
    for m in matches:
        kept.append(text[cursor:m.start])
        cursor = m.end
    kept.append(text[cursor:])
    expression = " … ".join(text[m.start:m.end] for m in matches)
    return TimeParse(text=" ".join(" ".join(kept).split()),
                     span=DateSpan(start, end, expression))

"""shared/time/expressions.py: expressions → spans of the owner's days, on a fixed "today"."""

from __future__ import annotations

from datetime import date

import pytest

from shared.time.expressions import parse_time

FRIDAY = date(2026, 11, 27)  # the mixed-vault set's "now" is Friday 27 November 2026


def span(text: str, today: date = FRIDAY, **kw: bool) -> tuple[str, str] | None:
    found = parse_time(text, today, **kw).span
    return (found.start.isoformat(), found.end.isoformat()) if found else None


@pytest.mark.parametrize(("text", "expected"), [
    ("what did I do yesterday?", ("2026-11-26", "2026-11-26")),
    ("what was yesterday's tip of the day?", ("2026-11-26", "2026-11-26")),
    ("notes from today", ("2026-11-27", "2026-11-27")),
    ("what did we say earlier today", ("2026-11-27", "2026-11-27")),
    ("last night's dinner", ("2026-11-26", "2026-11-26")),
    ("the day before yesterday", ("2026-11-25", "2026-11-25")),
    ("the pub quiz questions from two days ago", ("2026-11-25", "2026-11-25")),
    ("a few days ago", ("2026-11-22", "2026-11-25")),
    ("on 2026-10-02", ("2026-10-02", "2026-10-02")),
    ("what was the tip on 2026-10-06?", ("2026-10-06", "2026-10-06")),
    ("on November 3rd", ("2026-11-03", "2026-11-03")),
    ("March 3, 2025", ("2025-03-03", "2025-03-03")),
    ("on the 15th of November", ("2026-11-15", "2026-11-15")),
    ("3 March 2025", ("2025-03-03", "2025-03-03")),
    ("on the 2nd", ("2026-11-02", "2026-11-02")),
    ("on the 30th", ("2026-10-30", "2026-10-30")),  # the 30th of this month is ahead
    ("on Monday", ("2026-11-23", "2026-11-23")),
    ("last Friday", ("2026-11-20", "2026-11-20")),  # a week back: today is Friday
    ("on sunday", ("2026-11-22", "2026-11-22")),
    ("this Wednesday", ("2026-11-25", "2026-11-25")),
    ("journal entry from last Thursday the 19th", ("2026-11-19", "2026-11-19")),
    ("this week", ("2026-11-23", "2026-11-29")),
    ("last week", ("2026-11-16", "2026-11-22")),
    ("two weeks ago", ("2026-11-09", "2026-11-15")),
    ("the past week", ("2026-11-21", "2026-11-27")),
    ("in the last 3 days", ("2026-11-25", "2026-11-27")),
    ("last weekend", ("2026-11-21", "2026-11-22")),
    ("over the weekend", ("2026-11-21", "2026-11-22")),
    ("this month", ("2026-11-01", "2026-11-30")),
    ("last month", ("2026-10-01", "2026-10-31")),
    ("two months ago", ("2026-09-01", "2026-09-30")),
    ("in March", ("2026-03-01", "2026-03-31")),
    ("in November", ("2026-11-01", "2026-11-30")),  # the month under way
    ("last March", ("2026-03-01", "2026-03-31")),
    ("in December", ("2025-12-01", "2025-12-31")),  # not yet this year: last December
    ("early August", ("2026-08-01", "2026-08-10")),
    ("mid-August", ("2026-08-11", "2026-08-20")),
    ("late February", ("2026-02-21", "2026-02-28")),
    ("in March 2025", ("2025-03-01", "2025-03-31")),
    ("in March last year", ("2025-03-01", "2025-03-31")),
    ("in may", ("2026-05-01", "2026-05-31")),
    ("this year", ("2026-01-01", "2026-12-31")),
    ("last year", ("2025-01-01", "2025-12-31")),
    ("in 2025", ("2025-01-01", "2025-12-31")),
    ("three years ago", ("2023-01-01", "2023-12-31")),
    ("last summer", ("2026-06-01", "2026-08-31")),
    ("last winter", ("2025-12-01", "2026-02-28")),  # winter runs into the next year
    ("in the spring", ("2026-03-01", "2026-05-31")),
    ("summer 2025", ("2025-06-01", "2025-08-31")),
    ("since Monday", ("2026-11-23", "2026-11-27")),
    ("since March", ("2026-03-01", "2026-11-27")),
])
def test_expressions(text: str, expected: tuple[str, str]) -> None:
    assert span(text) == expected


@pytest.mark.parametrize("text", [
    "March budget", "Summer reading list", "Monday meeting notes", "you may 2 things",
    "the 2nd edition", "the 3rd time it failed", "what is due next week", "tomorrow",
    "version 2025", "2026-13-45", "in 1492 Columbus sailed", "fall back to UTC",
    "the spring in the mattress", "may 5 people come?",
])
def test_not_time(text: str) -> None:
    assert parse_time(text, FRIDAY).span is None
    assert parse_time(text, FRIDAY).text == text


def test_time_words_are_cut_from_the_text() -> None:
    found = parse_time("what did I write last week about the boiler", FRIDAY)
    assert found.text == "what did I write about the boiler"
    assert found.span is not None and found.span.expression == "last week"


def test_year_wrap_in_january() -> None:
    january = date(2027, 1, 10)
    assert span("in December", january) == ("2026-12-01", "2026-12-31")
    assert span("last month", january) == ("2026-12-01", "2026-12-31")
    assert span("last week", date(2027, 1, 3)) == ("2026-12-21", "2026-12-27")
    assert span("this week", date(2027, 1, 1)) == ("2026-12-28", "2027-01-03")
    assert span("on December 31st", january) == ("2026-12-31", "2026-12-31")
    assert span("this winter", january) == ("2026-12-01", "2027-02-28")
    assert span("last winter", january) == ("2025-12-01", "2026-02-28")  # this one is on


def test_leap_days() -> None:
    assert span("on February 29th", date(2026, 3, 1)) == ("2024-02-29", "2024-02-29")
    assert span("late February", date(2028, 3, 1)) == ("2028-02-21", "2028-02-29")
    assert parse_time("on 2026-02-29", FRIDAY).span is None


def test_southern_seasons_swap() -> None:
    assert span("last summer", southern=True) == ("2025-12-01", "2026-02-28")
    assert span("last winter", southern=True) == ("2026-06-01", "2026-08-31")


def test_overlapping_expressions_take_the_longest() -> None:
    found = parse_time("what did I say on the 15th of November about stars", FRIDAY)
    assert found.span is not None and found.span.expression == "on the 15th of November"
    assert found.text == "what did I say about stars"


def test_disjoint_expressions_keep_the_first() -> None:
    assert span("yesterday and in March") == ("2026-11-26", "2026-11-26")

"""The time words shared/time/expressions.py understands: vocabulary, one regular expression per
kind of expression, and the resolver that turns a match into a span of days (pure).

A resolver returns None when the words are not a date after all ("may" as a verb, a 30th
of February); shared/time/expressions.py picks among the matches and combines them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from shared.time.days import (
    SEASON_MONTHS,
    SOUTHERN_SEASON,
    add_months,
    latest_day,
    latest_month,
    latest_season,
    latest_weekday,
    month_days,
    month_span,
    season_span,
    week_span,
    year_span,
)

MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
          "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
          "december": 12}
MONTH_ABBREVIATIONS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
                       "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
            "saturday": 5, "sunday": 6}
# A count as words: (fewest, most). "a few days ago" is two to five days back.
COUNTS = {"a": (1, 1), "an": (1, 1), "one": (1, 1), "two": (2, 2), "three": (3, 3),
          "four": (4, 4), "five": (5, 5), "six": (6, 6), "seven": (7, 7), "eight": (8, 8),
          "nine": (9, 9), "ten": (10, 10), "eleven": (11, 11), "twelve": (12, 12),
          "a couple of": (2, 2), "a couple": (2, 2), "couple of": (2, 2), "a few": (2, 5),
          "few": (2, 5), "several": (3, 7)}
# Parts of a month: early August is 1–10 August.
MONTH_PARTS = {"early": (1, 10), "mid": (11, 20), "late": (21, 31)}
UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
MAX_COUNT = 99  # "300 days ago" is not a memory anyone dates that way
EARLIEST_YEAR, LATEST_YEAR = 1900, 2199

Span = tuple[date, date]


@dataclass(frozen=True)
class Resolved:
    days: Span
    floating: bool = False  # its year was inferred, not said
    year: int | None = None  # set when the expression is a whole year ("last year")


@dataclass(frozen=True)
class Context:
    today: date
    southern: bool


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation of the words, longest first, any whitespace between words."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+")
                    for w in sorted(words, key=len, reverse=True))


_MONTH = _alternation(MONTHS)
_ANY_MONTH = _alternation([*MONTHS, *MONTH_ABBREVIATIONS])
_WEEKDAY = _alternation(WEEKDAYS)
_COUNT = rf"(?:{_alternation(COUNTS)}|\d{{1,2}})"
_ORD = r"(?:st|nd|rd|th)"
_POSS = r"(?:['’]s)?"
_ON = r"(?:(?P<on>on|from|dated)\s+)?"


def _count(word: str) -> tuple[int, int]:
    word = " ".join(word.lower().split())
    return COUNTS[word] if word in COUNTS else (int(word), int(word))


def _month(word: str) -> int:
    word = word.lower().rstrip(".")
    return MONTHS.get(word) or MONTH_ABBREVIATIONS[word]


def _valid_year(raw: str | None) -> int | None:
    return int(raw) if raw and EARLIEST_YEAR <= int(raw) <= LATEST_YEAR else None


def _one_day(day: date | None) -> Resolved | None:
    return Resolved((day, day)) if day else None


def _calendar_day(year: int | None, month: int, day: int, ctx: Context) -> Resolved | None:
    if year is not None:
        return _one_day(date(year, month, day)) if 1 <= day <= month_days(year, month) \
            else None
    found = latest_day(month, day, ctx.today)
    return Resolved((found, found), floating=True) if found else None


def _iso(m: re.Match[str], ctx: Context) -> Resolved | None:
    year, month, day = int(m["y"]), int(m["m"]), int(m["d"])
    if not (1 <= month <= 12 and EARLIEST_YEAR <= year <= LATEST_YEAR):
        return None
    return _calendar_day(year, month, day, ctx)


def _month_day(m: re.Match[str], ctx: Context) -> Resolved | None:
    name = m["mon"].lower().rstrip(".")
    # "may" is mostly a verb and "2 mar" Spanish for "2 sea": only a full English month,
    # an ordinal ("May 3rd"), "of" or a year make it a date.
    if (name == "may" or name in MONTH_ABBREVIATIONS) and not (
            m["ord"] or m["of"] or m["y"] or m["on"]):
        return None
    return _calendar_day(_valid_year(m["y"]), _month(name), int(m["d"]), ctx)


def _weekday_day(m: re.Match[str], ctx: Context) -> Resolved | None:
    """"Thursday the 19th": the most recent 19th that fell on a Thursday (within 2 years),
    else the most recent 19th."""
    day, weekday, cursor = int(m["d"]), WEEKDAYS[m["wd"].lower()], ctx.today
    for _ in range(24):
        found = latest_day(cursor.month, day, cursor)
        if found and found.weekday() == weekday:
            return _one_day(found)
        cursor = add_months(cursor.replace(day=1), -1)
        cursor = cursor.replace(day=month_days(cursor.year, cursor.month))
    return _day_of_month(m, ctx)


def _day_of_month(m: re.Match[str], ctx: Context) -> Resolved | None:
    day, cursor = int(m["d"]), ctx.today
    for _ in range(12):
        if day <= month_days(cursor.year, cursor.month) and date(
                cursor.year, cursor.month, day) <= ctx.today:
            return Resolved((date(cursor.year, cursor.month, day),) * 2, floating=True)
        cursor = add_months(cursor.replace(day=1), -1)
    return None


def _month_phrase(m: re.Match[str], ctx: Context) -> Resolved | None:
    name, rel, year = m["mon"].lower(), (m["rel"] or "").lower(), _valid_year(m["y"])
    if not (m["prep"] or rel or m["part"] or year) or (name == "may" and not (
            rel or m["part"] or year or (m["prep"] or "").lower() in ("in", "during"))):
        return None  # a bare month name is a search term
    month = MONTHS[name]
    floating = year is None
    if year is None:
        year = ctx.today.year if rel == "this" else latest_month(month, ctx.today,
                                                                 ended=rel in ("last", "past"))
    start, end = month_span(year, month)
    if m["part"]:
        first, last = MONTH_PARTS[m["part"].lower()]
        start, end = start.replace(day=first), end.replace(day=min(last, end.day))
    return Resolved((start, end), floating=floating)


def _year(m: re.Match[str], ctx: Context) -> Resolved | None:
    year = _valid_year(m["y"])
    return Resolved(year_span(year), year=year) if year else None


def _relative_day(m: re.Match[str], ctx: Context) -> Resolved | None:
    back = 2 if m["dby"] else 1 if m["yday"] else 0
    return _one_day(ctx.today - timedelta(days=back))


def _ago(m: re.Match[str], ctx: Context) -> Resolved | None:
    fewest, most = _count(m["n"])
    unit = m["unit"].lower()
    if not 1 <= fewest <= most <= MAX_COUNT:
        return None
    if unit in ("hour", "minute"):
        return _one_day(ctx.today)
    if unit == "day":
        return Resolved((ctx.today - timedelta(days=most), ctx.today - timedelta(days=fewest)))
    if unit == "week":
        return Resolved((week_span(ctx.today - timedelta(weeks=most))[0],
                          week_span(ctx.today - timedelta(weeks=fewest))[1]))
    if unit == "month":
        return Resolved((month_span(*_ym(add_months(ctx.today, -most)))[0],
                          month_span(*_ym(add_months(ctx.today, -fewest)))[1]))
    return Resolved((date(ctx.today.year - most, 1, 1), date(ctx.today.year - fewest, 12, 31)))


def _ym(day: date) -> tuple[int, int]:
    return day.year, day.month


def _period(m: re.Match[str], ctx: Context) -> Resolved | None:
    rel, unit, today = m["rel"].lower(), m["unit"].lower(), ctx.today
    if rel == "past" and unit != "weekend":  # "the past week": the seven days up to today
        return Resolved((today - timedelta(days=UNIT_DAYS[unit] - 1), today))
    back = 0 if rel in ("this", "current") else 1
    if unit == "week":
        return Resolved(week_span(today - timedelta(weeks=back)))
    if unit == "weekend":
        monday = week_span(today - timedelta(weeks=back))[0]
        return Resolved((monday + timedelta(days=5), monday + timedelta(days=6)))
    if unit == "month":
        return Resolved(month_span(*_ym(add_months(today, -back))))
    return Resolved(year_span(today.year - back), year=today.year - back)


def _recent_weekend(m: re.Match[str], ctx: Context) -> Resolved | None:
    saturday = latest_weekday(5, ctx.today + timedelta(days=1))  # today if it is Saturday
    return Resolved((saturday, saturday + timedelta(days=1)))


def _within(m: re.Match[str], ctx: Context) -> Resolved | None:
    _, most = _count(m["n"])
    if not 1 <= most <= MAX_COUNT:
        return None
    return Resolved((ctx.today - timedelta(days=most * UNIT_DAYS[m["unit"].lower()] - 1),
                      ctx.today))


def _season(m: re.Match[str], ctx: Context) -> Resolved | None:
    rel, year = (m["rel"] or "").lower(), _valid_year(m["y"])
    if not (m["prep"] or rel or year):
        return None
    season = m["season"].lower()
    first_month = SEASON_MONTHS[SOUTHERN_SEASON[season] if ctx.southern else season]
    if year is not None:
        return Resolved(season_span(first_month, year))
    if rel == "this" and first_month != 12:  # this year's; "this winter" is the latest
        return Resolved(season_span(first_month, ctx.today.year), floating=True)
    return Resolved(latest_season(first_month, ctx.today, ended=rel in ("last", "past")),
                     floating=True)


def _weekday(m: re.Match[str], ctx: Context) -> Resolved | None:
    weekday = WEEKDAYS[m["wd"].lower()]
    if (m["prep"] or "").lower() == "this":
        day = week_span(ctx.today)[0] + timedelta(days=weekday)
        if day <= ctx.today:
            return _one_day(day)
    return _one_day(latest_weekday(weekday, ctx.today))


Resolver = Callable[[re.Match[str], Context], "Resolved | None"]
RULES: tuple[tuple[re.Pattern[str], Resolver], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), resolver) for pattern, resolver in (
        (rf"\b{_ON}(?P<y>\d{{4}})-(?P<m>\d{{1,2}})-(?P<d>\d{{1,2}})\b", _iso),
        (rf"\b{_ON}(?:the\s+)?(?P<mon>{_ANY_MONTH})\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})"
         rf"(?P<ord>{_ORD})?(?P<of>)\b(?:,?\s+(?P<y>\d{{4}})\b)?", _month_day),
        (rf"\b{_ON}(?:the\s+)?(?P<d>\d{{1,2}})(?P<ord>{_ORD})?\s+(?P<of>of\s+)?"
         rf"(?P<mon>{_ANY_MONTH})\b\.?(?:,?\s+(?P<y>\d{{4}})\b)?", _month_day),
        (rf"\b{_ON}(?:(?:last|this|past)\s+)?(?P<wd>{_WEEKDAY})\s+(?:the\s+)?"
         rf"(?P<d>\d{{1,2}}){_ORD}\b", _weekday_day),
        (rf"\b(?:on|from|since)\s+the\s+(?P<d>\d{{1,2}}){_ORD}\b", _day_of_month),
        (rf"\b(?:(?P<prep>in|during|from|of|since)\s+)?(?:(?P<rel>last|this|past)\s+)?"
         rf"(?:(?P<part>early|mid|late)[\s-]+)?(?P<mon>{_MONTH})\b(?:,?\s+(?P<y>\d{{4}})\b)?",
         _month_phrase),
        (r"\b(?:in|during|from|of)\s+(?:the\s+year\s+)?(?P<y>\d{4})\b", _year),
        (rf"\b(?:(?P<dby>the\s+day\s+before\s+yesterday)|(?P<yday>yesterday|last\s+night)|"
         rf"today|tonight|this\s+(?:morning|afternoon|evening)|earlier\s+today){_POSS}"
         rf"(?![\w'’])", _relative_day),
        (rf"\b(?P<n>{_COUNT})\s+(?P<unit>minute|hour|day|week|month|year)s?\s+ago\b", _ago),
        (r"\b(?:earlier\s+)?(?P<rel>last|past|previous|this|current)\s+"
         r"(?P<unit>week|month|year|weekend)"
         rf"{_POSS}(?![\w'’])", _period),
        (r"\b(?:over|at|on|during)\s+the\s+weekend\b", _recent_weekend),
        (rf"\b(?:(?:in|over|during|within)\s+)?(?:the\s+)?(?:last|past)\s+(?P<n>{_COUNT})\s+"
         r"(?P<unit>day|week|month|year)s\b", _within),
        (r"\b(?:(?P<rel>last|this|past)\s+|(?P<prep>in|during)\s+(?:the\s+)?)?"
         r"(?P<season>spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?(?P<y>\d{4})\b)?",
         _season),
        (rf"\b(?P<prep>on|last|this|past|since)\s+(?P<wd>{_WEEKDAY}){_POSS}(?![\w'’])",
         _weekday),
    ))

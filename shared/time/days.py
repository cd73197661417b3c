"""Calendar arithmetic on local dates (pure): months, weeks, seasons and day numbers.

Everything here works on `datetime.date`, a day of the owner's own calendar with no time
zone; shared/time/zones.py turns such days into UTC instants.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

# Weeks start on Monday (ISO 8601): "last week" asked on Friday 2026-11-27 is 16…22
# November, as bench/sets/mixed-vault/README.md states it.
WEEK_START = 0  # date.weekday() of Monday
# Day numbers count days since 1970-01-01 in the owner's calendar: what note_dates.day
# stores for a date that has no time of day (a daily note's file name, `date: 2026-10-02`).
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()

# Meteorological seasons: whole months, so a season is a clean date range. Northern
# hemisphere months; a southern owner's seasons are the opposite ones (SOUTHERN_SEASON).
SEASON_MONTHS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
SOUTHERN_SEASON = {"spring": "autumn", "summer": "winter", "autumn": "spring",
                   "fall": "spring", "winter": "summer"}
SEASON_LENGTH_MONTHS = 3


def day_number(day: date) -> int:
    return day.toordinal() - EPOCH_ORDINAL


def from_day_number(n: int) -> date:
    return date.fromordinal(n + EPOCH_ORDINAL)


def add_months(day: date, months: int) -> date:
    """The same day `months` later (earlier when negative), clamped to the month's end."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, month_days(year, month + 1)))


def month_days(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def month_span(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, month_days(year, month))


def week_start(day: date) -> date:
    return day - timedelta(days=(day.weekday() - WEEK_START) % 7)


def week_span(day: date) -> tuple[date, date]:
    start = week_start(day)
    return start, start + timedelta(days=6)


def year_span(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year, 12, 31)


def season_span(first_month: int, year: int) -> tuple[date, date]:
    """The season that starts in `first_month` of `year` (winter runs into the next year)."""
    start = date(year, first_month, 1)
    last = add_months(start, SEASON_LENGTH_MONTHS - 1)
    return start, date(last.year, last.month, month_days(last.year, last.month))


def latest_season(first_month: int, today: date, ended: bool) -> tuple[date, date]:
    """The most recent season starting in `first_month` that has started (or, with
    `ended`, that is over) by `today`."""
    for year in (today.year, today.year - 1, today.year - 2):
        start, end = season_span(first_month, year)
        if start <= today and (not ended or end < today):
            return start, end
    raise AssertionError("a season starts every year")  # pragma: no cover


def latest_month(month: int, today: date, ended: bool) -> int:
    """The year of the most recent `month` that has started (or is over) by `today`:
    "in December" asked in January is last December."""
    current = (month < today.month) if ended else (month <= today.month)
    return today.year if current else today.year - 1


def latest_day(month: int, day: int, today: date) -> date | None:
    """The most recent `month`/`day` on or before `today` (29 February: within 8 years)."""
    for year in range(today.year, today.year - 9, -1):
        if day <= month_days(year, month) and date(year, month, day) <= today:
            return date(year, month, day)
    return None


def latest_weekday(weekday: int, today: date) -> date:
    """The most recent such weekday before today (one to seven days back)."""
    back = (today.weekday() - weekday) % 7 or 7
    return today - timedelta(days=back)

"""shared/time/days.py: calendar arithmetic on local dates."""

from __future__ import annotations

from datetime import date

from shared.time.days import (
    add_months,
    day_number,
    from_day_number,
    latest_day,
    latest_month,
    latest_season,
    latest_weekday,
    season_span,
    week_span,
)


def test_day_numbers_round_trip() -> None:
    assert day_number(date(1970, 1, 1)) == 0
    assert day_number(date(2026, 10, 2)) == 20_728
    assert from_day_number(20_728) == date(2026, 10, 2)


def test_add_months_clamps_to_the_month_end() -> None:
    assert add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)
    assert add_months(date(2026, 1, 15), -1) == date(2025, 12, 15)
    assert add_months(date(2026, 11, 30), 3) == date(2027, 2, 28)


def test_weeks_run_monday_to_sunday() -> None:
    assert week_span(date(2026, 11, 27)) == (date(2026, 11, 23), date(2026, 11, 29))
    assert week_span(date(2026, 11, 23)) == (date(2026, 11, 23), date(2026, 11, 29))
    assert week_span(date(2026, 11, 29)) == (date(2026, 11, 23), date(2026, 11, 29))


def test_most_recent_month_day_weekday_and_season() -> None:
    today = date(2026, 1, 10)
    assert latest_month(12, today, ended=False) == 2025
    assert latest_month(1, today, ended=False) == 2026
    assert latest_month(1, today, ended=True) == 2025
    assert latest_day(12, 25, today) == date(2025, 12, 25)
    assert latest_day(1, 10, today) == date(2026, 1, 10)
    assert latest_weekday(5, today) == date(2026, 1, 3)  # today is a Saturday: a week back
    assert latest_season(12, today, ended=False) == season_span(12, 2025)
    assert latest_season(12, today, ended=True) == season_span(12, 2024)
    assert season_span(12, 2027) == (date(2027, 12, 1), date(2028, 2, 29))

"""shared/time/zones.py: the owner's zone, and spans of days as UTC instants across DST."""

from __future__ import annotations

from datetime import UTC, date, datetime

from shared.time.durations import MS_PER_DAY
from shared.time.expressions import DateSpan, parse_time
from shared.time.zones import local_date, midnight_ms, pick_zone, window

HOUR_MS = 3_600_000


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).astimezone(UTC).timestamp() * 1000)


def test_the_setting_wins_then_the_context_then_utc() -> None:
    assert pick_zone("Europe/Rome", "America/New_York").name == "Europe/Rome"
    assert pick_zone("", "America/New_York").source == "context"
    assert pick_zone("", None).name == "UTC"
    assert pick_zone("", {"not": "a name"}).name == "UTC"


def test_an_unusable_zone_falls_back_with_a_reason() -> None:
    zone = pick_zone("", "Mars/Olympus_Mons")
    assert (zone.name, zone.fallback) == ("UTC", "unknown_context_zone")
    zone = pick_zone("../../etc/passwd", "Europe/Rome")
    assert (zone.name, zone.fallback) == ("Europe/Rome", "unknown_setting_zone")


def test_today_depends_on_the_zone() -> None:
    now = ms("2026-11-27T23:30:00+00:00")
    assert local_date(now, pick_zone("UTC")) == date(2026, 11, 27)
    assert local_date(now, pick_zone("Europe/Rome")) == date(2026, 11, 28)
    assert local_date(now, pick_zone("America/Los_Angeles")) == date(2026, 11, 27)
    assert local_date(ms("2026-11-28T05:00:00+00:00"),
                      pick_zone("Pacific/Kiritimati")) == date(2026, 11, 28)


def test_yesterday_across_spring_forward_is_23_hours() -> None:
    rome = pick_zone("Europe/Rome")
    today = local_date(ms("2026-03-30T09:00:00+02:00"), rome)
    parsed = parse_time("yesterday", today)
    assert parsed.span is not None
    w = window(parsed.span, rome)
    assert w.start_ms == ms("2026-03-29T00:00:00+01:00")
    assert w.end_ms == ms("2026-03-30T00:00:00+02:00")
    assert w.end_ms - w.start_ms == 23 * HOUR_MS


def test_a_day_across_fall_back_is_25_hours() -> None:
    new_york = pick_zone("America/New_York")
    w = window(DateSpan(date(2026, 11, 1), date(2026, 11, 1), "on 2026-11-01"), new_york)
    assert w.end_ms - w.start_ms == 25 * HOUR_MS
    assert w.start_ms == ms("2026-11-01T00:00:00-04:00")


def test_a_midnight_that_dst_skips_starts_the_day_at_one() -> None:
    # Santiago springs forward at midnight: 2026-09-06 begins at 01:00 local time.
    santiago = pick_zone("America/Santiago")
    assert midnight_ms(date(2026, 9, 6), santiago) == ms("2026-09-06T01:00:00-03:00")


def test_window_day_numbers_and_instants() -> None:
    w = window(DateSpan(date(1970, 1, 2), date(1970, 1, 3), "x"), pick_zone("UTC"))
    assert (w.first_day, w.last_day) == (1, 2)
    assert (w.start_ms, w.end_ms) == (MS_PER_DAY, 3 * MS_PER_DAY)


def test_southern_zones() -> None:
    assert pick_zone("Australia/Sydney").southern
    assert pick_zone("America/Argentina/Buenos_Aires").southern
    assert not pick_zone("Europe/Rome").southern
    assert not pick_zone("UTC").southern


def test_without_zone_data_every_zone_is_utc_and_says_why(monkeypatch) -> None:
    # Pyodide without the tzdata package: zoneinfo knows no zone at all.
    import zoneinfo

    import shared.time.zones as owner_time

    def missing(name: str) -> zoneinfo.ZoneInfo:
        raise zoneinfo.ZoneInfoNotFoundError(f"No time zone found with key {name}")

    monkeypatch.setattr(owner_time, "ZoneInfo", missing)
    monkeypatch.setattr(owner_time, "available_timezones", set)
    zone = pick_zone("Europe/Rome", "America/New_York")
    assert (zone.name, zone.fallback) == ("UTC", "no_zone_data")
    assert local_date(0, zone) == date(1970, 1, 1)

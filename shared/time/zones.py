"""The owner's time zone: which one, today's date in it, and a span of days as UTC times.

The zone is OWNER_TIMEZONE when set, else the time zone the client sent with the message
(`context.timezone`, an IANA name), else UTC (`pick_zone`). A span of days becomes the UTC
instants [first midnight, midnight after the last day) computed in that zone, so a day that
DST shortens to 23 hours or stretches to 25 is exactly that long.

Zone data: `zoneinfo` reads the IANA database from the system or the `tzdata` package.
Pyodide (and so Python Workers) has no system database and ships `tzdata` only when it is
a dependency, which this project declares (pyproject.toml). Should it still be missing,
every zone falls back to UTC and `Zone.fallback` says so: dates are then off by the
owner's offset at most, and recall still works.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from shared.time.days import day_number
from shared.time.expressions import DateSpan

UTC_NAME = "UTC"
MAX_ZONE_NAME = 64
# Time zones of the temperate southern hemisphere, where "summer" is December to February
# (shared/time/expressions.py): by prefix, then by name. Tropical zones keep the northern words.
SOUTHERN_PREFIXES = ("Australia/", "Antarctica/", "America/Argentina/")
SOUTHERN_ZONES = frozenset({
    "Pacific/Auckland", "Pacific/Chatham", "NZ", "America/Santiago", "America/Punta_Arenas",
    "America/Sao_Paulo", "America/Montevideo", "America/Asuncion", "America/Buenos_Aires",
    "Africa/Johannesburg", "Africa/Maseru", "Africa/Mbabane", "Africa/Windhoek",
    "Africa/Maputo", "Africa/Harare", "Africa/Gaborone", "Indian/Mauritius",
    "Indian/Reunion", "Atlantic/Stanley", "Pacific/Norfolk", "Chile/Continental"})


@dataclass(frozen=True)
class Zone:
    name: str  # the IANA name in use ("UTC" after a fallback)
    tz: tzinfo
    source: str  # "setting", "context" or "default"
    fallback: str | None = None  # why the zone asked for could not be used

    @property
    def southern(self) -> bool:
        return self.name.startswith(SOUTHERN_PREFIXES) or self.name in SOUTHERN_ZONES


@dataclass(frozen=True)
class TimeWindow:
    """A span of the owner's days in both forms the database compares: day numbers (for
    dates without a time of day) and UTC milliseconds (for instants)."""

    first_day: int  # shared.time.days.day_number, inclusive
    last_day: int  # inclusive
    start_ms: int  # UTC, inclusive
    end_ms: int  # UTC, exclusive
    span: DateSpan


UTC_ZONE = Zone(UTC_NAME, UTC, "default")


def load_zone(name: str) -> tzinfo:
    """The zone for an IANA name; raises ZoneInfoNotFoundError (unknown name, or no zone
    data on this platform) or ValueError (not a zone name at all)."""
    if name == UTC_NAME:
        return UTC
    if not name or len(name) > MAX_ZONE_NAME:
        raise ValueError(f"not a time zone name: {name[:MAX_ZONE_NAME]!r}")
    return ZoneInfo(name)


def zone_data_available() -> bool:
    return bool(available_timezones())


def pick_zone(setting: str = "", context_zone: object = None) -> Zone:
    """The owner's zone: the setting, else the client's, else UTC; a name that cannot be
    used falls back to the next, with the reason kept."""
    reason = None
    for name, source in ((setting, "setting"), (context_zone, "context")):
        if not isinstance(name, str) or not name:
            continue
        try:
            return Zone(name, load_zone(name), source, reason)
        except (ZoneInfoNotFoundError, ValueError):
            reason = reason or ("no_zone_data" if not zone_data_available()
                                else f"unknown_{source}_zone")
    return Zone(UTC_NAME, UTC, "default", reason)


def local_date(ms: int, zone: Zone) -> date:
    return datetime.fromtimestamp(ms / 1000, zone.tz).date()


def midnight_ms(day: date, zone: Zone) -> int:
    """The first instant of `day` in the zone (a midnight skipped by DST: the instant the
    day begins, one hour on)."""
    local = datetime(day.year, day.month, day.day, tzinfo=zone.tz)
    return int(local.astimezone(UTC).timestamp() * 1000)


def window(span: DateSpan, zone: Zone) -> TimeWindow:
    return TimeWindow(first_day=day_number(span.start), last_day=day_number(span.end),
                      start_ms=midnight_ms(span.start, zone),
                      end_ms=midnight_ms(span.end + timedelta(days=1), zone), span=span)

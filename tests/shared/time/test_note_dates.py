"""shared/time/note_dates.py: what a note is dated by."""

from __future__ import annotations

import json

import pytest

from shared.time.days import day_number
from shared.time.note_dates import dates_json, name_day, parse_day

FILE_TIME = 1_780_000_000_000


def test_a_date_in_the_file_name() -> None:
    assert name_day("Journal/2026-10-02.md") == parse_day("2026-10-02")
    assert name_day("Meetings/Standup 2026-10-02 notes.md") == parse_day("2026-10-02")
    assert name_day("2026-10-02") == parse_day("2026-10-02")
    assert name_day("notes.2026-10-02.md") == parse_day("2026-10-02")
    assert name_day("Log/2026-13-45.md") is None
    assert name_day("2026-10-02/Inside a dated folder.md") is None
    assert name_day("Build 120260-10-02.md") is None


def test_stated_dates_and_the_file_name_both_count() -> None:
    stored = json.loads(dates_json("Journal/2026-10-02.md", ["2026-03-14"], [FILE_TIME - 1],
                                   FILE_TIME))
    assert stored == [{"d": day_number(parse_day("2026-03-14"))},
                      {"d": day_number(parse_day("2026-10-02"))}, {"t": FILE_TIME - 1}]


def test_the_file_time_only_when_nothing_is_stated() -> None:
    assert json.loads(dates_json("Notes/Boiler.md", [], [], FILE_TIME)) == [{"t": FILE_TIME}]
    assert json.loads(dates_json("Daily/2026-10-02.md", [], [], FILE_TIME)) == [
        {"d": day_number(parse_day("2026-10-02"))}]


@pytest.mark.parametrize("bad", ["2026-02-30", "26-10-02", "2026-10-02T10:00", "yesterday"])
def test_a_malformed_day_is_refused(bad: str) -> None:
    # Python 3.14 words it "day 30 must be in range 1..28 for month 2 in year 2026".
    with pytest.raises(ValueError, match=r"YYYY-MM-DD|day is out of range|must be in range"):
        parse_day(bad)

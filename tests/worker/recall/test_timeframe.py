"""Time-aware recall on real SQLite: a time the query names restricts it to notes dated
and messages written then, in the owner's zone; the fixed clock is Thursday 2026-05-28."""

from __future__ import annotations

from datetime import UTC, datetime

from local.sqlite_db import SqliteDatabase
from shared.text.sanitiser import Mode
from shared.time.zones import pick_zone
from tests.conftest import NOW_MS, note, store_notes
from worker.corpora.filters import Filters
from worker.recall.automatic import gated
from worker.recall.explicit import search
from worker.recall.retrieval_mode import RetrievalMode
from worker.recall.timeframe import FALLBACK_CODE, scope_of, within
from worker.store import chats


def at(text: str) -> int:
    return int(datetime.fromisoformat(text).astimezone(UTC).timestamp() * 1000)


async def boiler_history(db: SqliteDatabase) -> None:
    await store_notes(
        db,
        note("Journal/2026-05-20.md", "Bled the radiators; the boiler pressure is back to 1.5.",
             mtime=at("2026-05-27T08:00:00+00:00")),
        note("Home/Boiler.md", "Boiler manual: keep the pressure between 1 and 2 bar.",
             mtime=at("2026-05-21T10:00:00+00:00")).model_copy(
                 update={"days": ["2025-11-02"]}),  # states its date: the mtime does not count
        note("Home/Heating log.md", "Boiler serviced by the plumber.",
             mtime=at("2026-05-19T10:00:00+00:00")),  # states none: dated by its mtime
        note("Journal/2026-05-27.md", "Planted basil and tomatoes.",
             mtime=at("2026-05-27T21:00:00+00:00")),
        note("Home/Shopping.md", "Compost, string, a watering can.",
             mtime=at("2026-05-27T18:00:00+00:00")),
    )
    await chats.create_conversation(db, "boiler", at("2026-05-21T09:00:00+00:00"), "c-may")
    await chats.append_message(db, "c-may", "user", "the boiler is making a knocking noise",
                               at("2026-05-21T09:00:00+00:00"), message_id="may")
    await chats.create_conversation(db, "boiler", at("2026-04-02T09:00:00+00:00"), "c-apr")
    await chats.append_message(db, "c-apr", "user", "the boiler needs a new filter",
                               at("2026-04-02T09:00:00+00:00"), message_id="april")


async def test_last_week_keeps_to_notes_and_messages_of_last_week(db: SqliteDatabase) -> None:
    await boiler_history(db)
    result = await search(db, "what did I write last week about the boiler", NOW_MS)
    assert sorted(h.identity.id for h in result.hits) == ["Home/Heating log.md",
                                                 "Journal/2026-05-20.md", "may"]
    assert result.time is not None and result.time.applied
    span = result.time.window.span
    assert (span.start.isoformat(), span.end.isoformat()) == ("2026-05-18", "2026-05-24")
    assert [t.tokens for t in result.query.terms] == [("boiler",)]  # "write", "last week" gone


async def test_nothing_in_the_window_searches_as_typed(db: SqliteDatabase) -> None:
    await boiler_history(db)
    result = await search(db, "the boiler filter in 2024", NOW_MS)
    assert result.time is not None and not result.time.applied
    assert result.hits and result.hits[0].identity.id == "april"


async def test_only_a_time_lists_the_window_records_of_the_day_first(db: SqliteDatabase
                                                                     ) -> None:
    await boiler_history(db)
    result = await search(db, "what did I write yesterday?", NOW_MS)
    assert [h.identity.id for h in result.hits] == ["Journal/2026-05-27.md", "Home/Shopping.md"]
    # The first is the day's record (its file name); the other was only touched then. The
    # daily note of the 20th, edited yesterday, states its own day: its file time is moot.
    assert [h.scores.relevance for h in result.hits] == [1.0, 0.5]


async def test_automatic_recall_of_a_day_injects_its_record(db: SqliteDatabase) -> None:
    await boiler_history(db)
    found = await gated(db, "what did I do yesterday?", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Journal/2026-05-27.md"]
    assert found.time is not None and found.time.applied


async def test_automatic_recall_lists_no_long_span(db: SqliteDatabase) -> None:
    await boiler_history(db)
    found = await gated(db, "what did I do this year?", NOW_MS)
    # Nor does it search the time words instead: the message asks about that time only.
    assert found.hits == [] and found.time is not None and found.time.applied


async def test_a_time_alone_with_nothing_in_it_recalls_nothing(db: SqliteDatabase) -> None:
    """"anything from yesterday?" with nothing dated yesterday: not the notes that hold the
    word "yesterday" (searched as typed, they were injected)."""
    await store_notes(db, note("Work/Standup.md", "Stand-up format: yesterday, today, "
                               "blockers.", title="Stand-up"))
    for text in ("anything from yesterday?", "what did I do yesterday?"):
        found = await gated(db, text, NOW_MS + 30 * 86_400_000)
        assert found.hits == [] and found.time is not None, text
        listed = await search(db, text, NOW_MS + 30 * 86_400_000)
        assert listed.hits == [] and listed.time is not None, text
    # A message that names more than a time is still searched as typed.
    found = await gated(db, "the stand-up format, from yesterday?", NOW_MS + 30 * 86_400_000)
    assert [h.identity.id for h in found.hits] == ["Work/Standup.md"]


async def test_a_time_with_no_match_recalls_as_before(db: SqliteDatabase) -> None:
    await boiler_history(db)
    found = await gated(db, "the boiler needs a new filter today?", NOW_MS)
    assert [h.identity.id for h in found.hits][:1] == ["april"]
    assert found.time is not None and not found.time.applied


async def test_the_owner_zone_decides_which_day_yesterday_is(db: SqliteDatabase) -> None:
    late = at("2026-05-27T23:30:00+00:00")  # 01:30 on the 28th in Rome
    await chats.create_conversation(db, "late", late, "c-late")
    await chats.append_message(db, "c-late", "user", "the cat knocked over the lamp", late,
                               message_id="late")
    in_utc = await search(db, "the cat yesterday", NOW_MS)
    in_rome = await search(db, "the cat yesterday", NOW_MS, zone=pick_zone("Europe/Rome"))
    assert [h.identity.id for h in in_utc.hits] == ["late"] and in_utc.time and in_utc.time.applied
    assert in_rome.time is not None and not in_rome.time.applied  # it was today there
    today_in_rome = await search(db, "the cat today", NOW_MS, zone=pick_zone("Europe/Rome"))
    assert today_in_rome.time is not None and today_in_rome.time.applied


async def test_a_stated_instant_dates_a_note(db: SqliteDatabase) -> None:
    await store_notes(db, note("Work/Retro.md", "Retro: the deploy pipeline was slow.",
                               mtime=at("2026-01-01T00:00:00+00:00")).model_copy(
                                   update={"times": [at("2026-05-25T16:00:00+02:00")]}))
    result = await search(db, "retro this week", NOW_MS)
    assert [h.identity.id for h in result.hits] == ["Work/Retro.md"]
    assert result.time is not None and result.time.applied


async def test_a_window_is_searched_lexically(db: SqliteDatabase) -> None:
    scope = scope_of("boiler yesterday", Mode.EXPLICIT, NOW_MS, pick_zone("UTC"))
    assert scope is not None
    found = await within(db, scope, Filters(), NOW_MS, RetrievalMode.HYBRID)
    assert (found.ran.mode, found.ran.fallback) == (RetrievalMode.LEXICAL, FALLBACK_CODE)


async def test_a_window_keeps_the_searchs_statistics(db: SqliteDatabase) -> None:
    # The gate reads the corpus sizes beside the IDFs (shared.rank.policy.names_only): a
    # window's result carries both, as an unscoped search does.
    await boiler_history(db)
    scope = scope_of("boiler last week", Mode.EXPLICIT, NOW_MS, pick_zone("UTC"))
    assert scope is not None
    found = await within(db, scope, Filters(), NOW_MS, RetrievalMode.LEXICAL)
    assert found.candidates and found.lexical.idf
    assert found.lexical.docs == {"notes": 5, "messages": 2}

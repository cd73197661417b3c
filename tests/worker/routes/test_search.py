"""GET /api/search through the ASGI app on real SQLite: parameters, hostile text, the
public hit shape, spelling corrections and very long queries."""

from __future__ import annotations

import hashlib
import uuid

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from shared.api.wire import SearchHit
from tests.conftest import DAY_MS, NOW_MS, note, sync
from tests.shared.text.test_sanitiser import HOSTILE
from worker.store import chats


@pytest.mark.parametrize(("params", "fragment"), [
    ({"q": "x", "limit": "0"}, "limit"),
    ({"q": "x", "limit": "abc"}, "limit"),
    ({"q": "x", "source": "email"}, "source"),
    ({}, "missing q"),
    ({"q": "word " * 500}, "2000"),
])
async def test_search_rejects_bad_parameters(client: httpx.AsyncClient, params: dict,
                                             fragment: str) -> None:
    response = await client.get("/api/search", params=params)
    assert response.status_code == 400
    assert fragment in response.json()["error"]["message"]


async def test_stopword_only_or_empty_query_is_an_empty_list(client: httpx.AsyncClient) -> None:
    await sync(client, note("a.md", "the and of"))
    for q in ("", "   ", "the of and", "what was that thing"):
        response = await client.get("/api/search", params={"q": q})
        assert response.status_code == 200
        assert response.json()["hits"] == []


@pytest.mark.parametrize("q", HOSTILE)
async def test_hostile_search_text_never_500s(client: httpx.AsyncClient, q: str) -> None:
    response = await client.get("/api/search", params={"q": q})
    assert response.status_code in (200, 400)


async def test_source_filter_and_hit_shape(client: httpx.AsyncClient, db: SqliteDatabase
                                           ) -> None:
    await sync(client, note("Travel/Kyoto.md", "Temples of Kyoto in autumn", title="Kyoto trip"))
    await chats.create_conversation(db, "kyoto", NOW_MS, "c1")
    await chats.append_message(db, "c1", "user", "Book the Kyoto ryokan", NOW_MS, message_id="m1")
    both = (await client.get("/api/search", params={"q": "kyoto"})).json()["hits"]
    assert {h["kind"] for h in both} == {"note", "message"}
    notes_only = (await client.get("/api/search",
                                   params={"q": "kyoto", "source": "notes"})).json()["hits"]
    assert [h["kind"] for h in notes_only] == ["note"]
    message = (await client.get("/api/search",
                                params={"q": "kyoto", "source": "messages"})).json()["hits"][0]
    assert message["href"] == "/?msg=m1" and message["conversation_id"] == "c1"
    assert message["snippet"][slice(*message["highlights"][0])].lower() == "kyoto"
    assert any("title matches" in r for r in notes_only[0]["reasons"])


async def test_hits_carry_only_documented_fields(client: httpx.AsyncClient,
                                                 db: SqliteDatabase) -> None:
    await sync(client, note("Travel/Kyoto.md", "Temples of Kyoto", title="Kyoto trip"))
    await chats.create_conversation(db, "kyoto", NOW_MS, "c1")
    await chats.append_message(db, "c1", "user", "Book the Kyoto ryokan", NOW_MS, message_id="m1")
    body = (await client.get("/api/search", params={"q": "kyoto"})).json()
    assert set(body) == {"query", "terms", "corrections", "mode", "fallback", "time", "hits"}
    assert body["time"] is None
    assert (body["mode"], body["fallback"]) == ("lexical", None)
    assert body["hits"]
    for hit in body["hits"]:
        assert set(hit) == set(SearchHit.model_fields)
    note_hit = next(h for h in body["hits"] if h["kind"] == "note")
    assert note_hit["vault"] == "Life" and note_hit["conversation_id"] is None


async def test_a_stored_misspelling_is_still_corrected(client: httpx.AsyncClient,
                                                      db: SqliteDatabase) -> None:
    await sync(client, *[note(f"Bread/{i}.md", f"Sourdough loaf number {i}: feed the "
                              "sourdough starter.") for i in range(4)])
    await chats.create_conversation(db, "bread", NOW_MS, "c1")
    await chats.append_message(db, "c1", "user", "my sourdoguh starter smells odd", NOW_MS,
                               message_id="typo")
    body = (await client.get("/api/search", params={"q": "sourdoguh"})).json()
    assert body["corrections"] == {"sourdoguh": "sourdough"}
    ids = [h["id"] for h in body["hits"]]
    assert ids[0] == "typo"  # the word as typed still finds the message that has it
    assert {"Bread/0.md", "Bread/1.md"} <= set(ids)
    corrected = next(h for h in body["hits"] if h["kind"] == "note")
    assert "matched a spelling correction" in corrected["reasons"]


async def test_a_name_one_edit_from_a_stopword_is_not_corrected_to_it(
        client: httpx.AsyncClient) -> None:
    """"theo", an alias in one note, is rare; "the" is in every note and is no search word."""
    await sync(client, note("People/Theodora.md", "Theodora is my niece; she loves "
                            "dinosaurs.", aliases=["Theo"]),
               *[note(f"Home/{i}.md", f"The boiler and the kettle, note {i}.")
                 for i in range(5)])
    body = (await client.get("/api/search", params={"q": "theo"})).json()
    assert body["corrections"] == {}
    assert [h["id"] for h in body["hits"]] == ["People/Theodora.md"]


async def test_search_as_you_type_finds_a_word_that_outgrew_its_stem(
        client: httpx.AsyncClient) -> None:
    """"leasin" and "weddi" start no index term ("leas", "wed") and are two edits from
    them: they complete to a word of one, searched as that word."""
    await sync(client, note("Home/Flat.md", "The leasing agent is Carla; the wedding is in "
                            "June."), note("Home/Other.md", "At least the lead is long."))
    for typed, word in (("leasin", "leasing"), ("weddi", "wedding"), ("the weddi", "wedding")):
        body = (await client.get("/api/search", params={"q": typed})).json()
        assert body["corrections"] == {typed.split()[-1]: word}, typed
        assert [h["id"] for h in body["hits"]] == ["Home/Flat.md"], typed


async def test_a_query_with_more_terms_than_d1_binds_is_answered(
        client: httpx.AsyncClient) -> None:
    ids = [str(uuid.UUID(hashlib.md5(bytes([i])).hexdigest())) for i in range(21)]
    await sync(client, note("Ops/Ids.md", f"Incident ids: {ids[3]} and more."))
    response = await client.get("/api/search", params={"q": " ".join(ids)})
    assert response.status_code == 200, response.text
    assert [h["id"] for h in response.json()["hits"]] == ["Ops/Ids.md"]


async def test_search_reads_time_words_in_the_given_zone(client: httpx.AsyncClient,
                                                         db: SqliteDatabase) -> None:
    await chats.create_conversation(db, "kyoto", NOW_MS, "c1")
    # 00:30 UTC on the clock's day (2026-05-28): still the 27th in Los Angeles.
    written = NOW_MS - NOW_MS % DAY_MS + 30 * 60_000
    await chats.append_message(db, "c1", "user", "Book the Kyoto ryokan", written,
                               message_id="m1")
    body = (await client.get("/api/search", params={"q": "kyoto today",
                                                    "tz": "America/Los_Angeles"})).json()
    assert body["time"]["timezone"] == "America/Los_Angeles" and not body["time"]["applied"]
    body = (await client.get("/api/search", params={"q": "kyoto today"})).json()
    assert body["time"]["applied"] and body["hits"][0]["id"] == "m1"
    assert "dated today" in body["hits"][0]["reasons"]
    assert body["terms"] == ['"kyoto"']


async def test_an_unknown_tz_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/search", params={"q": "kyoto", "tz": "Mars/Base"})
    assert response.status_code == 400
    assert "tz must be an IANA time zone" in response.json()["error"]["message"]


async def test_a_conversation_hit_links_the_turn_that_holds_the_query_not_a_greeting(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await chats.create_conversation(db, "catch-up", NOW_MS - DAY_MS, "c")
    for i, (owner, reply) in enumerate([
            ("I went to the LGBTQ support group yesterday. It was so powerful.",
             "Hey Caroline! Great to hear from you."),
            ("Work has been busy lately.", "Caroline, take care of yourself."),
            ("Painting again this weekend.", "Nice one, Caroline!"),
            ("The garden needs weeding.", "Caroline, I can help on Sunday.")]):
        await chats.append_message(db, "c", "user", owner, NOW_MS - DAY_MS + 2 * i,
                                   message_id=f"q{i}")
        await chats.append_message(db, "c", "assistant", reply, NOW_MS - DAY_MS + 2 * i + 1,
                                   message_id=f"a{i}")
    hits = (await client.get("/api/search", params={"q": "Caroline support group",
                                                    "source": "messages"})).json()["hits"]
    assert hits[0]["href"] == "/?msg=q0"


async def test_a_request_may_name_its_mode_and_a_mode_it_cannot_have_is_400(
        client: httpx.AsyncClient) -> None:
    await sync(client, note("Travel/Iceland.md", "Crampons at the glacier car park."))
    lexical = await client.get("/api/search", params={"q": "crampons", "mode": "lexical"})
    assert lexical.status_code == 200 and lexical.json()["mode"] == "lexical"
    assert [h["id"] for h in lexical.json()["hits"]] == ["Travel/Iceland.md"]
    for mode, code in (("hybrid", "mode_unavailable"), ("adaptive", "mode_unavailable"),
                       ("semantic", "bad_request")):
        r = await client.get("/api/search", params={"q": "crampons", "mode": mode})
        assert r.status_code == 400, mode
        assert r.json()["error"]["code"] == code, r.json()
        assert "mode" in r.json()["error"]["message"]

"""The retrieval inspector over HTTP (worker/routes/inspect.py): a search's and an answer's
trace with the gate's own reasons, why a note or message is missing, and 4xx for bad
input. Real SQLite/FTS5 through the app, the offline model."""

from __future__ import annotations

from typing import Any

import httpx

from shared.rank.confidence_models import LEXICAL
from shared.rank.policy import REASONS
from tests.conftest import DAY_MS, NOW_MS, note, sync

BOILER = note("Home/Boiler.md", "The boiler service is every October; the engineer is "
              "Dario, and the filter was replaced in 2025.", title="Boiler")
KETTLE = note("Home/Kettle.md", "Descale the kettle with citric acid once a month.",
              title="Kettle")
GARDEN = note("Garden/Roses.md", "Prune the roses in late February, above an outward "
              "bud.", title="Roses", mtime=NOW_MS - 400 * DAY_MS)


async def _setup(client: httpx.AsyncClient) -> None:
    await sync(client, BOILER, KETTLE, GARDEN)


async def _chat(client: httpx.AsyncClient, content: str,
                conversation_id: str | None = None) -> dict[str, Any]:
    response = await client.post("/api/chat", json={"content": content,
                                                    "conversation_id": conversation_id})
    assert response.status_code == 200, response.text
    return response.json()


def _by_id(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in body["candidates"]}


async def test_a_search_trace_lists_every_candidate_with_its_scores_and_decision(
        client: httpx.AsyncClient) -> None:
    await _setup(client)
    search = (await client.get("/api/search", params={"q": "boiler filter"})).json()
    got = await client.get("/api/inspect/search", params={"q": "boiler filter"})
    assert got.status_code == 200, got.text
    body = got.json()
    assert (body["subject"], body["policy"], body["mode"], body["gate"]["model"]) == (
        "search", "explicit", "lexical", LEXICAL.name)
    assert body["gate"]["kind_thresholds"] == dict(LEXICAL.kind_thresholds)
    hits = [c for c in body["candidates"] if c["hit"]]
    # The trace's hits are the search's, in its order, with the same scores.
    assert [(c["id"], c["score"]) for c in hits] == [(h["id"], h["score"])
                                                     for h in search["hits"]]
    boiler = _by_id(body)["Home/Boiler.md"]
    # Lexical mode fuses no lists: the merged rank is the lexical one.
    assert boiler["rank"] == 1 and boiler["lexical_rank"] is None
    assert boiler["matched_terms"] == ["boiler", "filter"]
    assert boiler["decision"]["rule"] == "listed" and boiler["decision"]["passed"]
    assert 0.0 < boiler["confidence"] <= 1.0
    assert boiler["recency"] > 1.0 and boiler["standing"] > 0.0
    assert boiler["cosine"] is None and boiler["injected"] is None
    assert body["answer"] is None and body["hits"] == len(hits)


async def test_an_answer_trace_shows_what_was_injected_and_cited_and_why(
        client: httpx.AsyncClient) -> None:
    await _setup(client)
    chat = await _chat(client, "when is the boiler service and who is the engineer?")
    answer = chat["assistant_message"]
    assert answer["sources"], answer  # the offline model cites what it was given
    got = await client.get(f"/api/inspect/answers/{answer['id']}")
    assert got.status_code == 200, got.text
    body = got.json()
    assert (body["subject"], body["policy"]) == ("answer", "automatic")
    info = body["answer"]
    assert info["answer_id"] == answer["id"]
    assert info["question_id"] == chat["user_message"]["id"]
    assert info["injected"] == [{"kind": "note", "id": "Home/Boiler.md", "vault": "Life"}]
    assert [s["id"] for s in info["cited"]] == ["Home/Boiler.md"]
    assert info["replayed"] is True and info["replay_matches"] is True
    assert "re-run" in info["replay"]
    boiler = _by_id(body)["Home/Boiler.md"]
    assert boiler["hit"] and boiler["injected"] and boiler["cited"] == 1
    assert boiler["after_question"] is False
    assert boiler["decision"]["rule"] == "confident"
    assert boiler["confidence"] >= LEXICAL.threshold
    assert boiler["decision"]["reason"] == REASONS["confident"].format(
        boiler["confidence"], LEXICAL.threshold, LEXICAL.name)
    # The owner's message leads to the same trace.
    again = (await client.get(f"/api/inspect/answers/{info['question_id']}")).json()
    assert again["answer"]["answer_id"] == answer["id"]


async def test_a_candidate_the_gate_refused_says_which_rule(
        client: httpx.AsyncClient) -> None:
    await _setup(client)
    chat = await _chat(client, "boiler service kettle descale roses prune citric")
    body = (await client.get(
        f"/api/inspect/answers/{chat['assistant_message']['id']}")).json()
    rules = {c["id"]: c["decision"]["rule"] for c in body["candidates"]}
    refused = {i: r for i, r in rules.items() if r not in ("confident", "listed", "together")}
    assert refused, rules
    assert set(refused.values()) <= set(REASONS), refused
    for c in body["candidates"]:
        assert c["decision"]["passed"] == (c["decision"]["rule"] in ("confident", "together"))
        assert c["hit"] == (c["decision"]["passed"]), c


async def test_why_is_this_missing_for_a_note_and_a_message(
        client: httpx.AsyncClient) -> None:
    await _setup(client)
    found = (await client.get("/api/inspect/missing", params={
        "q": "boiler filter", "vault": "Life", "path": "Home/Boiler.md"})).json()
    assert (found["status"], found["rule"]) == ("hit", "listed")
    assert found["candidate"]["id"] == "Home/Boiler.md" and found["label"] == "Boiler"

    absent = (await client.get("/api/inspect/missing", params={
        "q": "boiler filter", "vault": "Life", "path": "Garden/Roses.md"})).json()
    assert (absent["status"], absent["rule"]) == ("absent", "no_query_term")
    assert "no query term in it" in absent["reason"] and absent["unit"] is None

    unsynced = (await client.get("/api/inspect/missing", params={
        "q": "boiler", "vault": "Life", "path": "Home/Nowhere.md"})).json()
    assert unsynced["rule"] == "not_synced"

    chat = await _chat(client, "the kettle descaling uses citric acid, right?")
    gone = (await client.get("/api/inspect/missing", params={
        "answer": chat["assistant_message"]["id"], "message": "no-such-id"})).json()
    assert (gone["subject"], gone["rule"]) == ("answer", "not_stored")
    itself = (await client.get("/api/inspect/missing", params={
        "answer": chat["assistant_message"]["id"],
        "message": chat["user_message"]["id"]})).json()
    assert itself["rule"] == "the_question"


async def test_a_deleted_note_is_missing_because_it_was_deleted(
        client: httpx.AsyncClient) -> None:
    await _setup(client)
    await sync(client, batch_id="b2", deletes=[{"path": "Home/Kettle.md",
                                                "deleted_at": NOW_MS}])
    got = (await client.get("/api/inspect/missing", params={
        "q": "kettle", "vault": "Life", "path": "Home/Kettle.md"})).json()
    assert (got["status"], got["rule"]) == ("absent", "deleted")


async def test_a_unit_ranked_below_the_rows_read_is_beyond_the_candidates(
        client: httpx.AsyncClient) -> None:
    notes = [note(f"Log/Day {i:02}.md", "boiler boiler boiler pressure check " * 3,
                  title=f"Boiler log {i:02}") for i in range(8)]
    weak = note("Misc/Aside.md", "A long note about many things. " * 40 + "boiler.",
                title="Aside")
    await sync(client, *notes, weak)
    got = (await client.get("/api/inspect/missing", params={
        "q": "boiler", "limit": "1", "vault": "Life", "path": "Misc/Aside.md"})).json()
    assert (got["status"], got["rule"]) == ("absent", "beyond_candidates"), got
    assert got["unit"]["lexical_rank"] == 9 and got["unit"]["matching"] == 9
    assert got["unit"]["matched_terms"] == ["boiler"]


async def test_bad_input_is_a_clear_400_or_404(client: httpx.AsyncClient) -> None:
    await _setup(client)
    cases = [
        ("/api/inspect/search", {}, 400, "missing q"),
        ("/api/inspect/search", {"q": "x", "mode": "fast"}, 400, "mode must be one of"),
        ("/api/inspect/search", {"q": "x", "mode": "adaptive"}, 400, "needs an embedder"),
        ("/api/inspect/answers/nope", {}, 404, "no message with id"),
        ("/api/inspect/missing", {"path": "a.md", "vault": "Life"}, 400, "exactly one of q"),
        ("/api/inspect/missing", {"q": "x", "answer": "y", "message": "m"}, 400,
         "exactly one of q or answer (got q, answer)"),
        ("/api/inspect/missing", {"q": "x"}, 400, "exactly one of path or message"),
        ("/api/inspect/missing", {"q": "x", "path": "a.md"}, 400, "path needs vault"),
        ("/api/inspect/missing", {"q": "x", "path": "a.md", "vault": "Nope"}, 400,
         "no vault is named 'Nope'; known vaults: 'Life'"),
        ("/api/inspect/missing", {"q": "x", "message": "m", "vault": "Life"}, 400,
         "leave it out"),
    ]
    for path, params, status, text in cases:
        response = await client.get(path, params=params)
        assert response.status_code == status, (path, params, response.text)
        assert text in response.json()["error"]["message"], (path, params, response.text)
    first = await _chat(client, "hello there, how are you?")
    lone = first["user_message"]["id"]
    await client.delete(f"/api/messages/{first['assistant_message']['id']}")
    response = await client.get(f"/api/inspect/answers/{lone}")
    assert response.status_code == 400 and response.json()["error"]["code"] == "not_an_answer"

"""POST /api/feedback over HTTP on real SQLite: what a judgment does to later recall, and
every bad input refused with nothing stored."""

from __future__ import annotations

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from shared.rank.feedback import FEEDBACK_MAX, FEEDBACK_STEP, query_hash
from tests.conftest import BASE_URL, DAY_MS, NOW_MS, note, sync
from tests.rows import one
from worker.recall.automatic import candidates
from worker.store import forget

QUESTION = "how do I prune the tomato plants?"
TOMATOES = "Prune tomato plants: pinch out side shoots weekly."
NEWER, OLDER = "Garden/A/Tomatoes.md", "Garden/B/Tomatoes.md"


async def seed(client: httpx.AsyncClient) -> None:
    """Two notes that match alike, the newer ranked first by a hair (0.1% of recency), and
    an unrelated one."""
    await sync(client,
               note(NEWER, TOMATOES, title="Tomato care", mtime=NOW_MS - 2 * DAY_MS),
               note(OLDER, TOMATOES, title="Tomato care", mtime=NOW_MS - 3 * DAY_MS),
               note("Kitchen/Bread.md", "Bake the sourdough at 250 C."))


async def ask(client: httpx.AsyncClient, text: str = QUESTION) -> dict:
    response = await client.post("/api/chat", json={"content": text})
    assert response.status_code == 200, response.text
    return response.json()


async def judge(client: httpx.AsyncClient, message_id: str, n: object, judgment: object,
                **headers: str) -> httpx.Response:
    return await client.post("/api/feedback", json={"message_id": message_id, "n": n,
                                                    "judgment": judgment}, headers=headers)


async def ranked(client: httpx.AsyncClient, q: str = "prune tomato plants") -> list[dict]:
    return (await client.get("/api/search", params={"q": q, "source": "notes"})).json()["hits"]


def notes_cited(answer: dict) -> list[str]:
    return [s["id"] for s in answer["assistant_message"]["sources"] if s["kind"] == "note"]


def number_of(answer: dict, note_id: str) -> int:
    return next(s["n"] for s in answer["assistant_message"]["sources"] if s["id"] == note_id)


async def stored(db: SqliteDatabase) -> list[dict]:
    return (await db.prepare("SELECT * FROM recall_feedback ORDER BY rid").all()).results


async def test_relevant_lifts_a_near_tie_within_the_bound(client: httpx.AsyncClient,
                                                          db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    before = await ranked(client)
    assert [h["id"] for h in before[:2]] == [NEWER, OLDER]
    older = number_of(answer, OLDER)
    response = await judge(client, answer["assistant_message"]["id"], older, "relevant")
    assert response.status_code == 200, response.text
    assert response.json()["source"] == {"kind": "note", "id": OLDER,
                                         "label": "Tomato care"}
    after = await ranked(client)
    assert [h["id"] for h in after[:2]] == [OLDER, NEWER]
    lifted = after[0]["score"] / before[1]["score"]
    assert lifted == pytest.approx(1 + FEEDBACK_STEP, abs=1e-4)
    assert lifted <= 1 + FEEDBACK_MAX
    [row] = await stored(db)
    assert row["query_hash"] == query_hash(QUESTION) and "tomato" not in str(row)


async def test_feedback_never_lifts_a_weak_match_over_a_strong_one(client: httpx.AsyncClient
                                                                   ) -> None:
    await sync(client, note("Garden/Tomatoes.md", "Prune tomato plants: pinch out side shoots."),
               note("Garden/Log.md", "Watered the plants."))
    answer = await ask(client, "which plants did I water or prune?")
    assert {s["id"] for s in answer["assistant_message"]["sources"]} >= {"Garden/Log.md"}
    n = number_of(answer, "Garden/Log.md")
    await judge(client, answer["assistant_message"]["id"], n, "relevant")
    hits = await ranked(client, "prune tomato plants")
    assert hits[0]["id"] == "Garden/Tomatoes.md"


async def test_irrelevant_stops_reinjection_for_that_query_only(client: httpx.AsyncClient,
                                                                 db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    assert notes_cited(answer) == [NEWER, OLDER]
    n = number_of(answer, NEWER)
    assert (await judge(client, answer["assistant_message"]["id"], n, "irrelevant")
            ).status_code == 200
    again = await ask(client, "How do I prune the tomato plants")  # the same query, normalised
    assert notes_cited(again) == [OLDER]
    # Another query may still recall it (only its small delta applies).
    for text, kept in ((QUESTION, False), ("when should I prune tomato side shoots?", True)):
        found, _ = await candidates(db, text, NOW_MS)
        assert (NEWER in [c.identity.id for c in found.candidates]) is kept
    # Explicit search still lists it, a little lower.
    assert NEWER in [h["id"] for h in await ranked(client)]


async def test_judging_again_replaces_the_judgment(client: httpx.AsyncClient,
                                                   db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    message_id = answer["assistant_message"]["id"]
    await judge(client, message_id, 1, "relevant")
    await judge(client, message_id, 1, "irrelevant")
    assert [r["judgment"] for r in await stored(db)] == ["irrelevant"]


async def test_a_message_source_is_judged_by_its_message(client: httpx.AsyncClient,
                                                         db: SqliteDatabase, clock) -> None:
    first = await ask(client, "I parked the car on level 3 of the Harbourside garage")
    clock.now += 30 * DAY_MS
    answer = await ask(client, "where did I park at the Harbourside garage?")
    [source] = answer["assistant_message"]["sources"]
    assert source["kind"] == "message"
    response = await judge(client, answer["assistant_message"]["id"], 1, "relevant")
    assert response.status_code == 200
    [row] = await stored(db)
    target = await one(db.prepare("SELECT rid FROM messages WHERE id = ?").bind(
        first["user_message"]["id"]))
    assert row["doc_message_rid"] == target["rid"] and row["note_rid"] is None


async def test_a_deleted_note_loses_its_feedback_and_is_never_boosted(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    message_id = answer["assistant_message"]["id"]
    n = number_of(answer, OLDER)
    await judge(client, message_id, n, "relevant")
    await sync(client, batch_id="gone", deletes=[{"path": OLDER,
                                                  "deleted_at": NOW_MS}])
    assert await stored(db) == []
    gone = await judge(client, message_id, n, "relevant")  # withdrawn with the note
    assert gone.status_code == 409 and gone.json()["error"]["code"] == "answer_withdrawn"
    assert await stored(db) == []
    # Written again at the same path, it is a new note with no feedback.
    await sync(client, note(OLDER, TOMATOES, title="Tomato care", mtime=NOW_MS - 3 * DAY_MS),
               batch_id="back")
    hits = await ranked(client)
    assert [h["id"] for h in hits[:2]] == [NEWER, OLDER]


async def test_forgetting_the_answer_forgets_its_judgments(client: httpx.AsyncClient,
                                                           db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    await judge(client, answer["assistant_message"]["id"], 1, "relevant")
    assert len(await stored(db)) == 1
    assert (await client.delete(f"/api/messages/{answer['assistant_message']['id']}")
            ).status_code == 200
    assert await stored(db) == []


async def test_a_forgotten_question_cannot_be_judged(client: httpx.AsyncClient,
                                                     db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    await forget.delete_message(db, answer["user_message"]["id"], NOW_MS + 10_000)
    response = await judge(client, answer["assistant_message"]["id"], 1, "relevant")
    # The reply goes with its question: withdrawn, its sources redacted.
    assert response.status_code == 409 and response.json()["error"]["code"] == \
        "answer_withdrawn"
    assert await stored(db) == []


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"message_id": "nope", "n": 1, "judgment": "relevant"}, 404, "no message with id 'nope'"),
    ({"n": 1, "judgment": "relevant"}, 422, "message_id"),
    ({"message_id": "ANSWER", "n": 0, "judgment": "relevant"}, 422, "n"),
    ({"message_id": "ANSWER", "n": "1", "judgment": "relevant"}, 422, "n"),
    ({"message_id": "ANSWER", "n": True, "judgment": "relevant"}, 422, "n"),
    ({"message_id": "ANSWER", "n": 1.0, "judgment": "relevant"}, 422, "n"),
    ({"message_id": "ANSWER", "n": 9, "judgment": "relevant"}, 422, "has no source [9]"),
    ({"message_id": "ANSWER", "n": 1, "judgment": "meh"}, 422, "judgment"),
    ({"message_id": "ANSWER", "n": 1, "judgment": "relevant", "x": 1}, 422, "x"),
    ({"message_id": "QUESTION", "n": 1, "judgment": "relevant"}, 422, "is the owner's"),
])
async def test_bad_feedback_is_refused_and_stores_nothing(
        client: httpx.AsyncClient, db: SqliteDatabase, body: dict, status: int,
        says: str) -> None:
    await seed(client)
    answer = await ask(client)
    ids = {"ANSWER": answer["assistant_message"]["id"], "QUESTION": answer["user_message"]["id"]}
    if "message_id" in body:
        body = {**body, "message_id": ids.get(body["message_id"], body["message_id"])}
    response = await client.post("/api/feedback", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert says in error["message"] or says in str(error.get("details"))
    assert await stored(db) == []


async def test_feedback_is_an_owner_route_with_csrf(client: httpx.AsyncClient,
                                                    db: SqliteDatabase) -> None:
    await seed(client)
    answer = await ask(client)
    body = {"message_id": answer["assistant_message"]["id"], "n": 1, "judgment": "relevant"}
    cross = await client.post("/api/feedback", json=body,
                              headers={"origin": "https://evil.example"})
    assert cross.status_code == 403
    form = await client.post("/api/feedback", content=b"n=1",
                             headers={"content-type": "application/x-www-form-urlencoded",
                                      "origin": BASE_URL})
    assert form.status_code == 415
    not_json = await client.post("/api/feedback", content=b"{nope",
                                 headers={"content-type": "application/json"})
    assert not_json.status_code == 400
    assert await stored(db) == []

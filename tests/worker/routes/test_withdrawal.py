"""Withdrawal, end to end over HTTP on real SQLite: an answer that quoted a note is never
recalled again once the note is deleted, or edited so that the quote is gone; it stays in
the history. A note moved unchanged keeps its answers."""

from __future__ import annotations

from dataclasses import replace

import httpx
import respx

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS, heartbeat, note, sync
from worker.config import Runtime
from worker.recall.automatic import gated
from worker.recall.explicit import search
from worker.recall.neighbours import with_turns

BREAD = ("Feed the starter twice a day; bake sourdough at 250 C with steam for the first "
         "20 minutes.")
QUESTION = "how long do I bake sourdough with steam?"


async def seed_and_ask(client: httpx.AsyncClient) -> dict:
    await sync(client, note("Recipes/Sourdough.md", BREAD, title="Sourdough bread"),
               batch_id="seed")
    answer = (await client.post("/api/chat", json={"content": QUESTION})).json()
    assert answer["assistant_message"]["sources"][0]["id"] == "Recipes/Sourdough.md"
    return answer


async def recalled_answers(client: httpx.AsyncClient) -> list[dict]:
    response = await client.get("/api/search", params={"q": "starter steam sourdough",
                                                       "source": "messages"})
    return [h for h in response.json()["hits"] if h["snippet"].startswith("Here is what")]


async def withdrawn(db: SqliteDatabase) -> list[str]:
    rows = (await db.prepare("SELECT id FROM messages WHERE withdrawn_at IS NOT NULL")
            .all()).results
    return [r["id"] for r in rows]


async def test_an_answer_is_recalled_without_its_markers_until_its_note_is_deleted(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    answer = await seed_and_ask(client)
    answer_id = answer["assistant_message"]["id"]
    [hit] = await recalled_answers(client)
    assert hit["id"] == answer_id and "[1]" not in hit["snippet"]
    deleted = await sync(client, deletes=[{"path": "Recipes/Sourdough.md", "deleted_at": NOW_MS}],
                         batch_id="gone")
    assert deleted.json()["withdrawn"] == 1
    assert await recalled_answers(client) == []
    assert await withdrawn(db) == [answer_id]
    history = await client.get(f"/api/conversations/{answer['conversation_id']}/messages")
    assert answer_id in [m["id"] for m in history.json()["messages"]]  # kept in history


async def test_an_edit_that_keeps_the_quote_keeps_the_answer(client: httpx.AsyncClient,
                                                            db: SqliteDatabase) -> None:
    await seed_and_ask(client)
    kept = await sync(client, note("Recipes/Sourdough.md", "Rye loaves too.\n\n" + BREAD +
                                   "\n\nUse a dutch oven.", title="Sourdough bread"),
                      batch_id="edit")
    assert kept.json()["withdrawn"] == 0 and await withdrawn(db) == []
    changed = await sync(client, note("Recipes/Sourdough.md", "Bake at 230 C without steam.",
                                      title="Sourdough bread"), batch_id="rewrite")
    assert changed.json()["withdrawn"] == 1
    assert await recalled_answers(client) == []


async def test_a_note_moved_unchanged_keeps_its_answers_and_they_follow_it(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    answer = await seed_and_ask(client)
    [before] = answer["assistant_message"]["sources"]
    assert before["href"].endswith("&file=Recipes%2FSourdough")
    same_bytes = note("Recipes/Sourdough.md", BREAD, title="Sourdough bread")
    moved = await sync(client, same_bytes.model_copy(update={"path": "Archive/Sourdough.md"}),
                       deletes=[{"path": "Recipes/Sourdough.md", "deleted_at": NOW_MS}],
                       batch_id="move")
    assert moved.json()["withdrawn"] == 0 and await withdrawn(db) == []
    rows = (await db.prepare("SELECT path, cited_path FROM message_citations").all()).results
    assert rows == [{"path": "Archive/Sourdough.md", "cited_path": "Recipes/Sourdough.md"}]
    # The footer's link opens the note where it is now, in the history and in an export.
    history = await client.get(f"/api/conversations/{answer['conversation_id']}/messages")
    [source] = next(m["sources"] for m in history.json()["messages"]
                    if m["id"] == answer["assistant_message"]["id"])
    assert source["id"] == "Archive/Sourdough.md"
    assert source["href"] == before["href"].replace("Recipes%2F", "Archive%2F")
    exported = (await client.get("/api/export")).json()
    assert [s["href"] for c in exported["conversations"] for m in c["messages"]
            for s in m["sources"]] == [source["href"]]
    gone = await sync(client, deletes=[{"path": "Archive/Sourdough.md", "deleted_at": NOW_MS}],
                      batch_id="gone")
    assert gone.json()["withdrawn"] == 1


async def test_a_delete_refused_as_stale_withdraws_nothing(client: httpx.AsyncClient,
                                                          db: SqliteDatabase) -> None:
    early = (await heartbeat(client))["vault"]["seq"]
    await seed_and_ask(client)
    stale = await sync(client, deletes=[{"path": "Recipes/Sourdough.md", "deleted_at": NOW_MS}],
                       batch_id="late-delete", seq=early)
    assert stale.json()["deleted"] == 0 and stale.json()["withdrawn"] == 0
    assert await withdrawn(db) == []


async def test_a_withdrawn_reply_is_not_brought_with_its_question(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await seed_and_ask(client)
    await sync(client, deletes=[{"path": "Recipes/Sourdough.md", "deleted_at": NOW_MS}],
               batch_id="gone")
    listed = (await search(db, QUESTION, NOW_MS + 10_000)).hits
    questions = [h for h in listed if h.identity.kind == "message" and h.identity.role == "user"]
    assert questions, "search still lists the owner's earlier question"
    assert all(h.message.reply is None for h in await with_turns(db, questions))
    # Without its answer it is a bare question, no memory: automatic recall leaves it out.
    found = await gated(db, "how long do I bake sourdough with steam in the oven?",
                        NOW_MS + 10_000)
    assert not [h for h in found.hits if h.identity.kind == "message"]


async def test_an_answer_shown_a_note_it_never_cited_is_withdrawn_with_it(
        client: httpx.AsyncClient, db: SqliteDatabase, runtime: Runtime) -> None:
    """A model may repeat what it was shown without any [n]: the answer still goes."""
    runtime.settings = replace(runtime.settings, model_provider="openai",
                               openai_base_url="https://llm.example/v1",
                               openai_api_key="k", openai_model="m")
    await sync(client, note("Recipes/Sourdough.md", BREAD, title="Sourdough bread"),
               batch_id="seed")
    with respx.mock() as mock:
        mock.post("https://llm.example/v1/chat/completions").respond(200, json={
            "choices": [{"message": {"role": "assistant", "content":
                         "Here is what I remember: bake sourdough with steam at 250 C."}}]})
        answer = (await client.post("/api/chat", json={"content": QUESTION})).json()
    assert answer["recall"]["injected"] == 1
    assert answer["assistant_message"]["sources"] == []  # nothing cited, no footer
    answer_id = answer["assistant_message"]["id"]
    assert [h["id"] for h in await recalled_answers(client)] == [answer_id]
    deleted = await sync(client, deletes=[{"path": "Recipes/Sourdough.md",
                                           "deleted_at": NOW_MS}], batch_id="gone")
    assert deleted.json()["withdrawn"] == 1
    assert await recalled_answers(client) == []
    assert await withdrawn(db) == [answer_id]

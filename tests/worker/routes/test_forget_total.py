"""After any forget — a message, a conversation, a note deleted, a fact edited out of a
note — no route returns the forgotten words and the database file no longer holds them.

Over HTTP through the app on a real SQLite file. The model is an OpenAI-compatible
endpoint (the edge of the system, stood in for with respx) that repeats its whole prompt:
the worst case, where every answer given with the words in view repeats them. Answers are
chained: one recalls the fact, a later one recalls that answer. Then every route is read
(search, chat recall, conversations, their pages, every message, /status, the hub's
manifest, the OpenAPI document, `mallory feedback export`) and the file's bytes (with
its write-ahead log, FTS5 shadow tables included) are scanned for the words.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from local import feedback_export
from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import (
    BASE_URL,
    LIFE_ID,
    LOCAL_OWNER,
    NOW_MS,
    TOKEN,
    Clock,
    auth,
    note,
    sync,
)
from worker.app import create_app
from worker.config import Runtime, Settings

# The one word starting with "x" in this corpus, so FTS5 stores its term whole (a term is
# stored as the suffix it does not share with the term before it); porter stems it to
# "xyloqu", so the scan looks for "xyloq".
SECRET = "xyloquent"
PROBE = b"xyloq"
FACT = f"Remember: the garage locker code is {SECRET}."
NOTE_BODY = (f"The garage locker code is {SECRET}. The bike pump hangs on the left shelf "
             "of the garage.")
EDITED_BODY = "The bike pump hangs on the left shelf of the garage."
LOCKER = "Home/Locker.md"
ASK = "what is the garage locker code?"
ASK_AGAIN = "what did you answer about the garage locker code?"
MODEL_URL = "https://llm.example/v1/chat/completions"
QUOTED_SQL = """
SELECT q.id FROM message_quotes JOIN messages AS a ON a.rid = message_rid
JOIN messages AS q ON q.rid = quoted_rid WHERE a.id = ?1
"""


def echo(request: httpx.Request) -> httpx.Response:
    """A model that repeats everything it was given (history, Recall block, question)."""
    prompt = json.loads(request.content)["messages"]
    said = "\n".join(m["content"] for m in prompt if m["role"] != "system")
    return httpx.Response(200, json={"choices": [{"message": {
        "role": "assistant", "content": f"You told me:\n{said}"}}]})


@pytest.fixture
def model() -> Iterator[None]:
    with respx.mock() as mock:
        mock.post(MODEL_URL).mock(side_effect=echo)
        yield


@pytest.fixture
async def file_db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "mallory.sqlite")
    await migrate(database)
    yield database
    database.close()


@pytest.fixture
async def http(file_db: SqliteDatabase, model: None) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(sync_tokens=(TOKEN,), **LOCAL_OWNER, model_provider="openai",
                        openai_base_url="https://llm.example/v1", openai_api_key="k",
                        openai_model="m", chat_per_minute=1000, search_per_minute=1000)
    rt = Runtime(db=file_db, settings=settings, clock=Clock())
    app = WithRuntime(create_app(serve_static=False), rt)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as client:
        yield client


async def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, f"{response.request.url}: {response.text}"
    return response.json()


async def chat(http: httpx.AsyncClient, content: str) -> dict[str, Any]:
    return await ok(await http.post("/api/chat", json={"content": content}))


async def every_route(http: httpx.AsyncClient, db: SqliteDatabase, out: Path) -> list[str]:
    """The body of every read route, as text (and `mallory feedback export`'s files)."""
    bodies: list[str] = []

    async def read(path: str, **kwargs: Any) -> Any:
        response = await http.get(path, **kwargs)
        bodies.append(f"GET {path} {kwargs}: {response.text}")
        assert response.status_code == 200, bodies[-1]
        return response.json()

    for q in (SECRET, "garage locker code", "locker", "garage"):
        for source in (None, "notes", "messages"):
            params = {"q": q, **({"source": source} if source else {})}
            found = await ok(await http.get("/api/search", params=params))
            # What it found and the corrections it offers; not the query it echoes.
            bodies.append(f"GET /api/search (source {source}): " + json.dumps(
                [found["hits"], list(found["corrections"].values())]))
    listed = await read("/api/conversations", params={"limit": 100})
    ids: set[str] = set()
    for conversation in listed["conversations"]:
        page = await read(f"/api/conversations/{conversation['id']}/messages",
                          params={"limit": 100})
        ids |= {m["id"] for m in page["messages"]}
        for m in page["messages"]:
            ids |= {s["id"] for s in m["sources"] if s["kind"] == "message"}
    for message_id in sorted(ids):
        response = await http.get(f"/api/messages/{message_id}")
        bodies.append(f"GET /api/messages/{message_id}: {response.text}")
        assert response.status_code in (200, 404), bodies[-1]
    await read("/status")
    await read("/api/memories")
    await read("/vault/manifest", params={"vault": LIFE_ID}, headers=auth())
    await read("/openapi.json")
    found, rows = await feedback_export.collect(db)
    return bodies + exported(out, found, rows)


def exported(out: Path, found: feedback_export.Export, rows: list[dict[str, Any]]
             ) -> list[str]:
    feedback_export.write(out, found, rows)
    return [p.read_text(encoding="utf-8") for p in sorted(out.rglob("*.jsonl"))]


def file_bytes(db: SqliteDatabase) -> bytes:
    """The database file and its write-ahead log, as they are on disk now."""
    main = Path(db.path)
    wal = main.with_name(main.name + "-wal")
    return main.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


async def seed_and_forget(http: httpx.AsyncClient, db: SqliteDatabase,
                          kind: str) -> dict[str, Any]:
    """Put the words where a forget must find them, check they are there, forget."""
    fact = memory = None
    if kind in ("message", "conversation"):
        await sync(http, note("Home/Bike.md", EDITED_BODY, title="Bike"), batch_id="seed")
        fact = await chat(http, FACT)
        assert SECRET in fact["assistant_message"]["content"]  # the reply repeats it
    elif kind.startswith("memory"):  # a saved memory (POST /api/memories)
        await sync(http, note("Home/Bike.md", EDITED_BODY, title="Bike"), batch_id="seed")
        memory = await ok(await http.post("/api/memories", json={"fact": FACT}))
    else:
        await sync(http, note(LOCKER, NOTE_BODY, title="Locker"), batch_id="seed")
    first = await chat(http, ASK)
    assert first["recall"]["injected"] >= 1 and SECRET in first["assistant_message"]["content"]
    later = await chat(http, ASK_AGAIN)
    assert SECRET in later["assistant_message"]["content"]
    quoted = (await db.prepare(QUOTED_SQL).bind(later["assistant_message"]["id"]).all()).results
    # An answer quoting an earlier answer: a chain of two. When the fact was told in chat,
    # the earlier answer is an echo of it and recall quotes the fact itself in its place
    # (worker/recall/echoes.py); tests/worker/store/test_withdrawn.py holds longer chains.
    told = {fact["user_message"]["id"], fact["assistant_message"]["id"]} if fact else set()
    assert ({first["assistant_message"]["id"]} | told) & {r["id"] for r in quoted}
    [source] = first["assistant_message"]["sources"][:1] or [None]
    if source is not None:  # a judgment, so the feedback export has a conversation to show
        await ok(await http.post("/api/feedback", json={
            "message_id": first["assistant_message"]["id"], "n": source["n"],
            "judgment": "relevant"}))
    assert file_bytes(db).count(PROBE) >= 2  # the scan can see the words: rows and index
    if memory is not None and kind == "memory_delete":
        return await ok(await http.delete(f"/api/memories/{memory['id']}"))
    if memory is not None:  # corrected: the old fact is forgotten, the new one saved
        edited = await ok(await http.patch(f"/api/memories/{memory['id']}",
                                           json={"fact": "The garage locker has no code."}))
        return {"answers_withdrawn": len(edited["withdrawn_ids"])}
    if kind == "message":
        assert fact is not None
        return await ok(await http.delete(f"/api/messages/{fact['user_message']['id']}"))
    if kind == "conversation":
        assert fact is not None
        return await ok(await http.delete(f"/api/conversations/{fact['conversation_id']}"))
    if kind == "note_delete":
        return await ok(await sync(http, batch_id="gone",
                                   deletes=[{"path": LOCKER, "deleted_at": NOW_MS}]))
    return await ok(await sync(http, note(LOCKER, EDITED_BODY, title="Locker", mtime=NOW_MS),
                               batch_id="edit"))


@pytest.mark.parametrize("kind", ["message", "conversation", "note_delete", "note_edit",
                                  "memory_delete", "memory_edit"])
async def test_after_a_forget_no_route_and_no_byte_of_the_file_holds_the_words(
        http: httpx.AsyncClient, file_db: SqliteDatabase, tmp_path: Path, kind: str) -> None:
    forgotten = await seed_and_forget(http, file_db, kind)
    # Both answers that had the words in view, however they got them, are withdrawn.
    withdrawn = forgotten.get("answers_withdrawn", forgotten.get("withdrawn"))
    assert withdrawn is not None and withdrawn >= 2, forgotten

    leaks = [body for body in await every_route(http, file_db, tmp_path / "export")
             if SECRET in body]
    assert leaks == []
    on_disk = file_bytes(file_db)
    assert PROBE not in on_disk and SECRET.encode() not in on_disk

    # Chat recall, asked in the fact's other words: nothing of it comes back.
    again = await chat(http, ASK)
    assert SECRET not in json.dumps({k: v for k, v in again.items() if k != "user_message"})

"""Forgetting a message withdraws the answers that were given with it injected, cited or
not, and the reply to it, over HTTP through the real chat path on real SQLite: they stay
in their conversation, redacted, and are never searched or recalled again
(worker/store/quotes.py, worker/store/withdrawn.py)."""

from __future__ import annotations

from dataclasses import replace

import httpx
import respx

from local.sqlite_db import SqliteDatabase
from worker.config import Runtime

FACT = "I keep the spare bike keys in the turquoise ceramic jar"
QUESTION = "where are the spare bike keys?"
MODEL_URL = "https://llm.example/v1/chat/completions"


async def ask(client: httpx.AsyncClient, content: str) -> dict:
    response = await client.post("/api/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return response.json()


async def found(client: httpx.AsyncClient, q: str) -> list[str]:
    response = await client.get("/api/search", params={"q": q, "source": "messages"})
    assert response.status_code == 200, response.text
    return [h["id"] for h in response.json()["hits"]]


async def withdrawn(db: SqliteDatabase) -> list[str]:
    rows = (await db.prepare("SELECT id FROM messages WHERE withdrawn_at IS NOT NULL")
            .all()).results
    return [r["id"] for r in rows]


async def tell_then_ask(client: httpx.AsyncClient) -> tuple[dict, dict]:
    told = await ask(client, FACT)
    later = await ask(client, QUESTION)
    assert later["recall"]["injected"] >= 1
    answer_id = later["assistant_message"]["id"]
    assert answer_id in await found(client, "turquoise ceramic jar")
    return told, later


async def history(client: httpx.AsyncClient, conversation_id: str) -> list[str]:
    page = await client.get(f"/api/conversations/{conversation_id}/messages")
    return [m["id"] for m in page.json()["messages"]]


async def test_forgetting_a_message_withdraws_the_answer_that_quoted_it(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    told, later = await tell_then_ask(client)
    answer_id = later["assistant_message"]["id"]
    assert "turquoise" in later["assistant_message"]["content"]  # the offline responder
    response = await client.delete(f"/api/messages/{told['user_message']['id']}")
    assert response.status_code == 200, response.text
    reply_id = told["assistant_message"]["id"]  # its prompt was the forgotten message
    assert response.json()["answers_withdrawn"] == 2
    assert sorted(response.json()["withdrawn_ids"]) == sorted([reply_id, answer_id])
    assert sorted(await withdrawn(db)) == sorted([reply_id, answer_id])
    shown = (await client.get(f"/api/messages/{answer_id}")).json()["message"]
    assert (shown["withdrawn"], shown["content"], shown["sources"]) == (True, "", [])
    assert await found(client, "turquoise ceramic jar") == []
    again = await ask(client, QUESTION)
    shown = [s["id"] for s in again["assistant_message"]["sources"]]
    # The owner's earlier question is all that is left of that exchange, and a bare
    # question holds no answer: it is not recalled (worker/recall/echoes.py).
    assert shown == []
    assert "turquoise" not in again["assistant_message"]["content"]
    assert answer_id in await history(client, later["conversation_id"])  # kept in history
    # The owner's question of that exchange stays recallable on its own.
    assert later["user_message"]["id"] in await found(client, "spare bike keys")


async def test_forgetting_a_conversation_withdraws_answers_elsewhere(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    told, later = await tell_then_ask(client)
    response = await client.delete(f"/api/conversations/{told['conversation_id']}")
    assert response.status_code == 200, response.text
    assert response.json()["answers_withdrawn"] == 1
    assert response.json()["withdrawn_ids"] == [later["assistant_message"]["id"]]
    assert await withdrawn(db) == [later["assistant_message"]["id"]]
    assert await found(client, "turquoise ceramic jar") == []
    again = await ask(client, QUESTION)
    assert "turquoise" not in again["assistant_message"]["content"]


async def test_an_uncited_quote_is_withdrawn_too(client: httpx.AsyncClient,
                                                 db: SqliteDatabase, runtime: Runtime) -> None:
    told = await ask(client, FACT)
    runtime.settings = replace(runtime.settings, model_provider="openai",
                               openai_base_url="https://llm.example/v1",
                               openai_api_key="k", openai_model="m")
    with respx.mock() as mock:
        mock.post(MODEL_URL).respond(200, json={"choices": [{"message": {
            "role": "assistant", "content": "They are in the turquoise ceramic jar."}}]})
        later = await ask(client, QUESTION)
    assert later["recall"]["injected"] >= 1 and later["assistant_message"]["sources"] == []
    response = await client.delete(f"/api/messages/{told['user_message']['id']}")
    assert response.json()["answers_withdrawn"] == 2
    assert sorted(await withdrawn(db)) == sorted([told["assistant_message"]["id"],
                                                  later["assistant_message"]["id"]])
    assert await found(client, "turquoise ceramic jar") == []


async def test_an_answer_not_shown_the_message_stays(client: httpx.AsyncClient,
                                                     db: SqliteDatabase) -> None:
    told = await ask(client, FACT)
    other = await ask(client, "an unrelated marmalade recipe with seville oranges")
    assert other["recall"]["injected"] == 0
    response = await client.delete(f"/api/messages/{told['user_message']['id']}")
    reply_only = [told["assistant_message"]["id"]]  # the reply to the forgotten message
    assert response.json()["answers_withdrawn"] == 1 and await withdrawn(db) == reply_only
    assert other["user_message"]["id"] in await found(client, "seville marmalade")

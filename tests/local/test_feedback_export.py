"""`mallory feedback export`: judgments made over HTTP come out as a §6 evaluation set that
bench.relevance can run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx

from bench.relevance import run as run_relevance
from hub.notes import parse_note
from local.cli import main
from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from shared.api.sync_payload import NoteUpsert
from shared.api.wire import Source
from tests.conftest import BASE_URL, LOCAL_OWNER, NOW_MS, TOKEN, Clock, sync
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.store import chats

NOTES = {
    "Garden/A/Tomatoes.md": "# Tomato care\n\nPrune tomato plants: pinch out side shoots.\n",
    "Garden/B/Tomatoes.md": "# Tomato care\n\nPrune tomato plants weekly in summer.\n",
    "Kitchen/Bread.md": "# Bread\n\nBake the sourdough at 250 C with steam.\n",
}


def write_vault(root: Path) -> list[NoteUpsert]:
    upserts = []
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        parsed = parse_note(path, text.encode(), NOW_MS - 86_400_000)
        assert isinstance(parsed, NoteUpsert)
        upserts.append(parsed)
    return upserts


async def judge_over_http(db_path: Path, upserts: list[NoteUpsert]) -> None:
    db = SqliteDatabase(db_path)
    await migrate(db)
    runtime = Runtime(db=db, settings=Settings(sync_tokens=(TOKEN,), **LOCAL_OWNER),
                      clock=Clock())
    app = WithRuntime(create_app(), runtime)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as client:
        await sync(client, *upserts)

        async def ask_and_judge(question: str, verdicts: dict[str, str]) -> None:
            answer = (await client.post("/api/chat", json={"content": question})).json()
            message = answer["assistant_message"]
            for source in message["sources"]:
                if source["id"] in verdicts:
                    response = await client.post("/api/feedback", json={
                        "message_id": message["id"], "n": source["n"],
                        "judgment": verdicts[source["id"]]})
                    assert response.status_code == 200, response.text

        await ask_and_judge("how do I prune the tomato plants?",
                            {"Garden/B/Tomatoes.md": "relevant",
                             "Garden/A/Tomatoes.md": "irrelevant"})
        await ask_and_judge("at what temperature do I bake sourdough?",
                            {"Kitchen/Bread.md": "irrelevant"})
        # An answer that cited a past message (stored as the chat turn stores one).
        parked = await chats.append_message(
            db, "parking", "user", "I parked the car on level 3 of the Harbourside garage",
            NOW_MS, new_conversation=True)
        await chats.append_message(db, "later", "user", "where did I park the car?",
                                   NOW_MS + 5, new_conversation=True)
        cited = Source(n=1, kind="message", id=parked.id, label="parking",
                       snippet="level 3", href=f"/?msg={parked.id}")
        answer = await chats.append_message(db, "later", "assistant", "On level 3 [1].",
                                            NOW_MS + 6, sources=[cited])
        response = await client.post("/api/feedback", json={
            "message_id": answer.id, "n": 1, "judgment": "relevant"})
        assert response.status_code == 200, response.text
    db.close()


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_writes_a_runnable_regression_set(tmp_path: Path, capsys) -> None:
    vault, out, db_path = tmp_path / "vault", tmp_path / "set", tmp_path / "m.sqlite"
    asyncio.run(judge_over_http(db_path, write_vault(vault)))
    assert main(["feedback", "export", "--db", str(db_path), "--out", str(out),
                 "--vault", str(vault)]) == 0
    assert "wrote 2 case(s)" in capsys.readouterr().out
    case, parking = read_jsonl(out / "queries.jsonl")
    assert case["query"] == "how do I prune the tomato plants?"
    assert case["category"] == "question" and case["id"].startswith("fb-")
    assert case["judgments"] == {"note:Garden/B/Tomatoes.md": 2}
    assert case["irrelevant"] == ["note:Garden/A/Tomatoes.md"]
    [only_bad] = read_jsonl(out / "irrelevant.jsonl")
    assert only_bad["irrelevant"] == ["note:Kitchen/Bread.md"]
    assert only_bad["category"] == "generic" and only_bad["judgments"] == {}
    assert parking["category"] == "conversation"  # its 👍 document is a past message
    # The judged message's conversation, never the turn the judgment was made on.
    [judged] = parking["judgments"]
    messages = read_jsonl(out / "corpus" / "conversations.jsonl")
    assert [f"msg:{m['message_id']}" for m in messages] == [judged]
    assert [m["content"] for m in messages] == [
        "I parked the car on level 3 of the Harbourside garage"]  # never the judged turn
    assert (out / "corpus" / "notes").resolve() == vault.resolve()
    result = run_relevance(out, mode="lexical")
    assert result["system"]["recall@20"] == 1.0
    # The 👎 documents are scored: each question with one is backed, none counts as a
    # false positive (nobody said the bread question has no answer).
    system = result["system"]
    assert system["n_queries"] == 3 and system["auto_fpr"] is None
    assert system["auto_irrelevant_injected"] is not None
    by_id = {q["id"]: q for q in result["per_query"]}
    assert "irrelevant_injected" in by_id[only_bad["id"]]["figures"]


def test_export_refuses_a_missing_vault(tmp_path: Path, capsys) -> None:
    assert main(["feedback", "export", "--db", str(tmp_path / "m.sqlite"),
                 "--out", str(tmp_path / "set"), "--vault", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err

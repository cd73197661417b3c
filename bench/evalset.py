"""Reading an evaluation set (docs/design.md, "Evaluation sets"), and loading it through the real
path: the hub's parser and POST /vault/sync for notes, the chat store for messages."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hub.client import WorkerClient
from hub.sync import Summary, Syncer
from local.sqlite_db import SqliteDatabase
from local.thread_server import running_server
from shared.time.durations import MS_PER_DAY
from worker.store import chats


@dataclass(frozen=True)
class Query:
    id: str
    query: str
    category: str
    judgments: dict[str, int]
    split: str = "all"  # "tune" or "heldout" in sets that have a held-out split
    canonical: tuple[str, ...] = ()  # docs that should come first (the stable decision)
    conflict_set: tuple[str, ...] = ()  # competing docs that must be shown together
    # Docs the owner judged 👎 for this question (mallory feedback export): never injected.
    irrelevant: tuple[str, ...] = ()


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def read_queries(set_dir: Path, split: str = "all") -> list[Query]:
    """The set's queries, then those of its `irrelevant.jsonl` (👎-only questions of a
    feedback export); `split` keeps only the "tune" or the "heldout" part."""
    lines = read_jsonl(set_dir / "queries.jsonl") + read_jsonl(set_dir / "irrelevant.jsonl")
    queries = [Query(q["id"], q["query"], q.get("category", "uncategorised"),
                     q.get("judgments", {}), q.get("split", "all"),
                     tuple(q.get("canonical", ())), tuple(q.get("conflict_set", ())),
                     tuple(q.get("irrelevant", ())))
               for q in lines]
    return [q for q in queries if split == "all" or q.split == split]


def stage_notes(set_dir: Path, workdir: Path) -> tuple[Path, list[int]]:
    """Copy the notes to a scratch vault and set each file's mtime from the manifest's
    last_commit_at (docs/design.md). Returns the vault and every note timestamp."""
    source = set_dir / "corpus" / "notes"
    vault = workdir / "vault"
    if vault.exists():
        shutil.rmtree(vault)
    if source.is_dir():
        shutil.copytree(source, vault)
    else:
        vault.mkdir(parents=True)
    stamps = []
    for entry in read_jsonl(set_dir / "corpus" / "notes_manifest.jsonl"):
        rel = entry["path"].removeprefix("notes/")
        path = vault / rel
        if path.is_file() and entry.get("last_commit_at"):
            ms = _ms(entry["last_commit_at"])
            os.utime(path, (ms / 1000, ms / 1000))
            stamps.append(ms)
    return vault, stamps


def sync_notes(vault: Path, url: str, token: str, state_dir: Path) -> Summary:
    client = WorkerClient(url, token)
    try:
        return Syncer(vault, client, "Eval", state_dir).run()
    finally:
        client.close()


async def load_conversations(db: SqliteDatabase, set_dir: Path) -> list[int]:
    stamps, known = [], set()
    for m in read_jsonl(set_dir / "corpus" / "conversations.jsonl"):
        created = _ms(m["created_at"])
        stamps.append(created)
        if m["conversation_id"] not in known:
            await chats.create_conversation(db, m["content"], created, m["conversation_id"])
            known.add(m["conversation_id"])
        await chats.append_message(db, m["conversation_id"], m["role"], m["content"], created,
                                   message_id=m["message_id"])
    return stamps


def load_set(set_dir: Path, workdir: Path, url: str, token: str, db: SqliteDatabase
             ) -> tuple[Summary, int]:
    """Load the set; return the sync summary and the fixed 'now' (one day after the
    latest timestamp), so recency is reproducible."""
    vault, note_stamps = stage_notes(set_dir, workdir)
    summary = sync_notes(vault, url, token, workdir / "hub-state")
    message_stamps = asyncio.run(load_conversations(db, set_dir))
    latest = max([*note_stamps, *message_stamps, 0])
    return summary, latest + MS_PER_DAY


def doc_id(hit_kind: str, hit_id: str) -> str:
    return f"note:{hit_id}" if hit_kind == "note" else f"msg:{hit_id}"


@dataclass(frozen=True)
class LoadedSet:
    db: SqliteDatabase
    now_ms: int  # the set's fixed "now"
    summary: Summary  # the hub's sync summary


@contextmanager
def loaded_set(set_dir: Path) -> Iterator[LoadedSet]:
    """The set loaded into a fresh database behind a real local server, for one run."""
    with tempfile.TemporaryDirectory(prefix="mallory-relevance-") as tmp, \
            running_server(Path(tmp) / "eval.sqlite") as server:
        summary, now_ms = load_set(set_dir, Path(tmp), server.url, server.token, server.db)
        if summary.rejected:
            print(f"note: {len(summary.rejected)} notes rejected by the hub's validation",
                  file=sys.stderr)
        yield LoadedSet(server.db, now_ms, summary)

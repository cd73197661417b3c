"""Rendering Mallory's export (pure): the JSON document shared/archive/mallory.py reads
back, and one Markdown file per conversation, for reading anywhere."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from shared.archive.mallory import FORMAT, VERSION

SPEAKERS = {"user": "You", "assistant": "Mallory"}
# Where a withdrawn answer stood (README, "Vaults": withdrawal redacted its text).
WITHDRAWN_TEXT = "*(Withdrawn: it was given with a note or message that is gone since.)*"
_UNSAFE_NAME = re.compile(r"[^\w\- ]+")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace(
        "+00:00", "Z")


def document(conversations: Sequence[Mapping[str, Any]], messages: Iterable[Any],
             feedback: Sequence[Mapping[str, Any]], now_ms: int,
             saved_memories: Iterable[Any] = (),
             quotes: Iterable[Mapping[str, Any]] = (),
             forgotten: Iterable[str] = ()) -> dict[str, Any]:
    by_conversation: dict[str, list[dict[str, Any]]] = {}
    for m in messages:
        by_conversation.setdefault(m.conversation_id, []).append({
            "id": m.id, "role": m.role, "content": m.content, "created_at": m.created_at,
            "sources": [s.model_dump() for s in m.sources], "judgments": dict(m.judgments),
            "withdrawn": m.withdrawn})
    return {
        "format": FORMAT, "version": VERSION, "exported_at": now_ms,
        "conversations": [{"id": c["id"], "title": c["title"],
                           "created_at": int(c["created_at"]),
                           "updated_at": int(c["updated_at"]),
                           "incognito": bool(c.get("incognito")),
                           "messages": by_conversation.get(str(c["id"]), [])}
                          for c in conversations],
        "feedback": [{"answer_id": f["answer_id"], "n": int(f["n"]),
                      "judgment": f["judgment"], "created_at": int(f["created_at"]),
                      "query_hash": f["query_hash"],
                      "document": ({"kind": "note", "vault": f["vault"], "path": f["note_path"]}
                                   if f["note_path"] is not None
                                   else {"kind": "message", "id": f["message_id"]})}
                     for f in feedback],
        "saved_memories": [{"id": m.id, "fact": m.fact,
                            "source_message_id": m.source_message_id,
                            "created_at": m.created_at} for m in saved_memories],
        "quotes": [{"answer_id": q["answer_id"], "quoted_id": q["quoted_id"]} for q in quotes],
        "forgotten": sorted(forgotten),
    }


def markdown(conversation: Mapping[str, Any]) -> str:
    lines = [f"# {conversation['title']}", "",
             f"Started {_iso(conversation['created_at'])} · "
             f"last message {_iso(conversation['updated_at'])} · id `{conversation['id']}`", ""]
    for m in conversation["messages"]:
        text = WITHDRAWN_TEXT if m.get("withdrawn") else m["content"].rstrip()
        lines += [f"## {SPEAKERS.get(m['role'], m['role'])} · {_iso(m['created_at'])}", "",
                  text, ""]
        for s in m["sources"]:
            lines.append(f"- [{s['n']}] {s['label']}: {s['href']}")
        if m["sources"]:
            lines.append("")
    return "\n".join(lines)


def file_name(conversation: Mapping[str, Any], taken: set[str]) -> str:
    day = _iso(conversation["created_at"])[:10]
    title = _UNSAFE_NAME.sub("", str(conversation["title"]))[:60].strip() or "conversation"
    name, n = f"{day} {title}.md", 2
    while name in taken:
        name, n = f"{day} {title} ({n}).md", n + 1
    taken.add(name)
    return name

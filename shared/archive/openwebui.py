"""Open WebUI's chat export (Settings → Chats → Export chats: `chat-export-*.json`).

A list of `{id, title, chat, created_at, updated_at}` (Unix seconds). `chat.history`
is a tree like ChatGPT's: `messages` by id, each with `parentId`, `role`, `content` and
`timestamp`, and `currentId` the message the owner last saw; its branch is the one kept.
Older exports have only the flat `chat.messages` list, which is read in order.
"""

from __future__ import annotations

from typing import Any

from shared.archive.records import (
    BadItem,
    ImportedConversation,
    ImportedMessage,
    Parsed,
    Problem,
    build_conversation,
    cut,
    ms_from_seconds,
    parse_each,
    stable_id,
    stamp_or_last,
    text_of,
)

SOURCE = "openwebui"


def _branch(history: dict[str, Any]) -> list[dict[str, Any]]:
    messages = history.get("messages")
    at = history.get("currentId")
    if not isinstance(messages, dict) or not isinstance(at, str) or at not in messages:
        return []
    path, seen = [], set()
    while isinstance(at, str) and at in messages and at not in seen:
        seen.add(at)
        node = messages[at]
        if not isinstance(node, dict):
            raise BadItem(f"history message {at!r} is not an object")
        path.append({"id": at, **node})
        at = node.get("parentId")
    return path[::-1]


def one(index: int, item: object, problems: list[Problem]) -> ImportedConversation:
    if not isinstance(item, dict):
        raise BadItem("is not an object")
    chat = item.get("chat")
    source_id = item.get("id") or (chat.get("id") if isinstance(chat, dict) else None)
    if not isinstance(source_id, str) or not source_id:
        raise BadItem("has no id")
    if not isinstance(chat, dict):
        raise BadItem(f"{source_id}: has no chat object")
    history = chat.get("history")
    turns = _branch(history) if isinstance(history, dict) else []
    if not turns:
        flat = chat.get("messages")
        turns = [t for t in flat if isinstance(t, dict)] if isinstance(flat, list) else []
    created = ms_from_seconds(item.get("created_at"))
    messages: list[ImportedMessage] = []
    for position, turn in enumerate(turns):
        role = turn.get("role")
        text = text_of(turn.get("content"))
        files = [f.get("name") for f in turn.get("files") or [] if isinstance(f, dict)]
        text = "\n\n".join([text, *(f"[attachment: {n}]" for n in files
                                    if isinstance(n, str) and n)]).strip()
        if role not in ("user", "assistant") or not text:
            continue
        turn_id = str(turn.get("id") or position)
        where = f"conversation {index} ({source_id}) message {turn_id}"
        stamp = stamp_or_last(ms_from_seconds(turn.get("timestamp")), messages, created)
        messages.append(ImportedMessage(id=stable_id(SOURCE, source_id, turn_id), role=role,
                                        content=cut(text, where, problems), created_at=stamp))
    title = item.get("title") or chat.get("title")
    return build_conversation(SOURCE, source_id, title, created,
                              ms_from_seconds(item.get("updated_at")), messages)


def parse(data: object) -> Parsed:
    return parse_each(data, "Open WebUI", one)

"""Claude's `conversations.json` (Settings → Privacy → Export data).

A list of conversations `{uuid, name, created_at, updated_at, chat_messages}`; each
message has `uuid`, `sender` ("human" or "assistant"), `created_at` (ISO 8601), its text
in `text` or as `content` blocks of type "text", and `attachments` / `files` by name.
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
    ms_from_iso,
    parse_each,
    stable_id,
    stamp_or_last,
    text_of,
)

SOURCE = "claude"
ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def _text(message: dict[str, Any]) -> str:
    text = text_of(message.get("text"))
    if not text:
        blocks = message.get("content") or []
        text = "\n\n".join(text_of(b.get("text")) for b in blocks
                           if isinstance(b, dict) and b.get("type") == "text"
                           and text_of(b.get("text")))
    names = [a.get("file_name") for key in ("attachments", "files")
             for a in message.get(key) or [] if isinstance(a, dict)]
    lines = [f"[attachment: {n}]" for n in dict.fromkeys(names) if isinstance(n, str) and n]
    return "\n\n".join(p for p in [text, *lines] if p)


def one(index: int, item: object, problems: list[Problem]) -> ImportedConversation:
    if not isinstance(item, dict):
        raise BadItem("is not an object")
    source_id = item.get("uuid")
    if not isinstance(source_id, str) or not source_id:
        raise BadItem("has no uuid")
    turns = item.get("chat_messages")
    if not isinstance(turns, list):
        raise BadItem(f"{source_id}: has no chat_messages list")
    created = ms_from_iso(item.get("created_at"))
    messages: list[ImportedMessage] = []
    for position, turn in enumerate(turns):
        where = f"conversation {index} ({source_id}) message {position}"
        if not isinstance(turn, dict):
            problems.append(Problem(where, "is not an object: skipped"))
            continue
        role = ROLES.get(str(turn.get("sender")))
        text = _text(turn)
        if role is None or not text:
            continue
        stamp = stamp_or_last(ms_from_iso(turn.get("created_at")), messages, created)
        turn_id = str(turn.get("uuid") or position)
        messages.append(ImportedMessage(id=stable_id(SOURCE, source_id, turn_id),
                                        role=role,  # type: ignore[arg-type]
                                        content=cut(text, where, problems), created_at=stamp))
    return build_conversation(SOURCE, source_id, item.get("name"), created,
                              ms_from_iso(item.get("updated_at")), messages)


def parse(data: object) -> Parsed:
    return parse_each(data, "Claude", one)

"""Mallory's own export (`GET /api/export`, `mallory export`), read back by import.

    {"format": "mallory-export", "version": 1, "exported_at": ms,
     "conversations": [{id, title, created_at, updated_at, incognito,
                        messages: [{id, role, content, created_at, sources, judgments}]}],
     "feedback": [...], "saved_memories": [...]}

Ids are Mallory's own, so an export imported into an empty Mallory recreates the same
conversations and messages under the same ids (and `/?msg=` links keep working).
"""

from __future__ import annotations

from pydantic import ValidationError

from shared.api.wire import Source
from shared.archive.records import (
    BadItem,
    ImportedConversation,
    ImportedMessage,
    Parsed,
    Problem,
    cut,
    parse_each,
    title_of,
)

FORMAT = "mallory-export"
VERSION = 1


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadItem(f"{what} must be a whole number of milliseconds")
    return value


def one(index: int, item: object, problems: list[Problem]) -> ImportedConversation:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
        raise BadItem("is not a conversation object with an id")
    conv_id = item["id"]
    messages = []
    for position, m in enumerate(item.get("messages") or []):
        where = f"conversation {index} ({conv_id}) message {position}"
        if (not isinstance(m, dict) or not isinstance(m.get("id"), str)
                or m.get("role") not in ("user", "assistant")
                or not isinstance(m.get("content"), str) or not m["content"].strip()):
            problems.append(Problem(where, "needs an id, a role user|assistant and text: "
                                           "skipped"))
            continue
        try:
            sources = tuple(Source.model_validate(s) for s in m.get("sources") or [])
        except ValidationError:
            problems.append(Problem(where, "its sources are not Mallory sources: kept "
                                           "without them"))
            sources = ()
        messages.append(ImportedMessage(id=m["id"], role=m["role"],
                                        content=cut(m["content"], where, problems),
                                        created_at=_int(m.get("created_at"), where),
                                        sources=sources))
    ordered = tuple(messages)
    incognito = item.get("incognito", False)
    if not isinstance(incognito, bool):
        raise BadItem("incognito must be true or false")
    return ImportedConversation(id=conv_id, title=title_of(item.get("title"), ordered),
                                created_at=_int(item.get("created_at"), f"conversation {index}"),
                                updated_at=_int(item.get("updated_at"), f"conversation {index}"),
                                messages=ordered, incognito=incognito)


def parse(data: object) -> Parsed:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"a Mallory export is a JSON object with \"format\": \"{FORMAT}\"")
    if data.get("version") != VERSION:
        raise ValueError(f"this Mallory reads export version {VERSION}, the file is "
                         f"version {data.get('version')!r}")
    return parse_each(data.get("conversations"), "Mallory", one)

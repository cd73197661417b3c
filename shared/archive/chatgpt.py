"""ChatGPT's `conversations.json` (Settings → Data controls → Export data).

Each conversation is a tree: `mapping` holds nodes `{id, message, parent, children}`,
and an edited prompt or a regenerated answer starts another branch. `current_node` is the
leaf the owner last saw; following its parents back to the root gives the branch shown in
the app, which is the one kept. Only the owner's and the assistant's visible text turns
are kept: system and tool messages, hidden context and tool calls are not conversation.
Images and files keep a line naming them.
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
)

SOURCE = "chatgpt"
TEXT_TYPES = frozenset({"text", "multimodal_text"})


def _branch(mapping: dict[str, Any], leaf: str) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = []
    seen: set[str] = set()
    at: str | None = leaf
    while at is not None and at in mapping and at not in seen:
        seen.add(at)
        node = mapping[at]
        if not isinstance(node, dict):
            raise BadItem(f"mapping node {at!r} is not an object")
        nodes.append(node)
        at = node.get("parent")
    return nodes[::-1]


def _newest_leaf(mapping: dict[str, Any]) -> str:
    leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
    if not leaves:
        raise BadItem("mapping has no leaf node")

    def created(key: str) -> float:
        message = mapping[key].get("message") or {}
        stamp = message.get("create_time") if isinstance(message, dict) else None
        return float(stamp) if isinstance(stamp, int | float) else 0.0

    return max(leaves, key=created)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in TEXT_TYPES:
        return ""
    pieces = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            if part.strip():
                pieces.append(part.strip())
        elif isinstance(part, dict):
            kind = part.get("content_type", "")
            if "image" in str(kind) or part.get("asset_pointer"):
                pieces.append("[image]")
    metadata = message.get("metadata")
    attachments = metadata.get("attachments") if isinstance(metadata, dict) else None
    for attachment in attachments or []:
        if isinstance(attachment, dict) and attachment.get("name"):
            pieces.append(f"[attachment: {attachment['name']}]")
    return "\n\n".join(pieces)


def _visible(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    return not (isinstance(metadata, dict)
                and metadata.get("is_visually_hidden_from_conversation"))


def one(index: int, item: object, problems: list[Problem]) -> ImportedConversation:
    if not isinstance(item, dict):
        raise BadItem("is not an object")
    source_id = item.get("conversation_id") or item.get("id")
    mapping = item.get("mapping")
    if not isinstance(source_id, str) or not source_id:
        raise BadItem("has no conversation_id")
    if not isinstance(mapping, dict) or not mapping:
        raise BadItem(f"{source_id}: has no mapping (the message tree)")
    leaf = item.get("current_node")
    if not isinstance(leaf, str) or leaf not in mapping:
        leaf = _newest_leaf(mapping)
    created = ms_from_seconds(item.get("create_time"))
    messages: list[ImportedMessage] = []
    for node in _branch(mapping, leaf):
        message = node.get("message")
        if not isinstance(message, dict) or not _visible(message):
            continue
        role = (message.get("author") or {}).get("role")
        if role not in ("user", "assistant"):
            continue
        text = _text(message)
        if not text:
            continue
        node_id = str(message.get("id") or node.get("id") or len(messages))
        item_name = f"conversation {index} ({source_id}) message {node_id}"
        stamp = stamp_or_last(ms_from_seconds(message.get("create_time")), messages, created)
        messages.append(ImportedMessage(id=stable_id(SOURCE, source_id, node_id), role=role,
                                        content=cut(text, item_name, problems),
                                        created_at=stamp))
    return build_conversation(SOURCE, source_id, item.get("title"), created,
                                ms_from_seconds(item.get("update_time")), messages)


def parse(data: object) -> Parsed:
    return parse_each(data, "ChatGPT", one)

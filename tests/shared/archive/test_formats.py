"""The export parsers over hand-written files in each documented shape
(tests/fixtures/exports/): branches, attachments, empty and hidden turns, bad items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.archive import chatgpt, claude, mallory, openwebui
from shared.archive.records import MAX_MESSAGE_CHARS, ms_from_seconds

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


def load(name: str) -> object:
    return json.loads((EXPORTS / name).read_text(encoding="utf-8"))


def test_chatgpt_keeps_the_branch_the_owner_saw() -> None:
    parsed = chatgpt.parse(load("chatgpt_conversations.json"))
    [conv] = parsed.conversations
    assert conv.title == "Bike tyre pressure"
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    text = "\n".join(m.content for m in conv.messages)
    assert "marzipan" not in text.lower()  # the edited-away branch
    assert "45 psi" in conv.messages[-1].content
    # the image part and the attachment are named; the tool output and the hidden system
    # message are not conversation; the empty assistant turn is skipped
    assert conv.messages[2].content.startswith("[image]")
    assert "[attachment: sidewall.jpg]" in conv.messages[2].content
    assert all(m.content for m in conv.messages)
    assert conv.created_at == 1767225600500
    assert conv.messages[0].created_at == 1767225601000


def test_chatgpt_bad_items_are_named_and_the_rest_imports() -> None:
    problems = chatgpt.parse(load("chatgpt_conversations.json")).problems
    assert [p.item for p in problems] == ["conversation 1", "conversation 2 ('Only empty turns')"]
    assert "mapping" in problems[0].message
    assert "no message with text" in problems[1].message


def test_chatgpt_without_a_current_node_takes_the_newest_leaf() -> None:
    data = load("chatgpt_conversations.json")
    del data[0]["current_node"]  # type: ignore[index]
    [conv] = chatgpt.parse(data).conversations
    assert "45 psi" in conv.messages[-1].content


def test_ids_are_content_addressed() -> None:
    first = chatgpt.parse(load("chatgpt_conversations.json")).conversations[0]
    again = chatgpt.parse(load("chatgpt_conversations.json")).conversations[0]
    assert first.id == again.id and [m.id for m in first.messages] == [m.id for m in again.messages]
    other = claude.parse(load("claude_conversations.json")).conversations[0]
    assert len({first.id, other.id, *(m.id for m in first.messages)}) == 2 + len(first.messages)


def test_claude_reads_text_blocks_and_attachments() -> None:
    parsed = claude.parse(load("claude_conversations.json"))
    [conv] = parsed.conversations
    assert conv.title == "Sourdough starter schedule"
    assert [m.role for m in conv.messages] == ["user", "assistant"]  # the empty turn skipped
    assert "[attachment: starter-log.txt]" in conv.messages[0].content
    assert "once a week" in conv.messages[1].content  # from content blocks, text was ""
    assert conv.messages[0].created_at == 1767427205000
    assert [p.item for p in parsed.problems] == ["conversation 1"]


def test_openwebui_follows_current_id_and_reads_flat_lists() -> None:
    parsed = openwebui.parse(load("openwebui_export.json"))
    tomatoes, basil = parsed.conversations
    assert [m.content for m in tomatoes.messages][1].startswith("Try a determinate")
    assert "cucumbers" not in " ".join(m.content for m in tomatoes.messages)
    assert basil.title == "Flat list only (older export)"
    assert [m.role for m in basil.messages] == ["user", "assistant"]
    assert basil.messages[1].created_at == 1767657610000
    assert [p.item for p in parsed.problems] == ["conversation 2"]


@pytest.mark.parametrize("module", [chatgpt, claude, openwebui])
@pytest.mark.parametrize("data", [{}, "conversations", 3, None])
def test_a_file_that_is_not_a_list_is_one_clear_error(module: object, data: object) -> None:
    with pytest.raises(ValueError, match="JSON list of conversations"):
        module.parse(data)  # type: ignore[attr-defined]


def test_a_very_long_turn_is_kept_cut_and_reported() -> None:
    data = load("claude_conversations.json")
    data[0]["chat_messages"][0]["text"] = "word " * (MAX_MESSAGE_CHARS // 4)  # type: ignore[index]
    parsed = claude.parse(data)
    assert len(parsed.conversations[0].messages[0].content) == MAX_MESSAGE_CHARS
    assert any("kept cut" in p.message for p in parsed.problems)


def test_mallory_refuses_another_format_or_version() -> None:
    with pytest.raises(ValueError, match="mallory-export"):
        mallory.parse([])
    with pytest.raises(ValueError, match="version"):
        mallory.parse({"format": "mallory-export", "version": 99, "conversations": []})


@pytest.mark.parametrize(("value", "ms"), [(1767225600, 1767225600000),
                                           (1767225600.25, 1767225600250),
                                           (1767225600123, 1767225600123),
                                           (True, None), ("1", None), (-5, None),
                                           (float("nan"), None)])
def test_seconds_and_milliseconds(value: object, ms: int | None) -> None:
    assert ms_from_seconds(value) == ms


def test_mallory_reads_quotes_and_names_a_bad_one() -> None:
    parsed = mallory.parse({"format": "mallory-export", "version": 1, "conversations": [],
                            "quotes": [{"answer_id": "a1", "quoted_id": "m1"},
                                       {"answer_id": "a2"}, "a3"]})
    assert [(q.answer_id, q.quoted_id) for q in parsed.quotes] == [("a1", "m1")]
    assert [(p.item, p.message) for p in parsed.problems] == [
        ("quote 1", "needs quoted_id as text: skipped"),
        ("quote 2", "is not a quote object: skipped")]
    # An export made before quotes were exported has none.
    assert mallory.parse({"format": "mallory-export", "version": 1,
                          "conversations": []}).quotes == []

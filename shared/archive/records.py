"""What an import reads from another assistant's export (pure): conversations with the
owner's and the assistant's turns, the problems met on the way, and content-addressed
ids, so that importing the same file twice adds nothing (README, "Import and export")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from shared.api.wire import Source

Role = Literal["user", "assistant"]
# ids are UUIDs derived from where a turn came from (uuid5 in this namespace): the same
# turn of the same export always gets the same id, and no two sources share one.
NAMESPACE = uuid.UUID("6d616c6c-6f72-5972-8563-616c6c000001")
# D1 holds a row of up to 2 MB; a turn longer than this is kept cut, and the cut reported.
MAX_MESSAGE_CHARS = 100_000
MAX_TITLE_CHARS = 200


@dataclass(frozen=True)
class ImportedMessage:
    id: str
    role: Role
    content: str
    created_at: int  # ms
    sources: tuple[Source, ...] = ()  # a Mallory export's own answers keep their footer
    # A Mallory export's withdrawn answer (README, "Vaults"): stored as the placeholder it
    # was there, its text and Sources gone.
    withdrawn: bool = False


@dataclass(frozen=True)
class ImportedConversation:
    id: str
    title: str
    created_at: int  # ms
    updated_at: int  # ms
    messages: tuple[ImportedMessage, ...]
    # A Mallory export's incognito conversation stays one: re-imported, never memory.
    incognito: bool = False


@dataclass(frozen=True)
class ImportedJudgment:
    """The owner's 👍/👎 on source `n` of answer `answer_id` (a Mallory export's
    `feedback`): restored when the answer and the judged document are stored."""

    answer_id: str
    n: int
    judgment: Literal["relevant", "irrelevant"]
    query_hash: str
    created_at: int  # ms
    note: tuple[str, str] | None  # (vault name, path) of a judged note
    message_id: str | None  # a judged message


@dataclass(frozen=True)
class ImportedQuote:
    """A past message an answer of a Mallory export was shown (worker/store/quotes.py):
    what tells an answer that only repeats it (an echo, shared/rank/echoes.py)."""

    answer_id: str
    quoted_id: str


@dataclass(frozen=True)
class ImportedMemory:
    """A saved memory of a Mallory export: its message is one of the export's messages."""

    id: str
    source_message_id: str | None
    created_at: int  # ms


@dataclass(frozen=True)
class Problem:
    item: str  # which conversation or message, as the owner can find it in the file
    message: str


@dataclass
class Parsed:
    conversations: list[ImportedConversation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Only a Mallory export holds these.
    feedback: list[ImportedJudgment] = field(default_factory=list)
    saved_memories: list[ImportedMemory] = field(default_factory=list)
    quotes: list[ImportedQuote] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)  # ids of messages forgotten there

    @property
    def message_count(self) -> int:
        return sum(len(c.messages) for c in self.conversations)


class BadItem(ValueError):
    """One conversation of an export cannot be read; the rest still imports."""


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "\x00".join(parts)))


def ms_from_seconds(value: object) -> int | None:
    """Unix seconds (int or float; milliseconds when the number is that large) as ms."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value < 0:  # NaN
        return None
    seconds = value / 1000 if value > 1e11 else value
    return round(seconds * 1000)


def ms_from_iso(value: object) -> int | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return int(moment.timestamp() * 1000)


def stamp_or_last(stamp: int | None, messages: list[ImportedMessage],
                  created: int | None) -> int:
    """A turn's own time, else the turn before it's, else the conversation's start: a
    turn without a time keeps its place in the conversation."""
    if stamp is not None:
        return stamp
    return messages[-1].created_at if messages else (created or 0)


def text_of(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def cut(content: str, item: str, problems: list[Problem]) -> str:
    if len(content) <= MAX_MESSAGE_CHARS:
        return content
    problems.append(Problem(item, f"longer than {MAX_MESSAGE_CHARS:,} characters: kept cut "
                                  "at that length"))
    return content[:MAX_MESSAGE_CHARS]


def title_of(value: object, messages: tuple[ImportedMessage, ...]) -> str:
    title = " ".join(text_of(value).split())
    if not title and messages:
        title = " ".join(messages[0].content.split())
    return title[:MAX_TITLE_CHARS] or "Imported conversation"


def build_conversation(source: str, source_id: str, title: object, created: int | None,
                 updated: int | None, messages: list[ImportedMessage]) -> ImportedConversation:
    ordered = tuple(messages)
    first = created if created is not None else (ordered[0].created_at if ordered else 0)
    last = max([m.created_at for m in ordered] + [updated or 0, first])
    return ImportedConversation(id=stable_id(source, "conversation", source_id),
                                title=title_of(title, ordered), created_at=first,
                                updated_at=last, messages=ordered)


def parse_each(items: object, what: str, one: object) -> Parsed:
    """Parse every conversation of an export's top-level list with `one(index, item,
    problems)`; a conversation that raises BadItem is reported and skipped."""
    if not isinstance(items, list):
        raise ValueError(f"a {what} export is a JSON list of conversations "
                         f"(conversations.json), got {type(items).__name__}")
    parsed = Parsed()
    for index, item in enumerate(items):
        try:
            conv = one(index, item, parsed.problems)  # type: ignore[operator]
        except BadItem as exc:
            parsed.problems.append(Problem(f"conversation {index}", str(exc)))
            continue
        if conv.messages:
            parsed.conversations.append(conv)
        else:
            parsed.problems.append(Problem(f"conversation {index} ({conv.title!r})",
                                           "holds no message with text: skipped"))
    return parsed

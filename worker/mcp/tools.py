"""The MCP tools: each a record of its name, description, input model and handler. The
handlers call the same recall and store functions as the owner's HTTP routes, and return
the same JSON those routes render (worker/views.py)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shared.api.errors import BadRequest, NotFound
from shared.api.limits import MAX_MEMORY_CHARS
from shared.api.owner_requests import checked_fact
from shared.rank.policy import EXPLICIT, EXPLICIT_MAX_LIMIT
from shared.time.zones import pick_zone
from worker import views
from worker.config import Runtime
from worker.indexing.scheduling import forget_vectors, schedule_indexing
from worker.inspect.trace import recall_trace, search_trace
from worker.recall.automatic import PAUSED, gated
from worker.recall.explicit import search
from worker.store import chats, forget, memories, pause

NOTE_SQL = """
SELECT n.path, n.title, n.body, n.aliases, n.tags, n.mtime, n.note_type, n.status,
       v.name AS vault
FROM vault_notes AS n JOIN vaults AS v ON v.vid = n.vid
WHERE n.path = ?1 AND (?2 IS NULL OR v.name = ?2)
ORDER BY v.name LIMIT 2
"""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchInput(_Input):
    query: str = Field(min_length=1, max_length=2_000, description="what to look for")
    limit: int = Field(EXPLICIT.max_hits, ge=1, le=EXPLICIT_MAX_LIMIT)
    source: Literal["all", "notes", "messages"] = "all"


class RecallInput(_Input):
    message: str = Field(min_length=1, max_length=8_000,
                         description="a chat message, as the owner would write it to Mallory")


class NoteInput(_Input):
    path: str = Field(min_length=1, max_length=1_024,
                      description="the note's path in its vault, e.g. Projects/Bike.md")
    vault: str | None = Field(None, description="the vault's name, when two vaults hold it")


class MessageInput(_Input):
    id: str = Field(min_length=1, max_length=200, description="a message id")


class InspectInput(_Input):
    query: str = Field(min_length=1, max_length=8_000, description="a search, or a chat "
                       "message as the owner would write it to Mallory")
    policy: Literal["automatic", "explicit"] = Field(
        "automatic", description="automatic: what recall would inject for a chat message; "
        "explicit: what search_memory lists")


class RememberInput(_Input):
    text: str = Field(min_length=1, max_length=MAX_MEMORY_CHARS,
                      description="the fact to remember, saved as a saved memory")
    _check_text = field_validator("text")(checked_fact)  # as POST /api/memories checks it


class ForgetInput(_Input):
    message_id: str | None = Field(None, max_length=200)
    conversation_id: str | None = Field(None, max_length=200)


Handler = Callable[[Runtime, Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input: type[_Input]
    handler: Handler
    read_only: bool = True

    def listing(self) -> dict[str, Any]:
        schema = self.input.model_json_schema()
        schema.pop("title", None)
        return {"name": self.name, "description": self.description, "inputSchema": schema,
                "annotations": {"readOnlyHint": self.read_only,
                                "destructiveHint": self.name == "forget"}}


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True) if isinstance(value, BaseModel) \
        else value


async def _search(rt: Runtime, args: SearchInput) -> dict[str, Any]:
    now = rt.now_ms()
    result = await search(rt.db, args.query, now, source=args.source, limit=args.limit,
                          semantics=rt.semantics, mode=rt.mode,
                          zone=pick_zone(rt.settings.owner_timezone, None))
    return _plain(views.search_response(result, now))


async def _recall(rt: Runtime, args: RecallInput) -> dict[str, Any]:
    now = rt.now_ms()
    if (await pause.pause_state(rt.db)).paused:
        return {"message": args.message, "mode": rt.mode.value, "fallback": None,
                "skipped": PAUSED, "injected": 0, "hits": []}
    decided = await gated(rt.db, args.message, now, semantics=rt.semantics, mode=rt.mode,
                          zone=pick_zone(rt.settings.owner_timezone, None))
    hits = [views.search_hit(h, None, now).model_dump(mode="json") for h in decided.hits]
    ran = decided.found.ran
    return {"message": args.message, "mode": ran.mode.value, "fallback": ran.fallback,
            "skipped": decided.skipped, "injected": len(hits), "hits": hits}


async def _get_note(rt: Runtime, args: NoteInput) -> dict[str, Any]:
    rows = (await rt.db.prepare(NOTE_SQL).bind(args.path, args.vault).all()).results
    if not rows:
        raise NotFound(f"no note at {args.path!r}" + (f" in vault {args.vault!r}"
                                                      if args.vault else ""))
    if len(rows) > 1:
        raise NotFound(f"{args.path!r} is in vaults {rows[0]['vault']!r} and "
                       f"{rows[1]['vault']!r}: name the vault")
    row = rows[0]
    return {"vault": row["vault"], "path": row["path"], "title": row["title"],
            "aliases": [a for a in str(row["aliases"]).split("\n") if a],
            "tags": [t for t in str(row["tags"]).split() if t],
            "type": row["note_type"], "status": row["status"],
            "modified": views.iso(int(row["mtime"])), "body": row["body"]}


async def _get_message(rt: Runtime, args: MessageInput) -> dict[str, Any]:
    message, newer = await chats.get_message(rt.db, args.id)
    return {"message": _plain(views.message_out(message)), "newer_count": newer}


async def _inspect(rt: Runtime, args: InspectInput) -> dict[str, Any]:
    now, zone = rt.now_ms(), pick_zone(rt.settings.owner_timezone, None)
    if args.policy == "explicit":
        trace = await search_trace(rt.db, args.query, now, source="all",
                                   limit=EXPLICIT.max_hits, vault=None,
                                   semantics=rt.semantics, mode=rt.mode, zone=zone)
    else:
        trace = await recall_trace(rt.db, args.query, now, exclude_ids=(),
                                   conversation_id=None, text_is_stored=False,
                                   semantics=rt.semantics, mode=rt.mode, zone=zone)
    return _plain(views.inspect_response(trace, now))


async def _remember(rt: Runtime, args: RememberInput) -> dict[str, Any]:
    """A saved memory (worker/store/memories.py): the caller is the owner's own tool,
    authenticated as the owner, so the call is the approval."""
    memory = await memories.save(rt.db, args.text, None, rt.now_ms())
    schedule_indexing(rt, ("messages",))
    message, _ = await chats.get_message(rt.db, memory.id)
    return {"remembered": _plain(views.message_out(message)),
            "memory": _plain(views.memory_out(memory))}


async def _forget(rt: Runtime, args: ForgetInput) -> dict[str, Any]:
    if (args.message_id is None) == (args.conversation_id is None):
        raise BadRequest("name exactly one of message_id and conversation_id")
    now = rt.now_ms()
    if args.message_id is not None:
        item, forgotten = args.message_id, await forget.delete_message(rt.db, args.message_id,
                                                                       now)
    else:
        assert args.conversation_id is not None
        item = args.conversation_id
        forgotten = await forget.delete_conversation(rt.db, args.conversation_id, now)
    await forget_vectors(rt, forgotten.vector_ids)
    return _plain(views.forgotten(item, forgotten))


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("search_memory", "Search the owner's memory (Obsidian notes and past conversations) "
         "as the owner's own search box does: ranked hits with snippets and links.",
         SearchInput, _search),
    Tool("recall", "What Mallory would recall into a conversation for this message: only "
         "memory reliable enough to inject, often nothing.", RecallInput, _recall),
    Tool("get_note", "One note of the owner's vault, whole, by its path.", NoteInput,
         _get_note),
    Tool("get_message", "One message of the owner's past conversations, by id.",
         MessageInput, _get_message),
    Tool("inspect", "Why these memories: every candidate recall or search weighed for this "
         "text, with its lexical and vector scores and the gate's decision and reason.",
         InspectInput, _inspect),
    Tool("remember", "Keep a fact the owner asked to remember: it is recalled in later "
         "conversations like anything the owner wrote.", RememberInput, _remember,
         read_only=False),
    Tool("forget", "Forget a message or a whole conversation: gone from history, search "
         "and recall.", ForgetInput, _forget, read_only=False),
)}


def as_text(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False)

"""The JSON the Worker sends, rendered in one place from internal records: messages,
conversations, the manifest, /status, search hits and footer sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from re import Pattern
from typing import Any

from shared.candidate import Candidate
from shared.matching import highlighter
from shared.protocol import STALE_AFTER_INTERVALS
from shared.recall_block import Injected
from shared.snippets import SEARCH_SNIPPET_CHARS, make_snippet
from shared.units import MS_PER_DAY, MS_PER_SECOND
from shared.wire import SearchHit, Source
from worker.config import Settings
from worker.recall.explicit import ExplicitResult
from worker.store.chats import Forgotten, Message

# A hit at least this recent (its recency multiplier, shared.ranking) says so in reasons.
RECENT_BOOST = 1.05


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def message_json(message: Message) -> dict[str, Any]:
    return {"id": message.id, "conversation_id": message.conversation_id,
            "seq": message.seq, "role": message.role, "content": message.content,
            "sources": [s.model_dump() for s in message.sources],
            "created_at": iso(message.created_at)}


def conversation_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "created_at": iso(row["created_at"]),
            "updated_at": iso(row["updated_at"]), "message_count": row["message_count"]}


def renamed_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "created_at": iso(row["created_at"]),
            "updated_at": iso(row["updated_at"])}


def forgotten_json(item_id: str, forgotten: Forgotten) -> dict[str, Any]:
    return {"id": item_id, "conversation_id": forgotten.conversation_id,
            "messages_deleted": forgotten.messages,
            "citations_removed": forgotten.citations}


def manifest_json(rows: Sequence[Mapping[str, Any]], limit: int) -> dict[str, Any]:
    return {"notes": [{"path": r["path"], "content_hash": r["content_hash"],
                       "mtime": r["mtime"]} for r in rows],
            "next_after": rows[-1]["path"] if len(rows) == limit else None}


def status_json(row: Mapping[str, Any], settings: Settings, now_ms: int) -> dict[str, Any]:
    last = row.get("last_sync_at")
    staleness = (now_ms - int(last)) // MS_PER_SECOND if last is not None else None
    interval = settings.sync_interval_s
    return {
        "schema_version": row.get("schema_version"),
        "migrations_applied": row.get("migrations"),
        "corpora": {"notes": row.get("notes") or 0, "messages": row.get("messages") or 0},
        "conversations": row.get("conversations") or 0,
        "last_sync_at": iso(int(last)) if last is not None else None,
        "staleness_seconds": staleness,
        "sync_interval_seconds": interval,
        "stale": staleness is None or staleness > STALE_AFTER_INTERVALS * interval,
        "model_provider": settings.model_provider,
    }


def _reasons(cand: Candidate, marks: Pattern[str] | None, highlights: int,
             now_ms: int) -> list[str]:
    reasons = []
    for name, text in cand.fields:
        matched = sorted({w.lower() for w in marks.findall(text)}) if marks and text else []
        if matched:
            reasons.append(f"{name} matches {', '.join(matched)}")
    if highlights:
        reasons.append(f"text matches {highlights} time{'s' if highlights > 1 else ''}")
    if cand.fuzzy:
        reasons.append("matched a spelling correction")
    if cand.boost >= RECENT_BOOST:
        reasons.append(f"recent ({max(now_ms - cand.timestamp_ms, 0) // MS_PER_DAY} days old)")
    return reasons


def search_hit(cand: Candidate, marks: Pattern[str] | None, now_ms: int) -> SearchHit:
    snippet, spans = make_snippet(cand.text, marks, SEARCH_SNIPPET_CHARS)
    return SearchHit(kind=cand.kind, id=cand.id, label=cand.label, snippet=snippet,
                     highlights=spans, href=cand.href, timestamp=iso(cand.timestamp_ms),
                     score=round(cand.score, 6), relevance=round(cand.relevance, 6),
                     reasons=_reasons(cand, marks, len(spans), now_ms), vault=cand.vault,
                     conversation_id=cand.conversation_id)


def search_json(result: ExplicitResult, now_ms: int) -> dict[str, Any]:
    marks = highlighter(result.searched_terms)
    return {"query": result.query.text, "terms": [t.fts for t in result.query.terms],
            "corrections": dict(result.corrections), "mode": result.mode.value,
            "fallback": result.fallback,
            "hits": [search_hit(h, marks, now_ms).model_dump() for h in result.hits]}


def source(injected: Injected) -> Source:
    cand = injected.candidate
    return Source(n=injected.n, kind=cand.kind, id=cand.id, label=cand.label,
                  snippet=injected.excerpt, href=cand.href)

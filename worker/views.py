"""The JSON the Worker sends, rendered in one place from internal records: messages,
conversations, vaults (heartbeat, manifest), /status, search hits and footer sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from re import Pattern
from typing import Any

from shared.api.protocol import STALE_AFTER_INTERVALS
from shared.api.wire import SearchHit, Source
from shared.block.envelope import Injected
from shared.knowledge.labels import standing_label
from shared.rank.candidate import Candidate
from shared.text.matcher import highlighter
from shared.text.snippets import SEARCH_SNIPPET_CHARS, make_snippet
from shared.time.durations import MS_PER_DAY, MS_PER_SECOND
from worker.config import Settings
from worker.recall.explicit import ExplicitResult
from worker.recall.timeframe import TimeScope
from worker.semantic.status import RetrievalStatus
from worker.store.chats import Message
from worker.store.feedback import Recorded
from worker.store.forget import Forgotten
from worker.store.vaults import Contact, Vault

# A hit at least this recent (its recency multiplier, shared.rank.scoring) says so in reasons.
RECENT_BOOST = 1.05


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def message_json(message: Message) -> dict[str, Any]:
    return {"id": message.id, "conversation_id": message.conversation_id,
            "seq": message.seq, "role": message.role, "content": message.content,
            "sources": [s.model_dump() for s in message.sources],
            "withdrawn": message.withdrawn,
            "judgments": message.judgments, "created_at": iso(message.created_at)}


def conversation_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "created_at": iso(row["created_at"]),
            "updated_at": iso(row["updated_at"]), "message_count": row["message_count"]}


def renamed_json(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "title": row["title"], "created_at": iso(row["created_at"]),
            "updated_at": iso(row["updated_at"])}


def forgotten_json(item_id: str, forgotten: Forgotten) -> dict[str, Any]:
    return {"id": item_id, "conversation_id": forgotten.conversation_id,
            "messages_deleted": forgotten.messages,
            "citations_removed": forgotten.citations,
            "answers_withdrawn": forgotten.withdrawn,
            "withdrawn_ids": list(forgotten.withdrawn_ids)}


def _iso_or_none(ms: int | None) -> str | None:
    return iso(ms) if ms is not None else None


def vault_json(vault: Vault) -> dict[str, Any]:
    """A vault's summary as the hub compares it with its state (count and checksum)."""
    return {"id": vault.uuid, "name": vault.name, "seq": vault.seq, "notes": vault.notes,
            "checksum": vault.checksum, "last_sync_at": _iso_or_none(vault.last_sync_at),
            "last_contact_at": _iso_or_none(vault.last_contact_at)}


def contact_json(contact: Contact) -> dict[str, Any]:
    return {"worker_id": contact.worker_id, "adopted": contact.adopted,
            "vault": vault_json(contact.vault)}


def manifest_json(vault: Vault, rows: Sequence[Mapping[str, Any]], limit: int
                  ) -> dict[str, Any]:
    return {"vault": vault_json(vault),
            "notes": [{"path": r["path"], "content_hash": r["content_hash"],
                       "mtime": r["mtime"], "seq": r["seq"]} for r in rows],
            "next_after": rows[-1]["path"] if len(rows) == limit else None}


def _staleness_s(last_contact_ms: int | None, now_ms: int) -> int | None:
    return (now_ms - last_contact_ms) // MS_PER_SECOND if last_contact_ms is not None else None


def vault_status_json(vault: Vault, stale_after_s: int, now_ms: int) -> dict[str, Any]:
    staleness = _staleness_s(vault.last_contact_at, now_ms)
    return {"id": vault.uuid, "name": vault.name, "notes": vault.notes,
            "last_sync_at": _iso_or_none(vault.last_sync_at),
            "last_contact_at": _iso_or_none(vault.last_contact_at),
            "rejected": vault.rejected, "staleness_seconds": staleness,
            "stale": staleness is None or staleness > stale_after_s,
            # A vault from before 0002 that no hub run has adopted yet.
            "legacy": vault.uuid is None}


def retrieval_json(status: RetrievalStatus) -> dict[str, Any]:
    vectors = status.vectors
    return {
        "mode": status.mode.value,
        "configured": status.configured,
        "embedder": ({"model": status.embedder[0], "dimensions": status.embedder[1]}
                     if status.embedder else None),
        "reranker": {"model": status.reranker} if status.reranker else None,
        "vectors": ({"indexed": vectors.indexed, "pending": vectors.pending,
                     "stale": vectors.stale, "model": vectors.model}
                    if vectors is not None else None),
        "indexing": ({"behind": indexing.behind, "pending": indexing.pending,
                      "running": indexing.running,
                      "rate_per_s": (round(indexing.rate_per_s, 2)
                                     if indexing.rate_per_s is not None else None),
                      "eta_s": indexing.eta_s}
                     if (indexing := status.indexing) is not None else None),
        "notes": list(status.notes),
    }


def status_json(row: Mapping[str, Any], vaults: Sequence[Vault], settings: Settings,
                now_ms: int, retrieval: RetrievalStatus) -> dict[str, Any]:
    """Top-level staleness is the stalest vault's (stale when any vault is, or none has
    synced): one forgotten vault is enough to make recall out of date. Staleness counts
    from the hub's last contact, so a run that finds nothing to send keeps it fresh."""
    last = row.get("last_sync_at")
    interval = settings.sync_interval_s
    per_vault = [vault_status_json(v, STALE_AFTER_INTERVALS * interval, now_ms)
                 for v in vaults]
    contacts = [v.last_contact_at for v in vaults if v.last_contact_at is not None]
    staleness = (None if not vaults or len(contacts) < len(vaults)
                 else _staleness_s(min(contacts), now_ms))
    return {
        "schema_version": row.get("schema_version"),
        "migrations_applied": row.get("migrations"),
        "corpora": {"notes": row.get("notes") or 0, "messages": row.get("messages") or 0,
                    "sections": row.get("sections") or 0,
                    "exchanges": row.get("exchanges") or 0},
        "conversations": row.get("conversations") or 0,
        "last_sync_at": iso(int(last)) if last is not None else None,
        "last_contact_at": _iso_or_none(max(contacts, default=None)),
        "staleness_seconds": staleness,
        "sync_interval_seconds": interval,
        "stale": not per_vault or any(v["stale"] for v in per_vault),
        "model_provider": settings.model_provider,
        "retrieval": retrieval_json(retrieval),
        "vaults": per_vault,
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
                     heading=cand.heading or None,
                     conversation_id=cand.conversation_id,
                     standing=standing_label(cand) or None)


def time_json(scope: TimeScope | None) -> dict[str, Any] | None:
    """The time a query named: its words, its days in the owner's zone, and whether recall
    kept to them (`applied` is false when nothing dated then was found)."""
    if scope is None:
        return None
    span = scope.window.span
    return {"expression": span.expression, "from": span.start.isoformat(),
            "to": span.end.isoformat(), "timezone": scope.zone.name,
            "timezone_fallback": scope.zone.fallback, "applied": scope.applied}


def search_json(result: ExplicitResult, now_ms: int) -> dict[str, Any]:
    marks = highlighter(result.searched_terms)
    dated = time_json(result.time) if result.time and result.time.applied else None
    hits = [search_hit(h, marks, now_ms) for h in result.hits]
    if dated:
        for hit in hits:
            hit.reasons.append(f"dated {dated['expression']}")
    return {"query": result.query.text, "terms": [t.fts for t in result.query.terms],
            "corrections": dict(result.corrections), "mode": result.mode.value,
            "fallback": result.fallback, "time": time_json(result.time),
            "hits": [h.model_dump() for h in hits]}


def feedback_json(recorded: Recorded) -> dict[str, Any]:
    source = recorded.source
    return {"message_id": recorded.message_id, "n": recorded.n,
            "judgment": recorded.judgment,
            "source": {"kind": source.kind, "id": source.id, "label": source.label},
            "recorded_at": iso(recorded.created_at)}


def source(injected: Injected) -> Source:
    cand = injected.candidate
    return Source(n=injected.n, kind=cand.kind, id=cand.id, label=cand.label,
                  snippet=injected.excerpt, href=cand.href,
                  standing=injected.standing or None)

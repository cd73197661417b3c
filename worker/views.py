"""The JSON the Worker sends, as the wire models of shared/api/wire.py, built in one place
from internal records: messages, conversations, vaults (heartbeat, manifest), /status,
search hits and footer sources. worker/http.py `json_ok` renders them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from re import Pattern
from typing import Any

from shared.api import wire
from shared.api.protocol import STALE_AFTER_INTERVALS
from shared.api.wire import SearchHit, Source
from shared.block.citations import message_href
from shared.block.envelope import Injected
from shared.knowledge.labels import standing_label
from shared.rank.candidate import Candidate
from shared.rank.policy import LESS_CERTAIN
from shared.text.matcher import highlighter, matched_terms
from shared.text.sanitiser import Term
from shared.text.snippets import SEARCH_SNIPPET_CHARS, make_snippet
from shared.time.durations import MS_PER_DAY, MS_PER_SECOND
from worker.config import Settings
from worker.inspect.answer import AnswerTrace
from worker.inspect.missing import Missing
from worker.inspect.trace import Entry, Trace
from worker.recall.explicit import ExplicitResult
from worker.recall.timeframe import TimeScope
from worker.retrieval_status.report import RetrievalStatus
from worker.store.chats import Message
from worker.store.feedback import Recorded
from worker.store.forget import Forgotten
from worker.store.memories import Memory
from worker.store.pause import PauseState
from worker.store.vaults import Vault

# A hit at least this recent (its recency multiplier, shared.rank.scoring) says so in reasons.
RECENT_BOOST = 1.05


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def message_out(message: Message) -> wire.MessageOut:
    return wire.MessageOut(id=message.id, conversation_id=message.conversation_id,
                           seq=message.seq, role=message.role, content=message.content,
                           sources=message.sources, withdrawn=message.withdrawn,
                           judgments=message.judgments, created_at=iso(message.created_at))


def conversation_out(row: Mapping[str, Any]) -> wire.ConversationOut:
    return wire.ConversationOut(id=row["id"], title=row["title"],
                                created_at=iso(row["created_at"]),
                                updated_at=iso(row["updated_at"]),
                                message_count=row["message_count"],
                                incognito=bool(row.get("incognito")))


def conversations_page(rows: Sequence[Mapping[str, Any]], limit: int
                       ) -> wire.ConversationsPage:
    next_before = f"{rows[-1]['updated_at']}.{rows[-1]['id']}" if len(rows) == limit else None
    return wire.ConversationsPage(conversations=[conversation_out(r) for r in rows],
                                  next_before=next_before)


def messages_page(messages: Sequence[Message], limit: int) -> wire.MessagesPage:
    next_before = messages[-1].seq if len(messages) == limit and messages[-1].seq > 1 else None
    return wire.MessagesPage(messages=[message_out(m) for m in messages],
                             next_before=next_before)


def message_lookup(message: Message, newer: int) -> wire.MessageLookup:
    return wire.MessageLookup(message=message_out(message),
                              conversation_id=message.conversation_id, newer_count=newer)


def renamed(row: Mapping[str, Any]) -> wire.Renamed:
    return wire.Renamed(id=row["id"], title=row["title"], created_at=iso(row["created_at"]),
                        updated_at=iso(row["updated_at"]))


def forgotten(item_id: str, done: Forgotten) -> wire.Forgotten:
    return wire.Forgotten(id=item_id, conversation_id=done.conversation_id,
                          messages_deleted=done.messages, citations_removed=done.citations,
                          answers_withdrawn=done.withdrawn,
                          withdrawn_ids=list(done.withdrawn_ids))


def _iso_or_none(ms: int | None) -> str | None:
    return iso(ms) if ms is not None else None


def vault_summary(vault: Vault) -> wire.VaultSummary:
    """A vault's summary as the hub compares it with its state (count and checksum)."""
    return wire.VaultSummary(id=vault.uuid, name=vault.name, seq=vault.seq, notes=vault.notes,
                             checksum=vault.checksum,
                             last_sync_at=_iso_or_none(vault.last_sync_at),
                             last_contact_at=_iso_or_none(vault.last_contact_at))


def contact(worker_id: str, vault: Vault, adopted: bool) -> wire.Contact:
    return wire.Contact(worker_id=worker_id, adopted=adopted, vault=vault_summary(vault))


def manifest_out(vault: Vault, rows: Sequence[Mapping[str, Any]], limit: int) -> wire.Manifest:
    return wire.Manifest(
        vault=vault_summary(vault),
        notes=[wire.ManifestNote(path=r["path"], content_hash=r["content_hash"],
                                 mtime=r["mtime"], seq=r["seq"]) for r in rows],
        next_after=rows[-1]["path"] if len(rows) == limit else None)


def _staleness_s(last_contact_ms: int | None, now_ms: int) -> int | None:
    return (now_ms - last_contact_ms) // MS_PER_SECOND if last_contact_ms is not None else None


def vault_status(vault: Vault, stale_after_s: int, now_ms: int) -> wire.VaultStatus:
    staleness = _staleness_s(vault.last_contact_at, now_ms)
    return wire.VaultStatus(id=vault.uuid, name=vault.name, notes=vault.notes,
                            last_sync_at=_iso_or_none(vault.last_sync_at),
                            last_contact_at=_iso_or_none(vault.last_contact_at),
                            rejected=vault.rejected, staleness_seconds=staleness,
                            stale=staleness is None or staleness > stale_after_s,
                            # A vault from before 0002 that no hub run has adopted yet.
                            legacy=vault.uuid is None)


def retrieval(status: RetrievalStatus) -> wire.Retrieval:
    vectors = status.vectors
    indexing = status.indexing
    return wire.Retrieval(
        mode=status.mode.value, configured=status.configured,
        embedder=(wire.EmbedderInfo(model=status.embedder[0], dimensions=status.embedder[1],
                                    reachable=status.embedder_error is None,
                                    error=status.embedder_error)
                  if status.embedder else None),
        reranker=wire.RerankerInfo(model=status.reranker) if status.reranker else None,
        vectors=(wire.VectorsInfo(indexed=vectors.indexed, pending=vectors.pending,
                                  stale=vectors.stale, model=vectors.model)
                 if vectors is not None else None),
        indexing=(wire.IndexingInfo(behind=indexing.behind, pending=indexing.pending,
                                    running=indexing.running,
                                    rate_per_s=(round(indexing.rate_per_s, 2)
                                                if indexing.rate_per_s is not None else None),
                                    eta_s=indexing.eta_s)
                  if indexing is not None else None),
        notes=list(status.notes))


def status_out(row: Mapping[str, Any], vaults: Sequence[Vault], settings: Settings, now_ms: int,
           retrieval_status: RetrievalStatus) -> wire.StatusResponse:
    """Top-level staleness is the stalest vault's (stale when any vault is, or none has
    synced): one forgotten vault is enough to make recall out of date. Staleness counts
    from the hub's last contact, so a run that finds nothing to send keeps it fresh."""
    last = row.get("last_sync_at")
    interval = settings.sync_interval_s
    per_vault = [vault_status(v, STALE_AFTER_INTERVALS * interval, now_ms) for v in vaults]
    contacts = [v.last_contact_at for v in vaults if v.last_contact_at is not None]
    staleness = (None if not vaults or len(contacts) < len(vaults)
                 else _staleness_s(min(contacts), now_ms))
    return wire.StatusResponse(
        schema_version=row.get("schema_version"),
        migrations_applied=row.get("migrations"),
        corpora=wire.Corpora(notes=row.get("notes") or 0, messages=row.get("messages") or 0,
                             sections=row.get("sections") or 0,
                             exchanges=row.get("exchanges") or 0),
        conversations=row.get("conversations") or 0,
        last_sync_at=iso(int(last)) if last is not None else None,
        last_contact_at=_iso_or_none(max(contacts, default=None)),
        staleness_seconds=staleness,
        sync_interval_seconds=interval,
        stale=not per_vault or any(v.stale for v in per_vault),
        model_provider=settings.model_provider,
        retrieval=retrieval(retrieval_status),
        memory=memory_state(PauseState.from_row(row)),
        vaults=per_vault)


def memory_out(memory: Memory) -> wire.MemoryOut:
    source = memory.source_message_id
    return wire.MemoryOut(id=memory.id, fact=memory.fact, href=message_href(memory.id),
                          source_message_id=source,
                          source_href=message_href(source) if source else None,
                          created_at=iso(memory.created_at))


def memories_page(memories: Sequence[Memory]) -> wire.MemoriesPage:
    return wire.MemoriesPage(memories=[memory_out(m) for m in memories])


def memory_edited(memory: Memory, gone: Forgotten) -> wire.MemoryEdited:
    return wire.MemoryEdited(memory=memory_out(memory), withdrawn_ids=list(gone.withdrawn_ids))


def memory_state(state: PauseState) -> wire.MemoryState:
    return wire.MemoryState(paused=state.paused, paused_at=_iso_or_none(state.paused_at))


def pause_result(state: PauseState, indexed: int) -> wire.PauseResult:
    return wire.PauseResult(paused=state.paused, paused_at=_iso_or_none(state.paused_at),
                            indexed=indexed)


def _reasons(cand: Candidate, marks: Pattern[str] | None, highlights: int,
             now_ms: int) -> list[str]:
    reasons = []
    for name, text in cand.presentation.fields:
        matched = sorted({w.lower() for w in marks.findall(text)}) if marks and text else []
        if matched:
            reasons.append(f"{name} matches {', '.join(matched)}")
    if highlights:
        reasons.append(f"text matches {highlights} time{'s' if highlights > 1 else ''}")
    if cand.presentation.fuzzy:
        reasons.append("matched a spelling correction")
    if cand.scores.boost >= RECENT_BOOST:
        days = max(now_ms - cand.identity.timestamp_ms, 0) // MS_PER_DAY
        reasons.append(f"recent ({days} days old)")
    return reasons


def search_hit(cand: Candidate, marks: Pattern[str] | None, now_ms: int) -> SearchHit:
    snippet, spans = make_snippet(cand.presentation.text, marks, SEARCH_SNIPPET_CHARS)
    ident = cand.identity
    return SearchHit(kind=ident.kind, id=ident.id, label=ident.label, snippet=snippet,
                     highlights=spans, href=ident.href, timestamp=iso(ident.timestamp_ms),
                     score=round(cand.scores.final, 6), relevance=round(cand.scores.relevance, 6),
                     confidence=_rounded(cand.scores.confidence),
                     reasons=_reasons(cand, marks, len(spans), now_ms), vault=ident.vault,
                     heading=ident.heading or None, conversation_id=ident.conversation_id,
                     standing=standing_label(cand) or None)


def time_info(scope: TimeScope | None) -> wire.TimeInfo | None:
    """The time a query named: its words, its days in the owner's zone, and whether recall
    kept to them (`applied` is false when nothing dated then was found)."""
    if scope is None:
        return None
    span = scope.window.span
    return wire.TimeInfo.model_validate({
        "expression": span.expression, "from": span.start.isoformat(),
        "to": span.end.isoformat(), "timezone": scope.zone.name,
        "timezone_fallback": scope.zone.fallback, "applied": scope.applied})


def search_response(result: ExplicitResult, now_ms: int) -> wire.SearchResponse:
    marks = highlighter(result.found.lexical.query.terms)
    time = time_info(result.time)
    hits = [search_hit(h, marks, now_ms) for h in result.hits]
    if time is not None and time.applied:
        for hit in hits:
            hit.reasons.append(f"dated {time.expression}")
    ran = result.found.ran
    return wire.SearchResponse(query=result.query.text,
                               terms=[t.fts for t in result.query.terms],
                               corrections=dict(result.found.lexical.corrections),
                               mode=ran.mode.value, fallback=ran.fallback, time=time, hits=hits)


def feedback_recorded(recorded: Recorded) -> wire.FeedbackRecorded:
    judged = recorded.source
    return wire.FeedbackRecorded(
        message_id=recorded.message_id, n=recorded.n, judgment=recorded.judgment,
        source=wire.JudgedSource(kind=judged.kind, id=judged.id, label=judged.label),
        recorded_at=iso(recorded.created_at))


def source(injected: Injected) -> Source:
    ident, p = injected.candidate.identity, injected.candidate.scores.confidence
    return Source(n=injected.n, kind=ident.kind, id=ident.id, label=ident.label,
                  snippet=injected.excerpt, href=ident.href,
                  standing=injected.standing or None, confidence=_rounded(p),
                  less_certain=p is not None and p < LESS_CERTAIN)


def _rounded(confidence: float | None) -> float | None:
    return round(confidence, 3) if confidence is not None else None


def _term_words(fts: Iterable[str]) -> list[str]:
    """FTS terms as the owner typed them (`"glacier"*` → glacier)."""
    return sorted(t.strip('"*') for t in fts)


def inspected_candidate(entry: Entry, terms: Sequence[Term], now_ms: int,
                        answer: AnswerTrace | None = None) -> wire.InspectedCandidate:
    cand, verdict = entry.candidate, entry.verdict
    ident, s, shown = cand.identity, cand.scores, cand.presentation
    marks = highlighter(terms)
    snippet, _ = make_snippet(shown.text, marks, SEARCH_SNIPPET_CHARS)
    matched = matched_terms(terms, [shown.text, *(v for _, v in shown.fields)])
    return wire.InspectedCandidate(
        kind=ident.kind, id=ident.id, label=ident.label, href=ident.href, vault=ident.vault,
        heading=ident.heading or None, conversation_id=ident.conversation_id,
        timestamp=iso(ident.timestamp_ms), snippet=snippet, matched_terms=_term_words(matched),
        rank=entry.rank, score=round(s.final, 6), relevance=round(s.relevance, 6),
        lexical_rank=s.lexical_rank,
        cosine=round(s.cosine, 6) if s.cosine is not None else None,
        vector_rank=s.vector_rank,
        fused=round(s.fused, 6) if s.fused is not None else None,
        rerank=round(s.rerank, 6) if s.rerank is not None else None,
        recency=round(s.boost, 6), standing=round(s.standing, 6),
        feedback=round(s.feedback, 6), pending=s.pending, fuzzy=shown.fuzzy,
        confidence=round(entry.confidence, 4) if entry.confidence is not None else None,
        decision=wire.GateDecision(passed=verdict.passed, rule=verdict.rule,
                                   reason=verdict.reason),
        hit=entry.hit,
        injected=answer.was_injected(cand) if answer else None,
        cited=answer.was_cited(cand) if answer else None,
        after_question=answer.after_question(cand) if answer else None)


def inspect_response(trace: Trace, now_ms: int, answer: AnswerTrace | None = None
                     ) -> wire.InspectResponse:
    model = trace.model
    return wire.InspectResponse(
        subject="answer" if answer else "search", policy=trace.policy,  # type: ignore[arg-type]
        query=trace.query.text, terms=[t.fts for t in trace.query.terms],
        corrections=trace.corrections, mode=trace.mode.value, fallback=trace.fallback,
        skipped=trace.skipped, time=time_info(trace.time),
        gate=wire.ConfidenceGate(model=model.name, threshold=model.threshold,
                                 related_floor=model.related_floor,
                                 kind_thresholds=dict(model.kind_thresholds)),
        hits=sum(e.hit for e in trace.entries),
        candidates=[inspected_candidate(e, trace.query.terms, now_ms, answer)
                    for e in trace.entries],
        answer=answer_inspected(answer) if answer else None)


def answer_inspected(answer: AnswerTrace) -> wire.AnswerInspected:
    return wire.AnswerInspected(
        answer_id=answer.answer.id, question_id=answer.question.id,
        question=answer.question.content, asked_at=iso(answer.question.created_at),
        injected=[wire.StoredItem(kind=i.kind, id=i.id, vault=i.vault)  # type: ignore[arg-type]
                  for i in answer.injected],
        cited=answer.cited, replayed=True,
        replay=("injected and cited are as stored with the answer; the candidates, their "
                "scores and the gate's decisions are automatic recall re-run now for the "
                f"question, in {answer.trace.mode.value} mode, scored as of "
                f"{iso(answer.question.created_at)}, over memory as it is now (what was "
                "written or changed since is marked after_question)"),
        replay_matches=answer.replay_matches())


def missing_response(missing: Missing, trace: Trace, subject: str, now_ms: int,
                     answer: AnswerTrace | None = None) -> wire.MissingResponse:
    target, unit = missing.target, missing.unit
    marks = highlighter(trace.query.terms)
    return wire.MissingResponse(
        subject=subject, query=trace.query.text, mode=trace.mode.value,  # type: ignore[arg-type]
        target=wire.StoredItem(kind=target.kind, id=target.id,  # type: ignore[arg-type]
                               vault=target.vault),
        label=missing.label, status=missing.status,  # type: ignore[arg-type]
        rule=missing.rule, reason=missing.reason,
        candidate=(inspected_candidate(missing.entry, trace.query.terms, now_ms, answer)
                   if missing.entry else None),
        unit=(wire.MissingUnit(heading=unit.heading or None,
                               snippet=make_snippet(unit.text, marks, SEARCH_SNIPPET_CHARS)[0],
                               lexical_rank=unit.lexical_rank, matching=unit.matching,
                               matched_terms=_term_words(unit.terms)) if unit else None))

"""One chat turn (POST /api/chat): store the owner's message, recall, ask the model,
store the answer.

Order matters for the failure policy: the owner's message is stored first (it is never
lost); the assistant message is stored only once the model has answered, so a model
failure leaves no half-written answer behind.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.api.errors import UpstreamError
from shared.api.owner_requests import ChatRequest
from shared.api.wire import ChatResponse, RecallInfo
from shared.block.citations import guard_citations
from shared.block.envelope import Injected
from shared.knowledge.bundles import with_partners
from shared.rank.policy import AUTOMATIC
from shared.text.remember import proposed_fact
from shared.time.zones import pick_zone
from worker.config import Runtime
from worker.indexing.scheduling import schedule_indexing
from worker.providers import Prompt, provider_for
from worker.recall.automatic import PAUSED, Recall, automatic_recall
from worker.recall.retrieval_mode import Ran
from worker.store import chats, citations, pause, quotes
from worker.store.citations import Citation
from worker.views import message_out, source, time_info

# The model sees this many recent turns; automatic recall skips the same ones.
HISTORY_TURNS = AUTOMATIC.exclude_recent_turns


def injected_notes(injected: Sequence[Injected]) -> list[Citation]:
    """Every note the answer was shown, with the excerpt of it (for withdrawal): cited or
    not, since the model may repeat what it read without a marker."""
    notes = [(i, i.candidate.identity) for i in injected]
    return [Citation(vid=ident.vid, path=ident.id, excerpt=i.excerpt)
            for i, ident in notes if ident.kind == "note" and ident.vid is not None]


def injected_messages(injected: Sequence[Injected]) -> tuple[list[str], list[str]]:
    """Every past message the answer was shown (a hit carries its partner's text too), and
    the owner messages shown with their reply attached."""
    messages = [i.candidate for i in injected if i.candidate.identity.kind == "message"]
    return ([m for c in messages for m in c.identity.covers],
            [c.identity.id for c in messages if c.identity.role == "user" and c.message.reply])


async def chat_turn(runtime: Runtime, request: ChatRequest) -> ChatResponse:
    db = runtime.db
    provider = provider_for(runtime)  # a misconfigured provider fails before any write
    now = runtime.now_ms()
    if request.conversation_id:
        conversation_id = request.conversation_id
        incognito = bool((await chats.get_conversation(db, conversation_id))["incognito"])
        history = await chats.page_messages(db, conversation_id, None, HISTORY_TURNS)
    else:
        conversation_id, history, incognito = chats.new_id(), [], request.incognito
    user_message = await chats.append_message(db, conversation_id, "user", request.content,
                                              now, context=request.raw_context(),
                                              new_conversation=not request.conversation_id,
                                              incognito=incognito)

    zone = pick_zone(runtime.settings.owner_timezone, request.client_time_zone())
    paused = (await pause.pause_state(db)).paused
    recall = Recall() if paused else await automatic_recall(
        db, request.content, now, message_id=user_message.id,
        conversation_id=conversation_id, semantics=runtime.semantics, mode=runtime.mode,
        zone=zone)
    ran = Ran(mode=runtime.mode) if paused else recall.ran
    sources = [source(i) for i in recall.injected]
    prompt = Prompt(recall_block=recall.block, sources=sources, user_text=request.content,
                    history=[{"role": m.role, "content": m.content} for m in reversed(history)])
    answer = await provider.complete(prompt)
    answer, cited = guard_citations(answer, sources)
    if not answer:
        raise UpstreamError("the model returned an empty answer; try again")
    shown = with_partners((s.n for s in cited), recall.injected)
    footer = [s for s in sources if s.n in shown]
    answered_at, answer_id = max(runtime.now_ms(), now + 1), chats.new_id()
    assistant = await chats.append_message(
        db, conversation_id, "assistant", answer, answered_at, sources=footer,
        message_id=answer_id, after=[
            *citations.record_statements(db, answer_id, injected_notes(recall.injected),
                                         answered_at),
            *quotes.record_statements(db, answer_id, *injected_messages(recall.injected),
                                      answered_at)])
    schedule_indexing(runtime, ("messages",))
    return ChatResponse(
        conversation_id=conversation_id, incognito=incognito,
        proposed_memory=proposed_fact(request.content),
        user_message=message_out(user_message),
        assistant_message=message_out(assistant),
        recall=RecallInfo(injected=len(recall.injected), error=recall.error,
                          mode=ran.mode.value, fallback=ran.fallback,
                          skipped=PAUSED if paused else recall.skipped,
                          time=time_info(recall.time)))

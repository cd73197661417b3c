"""One chat turn (POST /api/chat): store the owner's message, recall, ask the model,
store the answer.

Order matters for the failure policy: the owner's message is stored first (it is never
lost); the assistant message is stored only once the model has answered, so a model
failure leaves no half-written answer behind.
"""

from __future__ import annotations

from typing import Any

from shared.errors import UpstreamError
from shared.recall_policy import AUTOMATIC
from shared.schemas import ChatRequest
from shared.sources import guard_citations
from worker.config import Runtime
from worker.providers import Prompt, provider_for
from worker.recall.automatic import automatic_recall
from worker.semantic.scheduling import schedule_indexing
from worker.store import chats
from worker.views import message_json, source

# The model sees this many recent turns; automatic recall skips the same ones.
HISTORY_TURNS = AUTOMATIC.exclude_recent_turns


async def chat_turn(runtime: Runtime, request: ChatRequest) -> dict[str, Any]:
    db = runtime.db
    provider = provider_for(runtime)  # a misconfigured provider fails before any write
    now = runtime.now_ms()
    if request.conversation_id:
        conversation_id = request.conversation_id
        history = await chats.page_messages(db, conversation_id, None, HISTORY_TURNS)  # 404s
    else:
        conversation_id, history = chats.new_id(), []
    user_message = await chats.append_message(db, conversation_id, "user", request.content,
                                              now, context=request.raw_context(),
                                              new_conversation=not request.conversation_id)

    recall = await automatic_recall(db, request.content, now, message_id=user_message.id,
                                    conversation_id=conversation_id,
                                    semantics=runtime.semantics, mode=runtime.mode)
    sources = [source(i) for i in recall.injected]
    prompt = Prompt(recall_block=recall.block, sources=sources, user_text=request.content,
                    history=[{"role": m.role, "content": m.content} for m in reversed(history)])
    answer = await provider.complete(prompt)
    answer, cited = guard_citations(answer, sources)
    if not answer:
        raise UpstreamError("the model returned an empty answer; try again")
    assistant = await chats.append_message(db, conversation_id, "assistant", answer,
                                           max(runtime.now_ms(), now + 1), sources=cited)
    schedule_indexing(runtime, ("messages",))
    return {"conversation_id": conversation_id,
            "user_message": message_json(user_message),
            "assistant_message": message_json(assistant),
            "recall": {"injected": len(recall.injected), "error": recall.error,
                       "mode": recall.mode.value, "fallback": recall.fallback,
                       "skipped": recall.skipped}}

"""POST /api/chat: store the owner's message, recall, ask the model, store the answer.

Order matters for the failure policy: the owner's message is stored first (it is never
lost); the assistant message is stored only once the model has answered, so a model
failure leaves no half-written answer behind.
"""

from __future__ import annotations

from typing import Any

from shared import recall_policy
from shared.errors import UpstreamError
from shared.schemas import ChatRequest
from shared.sources import guard_citations
from worker.config import Runtime
from worker.providers import Prompt, provider_for
from worker.recall import automatic_recall
from worker.search import iso
from worker.store import chats

HISTORY_TURNS = recall_policy.RECENT_TURNS_EXCLUDED


def message_json(message: chats.Message) -> dict[str, Any]:
    return {"id": message.id, "conversation_id": message.conversation_id,
            "seq": message.seq, "role": message.role, "content": message.content,
            "sources": [s.model_dump() for s in message.sources],
            "created_at": iso(message.created_at)}


async def chat(runtime: Runtime, request: ChatRequest) -> dict[str, Any]:
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
                                    conversation_id=conversation_id)
    prompt = Prompt(recall_block=recall.block, sources=recall.sources,
                    user_text=request.content,
                    history=[{"role": m.role, "content": m.content} for m in reversed(history)])
    answer = await provider.complete(prompt)
    answer, cited = guard_citations(answer, recall.sources)
    if not answer:
        raise UpstreamError("the model returned an empty answer; try again")
    assistant = await chats.append_message(db, conversation_id, "assistant", answer,
                                           max(runtime.now_ms(), now + 1), sources=cited)
    return {"conversation_id": conversation_id,
            "user_message": message_json(user_message),
            "assistant_message": message_json(assistant),
            "recall": {"injected": len(recall.sources), "error": recall.error}}

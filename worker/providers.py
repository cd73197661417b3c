"""Model providers behind one small interface, chosen by `MODEL_PROVIDER`.

- `offline` (default): needs no model. It answers honestly from the Recall block: what
  was found, each item cited, or that nothing was found. A real mode for the local demo
  and for running without any model account, not a test fake.
- `openai`: any OpenAI-compatible chat-completions endpoint, through httpx.
- `workers-ai`: the Workers AI binding (`AI`) in production.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from shared.api.errors import MalloryError, QueryTooLong, UpstreamError
from shared.api.wire import Source
from shared.rank import kinds
from shared.text.dialogue import dialogue_act
from shared.text.remember import proposed_fact
from shared.text.sanitiser import Mode, build_query
from worker import offline_replies
from worker.config import Runtime
from worker.persona import NO_RECALL, PERSONA

log = logging.getLogger("mallory.providers")


@dataclass(frozen=True)
class Prompt:
    recall_block: str
    sources: list[Source]
    user_text: str
    history: list[dict[str, str]] = field(default_factory=list)
    system: str = PERSONA

    def messages(self) -> list[dict[str, str]]:
        """OpenAI-style messages. The recall block rides in the owner's turn, never in the
        system prompt, so retrieved text never gains system authority."""
        block = self.recall_block or NO_RECALL
        return [{"role": "system", "content": self.system}, *self.history,
                {"role": "user", "content": f"{block}\n\n{self.user_text}"}]


class ChatModel(Protocol):
    name: str

    async def complete(self, prompt: Prompt) -> str: ...


class OfflineResponder:
    """Answers from the Recall block alone."""

    name = "offline"

    async def complete(self, prompt: Prompt) -> str:
        if not prompt.sources and _nothing_to_look_up(prompt.user_text):
            thanked = _THANKS.search(prompt.user_text) is not None
            return offline_replies.WELCOME if thanked else offline_replies.GREETING
        if not prompt.sources:
            if proposed_fact(prompt.user_text) is not None:
                return offline_replies.NOTED
            return offline_replies.NOTHING_FOUND
        lines = [offline_replies.FOUND_HEADER]
        for s in prompt.sources:
            kind = kinds.named(s.kind).offline_word
            standing = f" ({s.standing})" if s.standing else ""
            lines.append(f"- {kind} “{s.label}”{standing}: {s.snippet} [{s.n}]")
        if any(s.standing and "[" in s.standing for s in prompt.sources):
            lines.append(offline_replies.DISAGREE)
        return "\n".join(lines)


_THANKS = re.compile(r"\b(?:thank|thanks|thx|cheers|ta)\b", re.IGNORECASE)


def _nothing_to_look_up(text: str) -> bool:
    """Small talk: nothing recall would search for ("hi, how are you?"), or a social
    message that asks nothing of memory ("thanks, the soup was great")."""
    try:
        return build_query(text, Mode.AUTOMATIC).is_empty or dialogue_act(text) != "request"
    except QueryTooLong:
        return False


# What an HTTP status from the provider most likely means, for the owner.
_STATUS_HINTS = {401: " (the API key was refused; check OPENAI_API_KEY)",
                 403: " (the API key was refused; check OPENAI_API_KEY)",
                 404: " (no such endpoint or model; check OPENAI_BASE_URL and OPENAI_MODEL)",
                 429: " (rate-limited by the provider; try again shortly)"}


def _hint(status: int) -> str:
    return _STATUS_HINTS.get(status, "; try again" if status >= 500 else "")


class OpenAICompatible:
    name = "openai"

    def __init__(self, base_url: str, api_key: str, model: str, timeout_s: float) -> None:
        if not base_url or not model:
            raise MalloryError("MODEL_PROVIDER=openai needs OPENAI_BASE_URL and OPENAI_MODEL")
        self.base_url, self.api_key, self.model = base_url, api_key, model
        self.timeout_s = timeout_s

    async def complete(self, prompt: Prompt) -> str:
        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = {"model": self.model, "messages": prompt.messages(), "temperature": 0.3}
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.post(
                    f"{self.base_url}/chat/completions", json=payload, headers=headers)
        except httpx.TimeoutException as exc:
            raise UpstreamError(f"the model did not answer within {self.timeout_s:.0f} s; "
                                "try again") from exc
        except httpx.HTTPError as exc:  # the URL may hold a password: only the log sees it
            log.error("model provider unreachable: %s: %s", type(exc).__name__, exc)
            raise UpstreamError("could not reach the model provider; check OPENAI_BASE_URL "
                                "and try again", code="model_unreachable") from exc
        if response.status_code != 200:
            # The body can echo the prompt, keys or internal hosts: summarised, not relayed.
            log.error("model provider answered %s: %.300s", response.status_code,
                      response.text)
            raise UpstreamError(f"the model provider answered HTTP {response.status_code}"
                                f"{_hint(response.status_code)}")
        try:
            return str(response.json()["choices"][0]["message"]["content"] or "").strip()
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise UpstreamError("the model provider sent an answer in an unknown shape") from exc


class WorkersAI:
    name = "workers-ai"

    def __init__(self, binding: Any, model: str) -> None:
        if binding is None:
            raise MalloryError("MODEL_PROVIDER=workers-ai needs an [ai] binding named AI")
        self.binding, self.model = binding, model

    async def complete(self, prompt: Prompt) -> str:
        from worker.db.binding import to_py

        try:
            result = to_py(await self.binding.run(self.model, {"messages": prompt.messages()}))
        except Exception as exc:  # the JS error from the binding: logged, not relayed
            log.error("Workers AI failed: %s", exc)
            raise UpstreamError("Workers AI failed to answer; try again") from exc
        answer = result.get("response") if isinstance(result, dict) else None
        if not isinstance(answer, str):
            raise UpstreamError("Workers AI sent an answer in an unknown shape")
        return answer.strip()


def provider_for(runtime: Runtime) -> ChatModel:
    s = runtime.settings
    if s.model_provider == "offline":
        return OfflineResponder()
    if s.model_provider == "openai":
        return OpenAICompatible(s.openai_base_url, s.openai_api_key, s.openai_model,
                                s.model_timeout_s)
    if s.model_provider == "workers-ai":
        return WorkersAI(runtime.ai, s.workers_ai_model)
    raise MalloryError(f"unknown MODEL_PROVIDER {s.model_provider!r}; "
                       "use offline, openai or workers-ai")

"""Settings and the per-request Runtime (database port, model provider, clock).

In production the Runtime is built from the Worker's `env` (bindings, vars, secrets); the
local server builds one from environment variables and `.dev.vars` and hands it to the
app through `scope["env"]`, exactly where the Workers ASGI adapter puts `env`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from worker.db import Database

DEFAULT_SYNC_INTERVAL_S = 15 * 60


@dataclass(frozen=True)
class Settings:
    # Worker-level shared secrets for /vault/*: the current one and, during rotation, the
    # next. With neither set the sync endpoints refuse every request.
    sync_tokens: tuple[str, ...] = ()
    model_provider: str = "offline"
    openai_base_url: str = ""
    openai_api_key: str = ""
    openai_model: str = ""
    workers_ai_model: str = "@cf/meta/llama-3.1-8b-instruct"
    model_timeout_s: float = 60.0
    sync_interval_s: int = DEFAULT_SYNC_INTERVAL_S

    @classmethod
    def from_mapping(cls, env: Mapping[str, Any] | Any) -> Settings:
        def get(name: str, default: str = "") -> str:
            value = env.get(name) if isinstance(env, Mapping) else getattr(env, name, None)
            return str(value) if value not in (None, "") else default

        tokens = tuple(t for t in (get("SYNC_TOKEN"), get("SYNC_TOKEN_NEXT")) if t)
        return cls(
            sync_tokens=tokens,
            model_provider=get("MODEL_PROVIDER", "offline").lower(),
            openai_base_url=get("OPENAI_BASE_URL").rstrip("/"),
            openai_api_key=get("OPENAI_API_KEY"),
            openai_model=get("OPENAI_MODEL"),
            workers_ai_model=get("WORKERS_AI_MODEL", cls.workers_ai_model),
            model_timeout_s=float(get("MODEL_TIMEOUT_S", "60")),
            sync_interval_s=int(get("SYNC_INTERVAL_S", str(DEFAULT_SYNC_INTERVAL_S))),
        )


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Runtime:
    db: Database
    settings: Settings = field(default_factory=Settings)
    ai: Any = None  # the Workers AI binding, in production
    clock: Callable[[], int] = wall_clock_ms

    def now_ms(self) -> int:
        return self.clock()

"""Settings and the per-request Runtime (database port, model provider, clock).

In production the Runtime is built from the Worker's `env` (bindings, vars, secrets) by
`Runtime.from_env`; the local server builds one from environment variables and
`.dev.vars` and hands it to the app through `scope["env"]`, exactly where the Workers
ASGI adapter puts `env`. A malformed setting is a ConfigError that names the key and the
value it got.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from shared.errors import ConfigError
from shared.protocol import DEFAULT_SYNC_INTERVAL_S
from worker.db import Database

MODEL_PROVIDERS = ("offline", "openai", "workers-ai")
DEFAULT_MODEL_TIMEOUT_S = 60.0


class _Reader:
    """Reads one setting at a time from a mapping or a Worker env object."""

    def __init__(self, env: Mapping[str, Any] | Any) -> None:
        self.env = env

    def text(self, name: str, default: str = "") -> str:
        env = self.env
        value = env.get(name) if isinstance(env, Mapping) else getattr(env, name, None)
        return str(value).strip() if value not in (None, "") else default

    def whole(self, name: str, default: int, unit: str, low: int = 1) -> int:
        raw = self.text(name)
        if not raw:
            return default
        if not (raw.isascii() and raw.isdigit()) or int(raw) < low:
            raise ConfigError(f"{name} must be whole {unit} (at least {low}), got {raw!r}")
        return int(raw)

    def number(self, name: str, default: float, unit: str) -> float:
        raw = self.text(name)
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not value > 0 or value == float("inf"):
            raise ConfigError(f"{name} must be a positive number of {unit}, got {raw!r}")
        return value

    def choice(self, name: str, default: str, allowed: tuple[str, ...]) -> str:
        raw = self.text(name, default).lower()
        if raw not in allowed:
            raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
        return raw


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
    model_timeout_s: float = DEFAULT_MODEL_TIMEOUT_S
    sync_interval_s: int = DEFAULT_SYNC_INTERVAL_S

    @classmethod
    def from_mapping(cls, env: Mapping[str, Any] | Any) -> Settings:
        read = _Reader(env)
        tokens = tuple(t for t in (read.text("SYNC_TOKEN"), read.text("SYNC_TOKEN_NEXT")) if t)
        return cls(
            sync_tokens=tokens,
            model_provider=read.choice("MODEL_PROVIDER", "offline", MODEL_PROVIDERS),
            openai_base_url=read.text("OPENAI_BASE_URL").rstrip("/"),
            openai_api_key=read.text("OPENAI_API_KEY"),
            openai_model=read.text("OPENAI_MODEL"),
            workers_ai_model=read.text("WORKERS_AI_MODEL", cls.workers_ai_model),
            model_timeout_s=read.number("MODEL_TIMEOUT_S", DEFAULT_MODEL_TIMEOUT_S, "seconds"),
            sync_interval_s=read.whole("SYNC_INTERVAL_S", DEFAULT_SYNC_INTERVAL_S, "seconds"),
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

    @classmethod
    def from_env(cls, env: Any) -> Runtime:
        """The Runtime of one Worker request, from its `env` (bindings, vars, secrets)."""
        from worker.db.binding import D1Database

        return cls(db=D1Database(getattr(env, "DB", None)), settings=Settings.from_mapping(env),
                   ai=getattr(env, "AI", None))

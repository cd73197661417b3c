"""Settings and the per-request Runtime (database port, model provider, clock).

In production the Runtime is built from the Worker's `env` (bindings, vars, secrets) by
`Runtime.from_env`; the local server builds one from environment variables and
`.dev.vars` and hands it to the app through `scope["env"]`, exactly where the Workers
ASGI adapter puts `env`. A malformed setting is a ConfigError that names the key and the
value it got (worker/settings_reader.py), never a secret's value.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from shared.api.protocol import DEFAULT_SYNC_INTERVAL_S
from worker.db import Database
from worker.recall.modes import DEFAULT_WITH_EMBEDDER, RetrievalMode
from worker.security.hosts import loopback_only
from worker.semantic.semantics import Semantics, from_bindings
from worker.settings_reader import AccessConfig, Reader

MODEL_PROVIDERS = ("offline", "openai", "workers-ai")
RETRIEVAL_MODES = ("lexical", "hybrid", "adaptive", "quality")
DEFAULT_MODEL_TIMEOUT_S = 60.0
MAX_MODEL_TIMEOUT_S = 600.0
MAX_SYNC_INTERVAL_S = 7 * 86_400
# Chats cost model time (money, with Workers AI); searches only D1 reads. A person types
# far below either; a script that loops is what these stop (the probe measured 114 chats/s).
DEFAULT_CHAT_PER_MINUTE = 20
DEFAULT_SEARCH_PER_MINUTE = 120
MAX_PER_MINUTE = 100_000
EDGE_WITHOUT_SEMANTICS = ("the Worker does not have both the AI and VECTORS bindings "
                          "(README: Workers AI and Vectorize)")

__all__ = ["AccessConfig", "OwnerAuth", "Runtime", "Settings"]


class OwnerAuth(Enum):
    """How owner routes are authenticated, in order of precedence."""

    ACCESS = "access"  # ACCESS_TEAM_DOMAIN + ACCESS_AUD: a Cloudflare Access JWT
    OWNER_TOKEN = "owner_token"  # OWNER_TOKEN: bearer header or the login cookie
    LOCAL_OWNER = "local_owner"  # `mallory serve` on a loopback address, loopback hosts
    NONE = "none"  # nothing configured: owner routes refuse (fail closed)


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
    access: AccessConfig | None = None
    owner_token: str = ""
    # Set only by `mallory serve` bound to a loopback address (and by tests); never read
    # from the environment, so no deployed Worker can be switched into it by a variable.
    # It applies only while `allowed_hosts` is loopback-only (see owner_auth).
    local_owner: bool = False
    # Host names the app answers for ("*" or empty: any). `mallory serve` fills in the
    # loopback names against DNS rebinding; at the edge Cloudflare routes by hostname.
    allowed_hosts: tuple[str, ...] = ()
    chat_per_minute: int = DEFAULT_CHAT_PER_MINUTE
    search_per_minute: int = DEFAULT_SEARCH_PER_MINUTE
    # RETRIEVAL_MODE; "" means the default: modes.DEFAULT_WITH_EMBEDDER when an embedder
    # is set up (Workers AI bound at the edge, the optional local stack locally), else
    # lexical.
    retrieval_mode: str = ""
    # OWNER_TIMEZONE: the IANA zone time words are read in ("yesterday" starts at the
    # owner's midnight); "": the zone the client sends with each message, else UTC
    # (shared/time/zones.py).
    owner_timezone: str = ""

    @property
    def lexical_only(self) -> bool:
        """RETRIEVAL_MODE=lexical: no model is loaded and nothing is embedded."""
        return self.retrieval_mode == RetrievalMode.LEXICAL.value

    @property
    def owner_auth(self) -> OwnerAuth:
        if self.access is not None:
            return OwnerAuth.ACCESS
        if self.owner_token:
            return OwnerAuth.OWNER_TOKEN
        # A wider host list lets a DNS-rebinding page (its own name pointed at 127.0.0.1)
        # through the Host check, so the connection being local proves nothing.
        if self.local_owner and loopback_only(self.allowed_hosts):
            return OwnerAuth.LOCAL_OWNER
        return OwnerAuth.NONE

    @classmethod
    def from_mapping(cls, env: Mapping[str, Any] | Any) -> Settings:
        read = Reader(env)
        tokens = tuple(t for t in (read.text("SYNC_TOKEN"), read.text("SYNC_TOKEN_NEXT")) if t)
        return cls(
            sync_tokens=tokens,
            model_provider=read.choice("MODEL_PROVIDER", "offline", MODEL_PROVIDERS),
            openai_base_url=read.text("OPENAI_BASE_URL").rstrip("/"),
            openai_api_key=read.text("OPENAI_API_KEY"),
            openai_model=read.text("OPENAI_MODEL"),
            workers_ai_model=read.text("WORKERS_AI_MODEL", cls.workers_ai_model),
            model_timeout_s=read.number("MODEL_TIMEOUT_S", DEFAULT_MODEL_TIMEOUT_S, "seconds",
                                        1, MAX_MODEL_TIMEOUT_S),
            sync_interval_s=read.whole("SYNC_INTERVAL_S", DEFAULT_SYNC_INTERVAL_S, "seconds",
                                       1, MAX_SYNC_INTERVAL_S),
            access=read.access(),
            owner_token=read.text("OWNER_TOKEN"),
            allowed_hosts=read.hosts(),
            chat_per_minute=read.whole("RATE_LIMIT_CHAT_PER_MINUTE", DEFAULT_CHAT_PER_MINUTE,
                                       "requests", 1, MAX_PER_MINUTE),
            search_per_minute=read.whole("RATE_LIMIT_SEARCH_PER_MINUTE",
                                         DEFAULT_SEARCH_PER_MINUTE, "requests", 1,
                                         MAX_PER_MINUTE),
            retrieval_mode=read.choice("RETRIEVAL_MODE", "", ("", *RETRIEVAL_MODES)),
            owner_timezone=read.time_zone("OWNER_TIMEZONE"),
        )


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Runtime:
    db: Database
    settings: Settings = field(default_factory=Settings)
    ai: Any = None  # the Workers AI binding, in production
    clock: Callable[[], int] = wall_clock_ms
    semantics: Semantics | None = None  # embedder + vector index (+ reranker), if set up
    # Runs vector indexing after a write without holding up the answer: waitUntil at the
    # edge, a background task locally. None: index inline (tests, benchmarks).
    schedule: Callable[[Coroutine[Any, Any, Any]], None] | None = None
    # Index note units in the sync request itself (the edge: Workers AI is quick and the
    # hub waits); locally the background task does it, the embedder being slow on a CPU.
    index_notes_inline: bool = False
    # Why `semantics` is None, in words for /status (nothing installed or bound, or a
    # vector index that could not be opened); None when nothing needs saying.
    semantic_problem: str | None = None
    # The Workers assets binding (wrangler.toml `[assets]`), which serves the web client
    # at the edge (worker/assets.py); None locally, where worker/static is read from disk.
    assets: Any = None

    def now_ms(self) -> int:
        return self.clock()

    @property
    def mode(self) -> RetrievalMode:
        if self.settings.retrieval_mode:
            return RetrievalMode(self.settings.retrieval_mode)
        return DEFAULT_WITH_EMBEDDER if self.semantics else RetrievalMode.LEXICAL

    @classmethod
    def from_env(cls, env: Any) -> Runtime:
        """The Runtime of one Worker request, from its `env` (bindings, vars, secrets)."""
        from worker.db.binding import D1Database

        ai = getattr(env, "AI", None)
        settings = Settings.from_mapping(env)
        semantics = None if settings.lexical_only else from_bindings(
            ai, getattr(env, "VECTORS", None))
        return cls(db=D1Database(getattr(env, "DB", None)), settings=settings, ai=ai,
                   semantics=semantics, schedule=_wait_until, index_notes_inline=True,
                   assets=getattr(env, "ASSETS", None),
                   semantic_problem=None if semantics or settings.lexical_only
                   else EDGE_WITHOUT_SEMANTICS)


def _wait_until(work: Coroutine[Any, Any, Any]) -> None:
    """Hand work to the Workers runtime's waitUntil (it outlives the response)."""
    from workers import wait_until  # type: ignore[import-not-found]

    wait_until(work)

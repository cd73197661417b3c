"""Settings and the per-request Runtime (database port, model provider, clock).

In production the Runtime is built from the Worker's `env` (bindings, vars, secrets); the
local server builds one from environment variables and `.dev.vars` and hands it to the
app through `scope["env"]`, exactly where the Workers ASGI adapter puts `env`.
A malformed setting raises ConfigError naming the key and the bad value (never a secret's).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from shared.errors import ConfigError
from worker.db import Database

DEFAULT_SYNC_INTERVAL_S = 15 * 60
# Chats cost model time (money, with Workers AI); searches only D1 reads. A person types
# far below either; a script that loops is what these stop (the probe measured 114 chats/s).
DEFAULT_CHAT_PER_MINUTE = 20
DEFAULT_SEARCH_PER_MINUTE = 120
MAX_PER_MINUTE = 100_000
_HOSTNAME = re.compile(r"(?=.{1,253}\Z)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+"
                       r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_AUD = re.compile(r"[\x21-\x7e]{1,200}")


class OwnerAuth(Enum):
    """How owner routes are authenticated, in order of precedence."""

    ACCESS = "access"            # ACCESS_TEAM_DOMAIN + ACCESS_AUD: a Cloudflare Access JWT
    OWNER_TOKEN = "owner_token"  # OWNER_TOKEN: bearer header or the login cookie
    LOCAL_OWNER = "local_owner"  # `mallory serve` on a loopback address
    NONE = "none"                # nothing configured: owner routes refuse (fail closed)


@dataclass(frozen=True)
class AccessConfig:
    team_domain: str  # e.g. "myteam.cloudflareaccess.com"
    aud: str          # the Access application's AUD tag

    @property
    def issuer(self) -> str:
        return f"https://{self.team_domain}"

    @property
    def certs_url(self) -> str:
        return f"{self.issuer}/cdn-cgi/access/certs"


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
    access: AccessConfig | None = None
    owner_token: str = ""
    # Set only by `mallory serve` bound to a loopback address (and by tests); never read
    # from the environment, so no deployed Worker can be switched into it by a variable.
    local_owner: bool = False
    # Host names the app answers for ("*" or empty: any). `mallory serve` fills in the
    # loopback names against DNS rebinding; at the edge Cloudflare routes by hostname.
    allowed_hosts: tuple[str, ...] = ()
    chat_per_minute: int = DEFAULT_CHAT_PER_MINUTE
    search_per_minute: int = DEFAULT_SEARCH_PER_MINUTE

    @property
    def owner_auth(self) -> OwnerAuth:
        if self.access is not None:
            return OwnerAuth.ACCESS
        if self.owner_token:
            return OwnerAuth.OWNER_TOKEN
        return OwnerAuth.LOCAL_OWNER if self.local_owner else OwnerAuth.NONE

    @classmethod
    def from_mapping(cls, env: Mapping[str, Any] | Any) -> Settings:
        def get(name: str, default: str = "") -> str:
            value = env.get(name) if isinstance(env, Mapping) else getattr(env, name, None)
            return str(value).strip() if value not in (None, "") else default

        tokens = tuple(t for t in (get("SYNC_TOKEN"), get("SYNC_TOKEN_NEXT")) if t)
        return cls(
            sync_tokens=tokens,
            model_provider=get("MODEL_PROVIDER", "offline").lower(),
            openai_base_url=get("OPENAI_BASE_URL").rstrip("/"),
            openai_api_key=get("OPENAI_API_KEY"),
            openai_model=get("OPENAI_MODEL"),
            workers_ai_model=get("WORKERS_AI_MODEL", cls.workers_ai_model),
            model_timeout_s=_number("MODEL_TIMEOUT_S", get("MODEL_TIMEOUT_S", "60"), 1, 600),
            sync_interval_s=int(_number("SYNC_INTERVAL_S",
                                        get("SYNC_INTERVAL_S", str(DEFAULT_SYNC_INTERVAL_S)),
                                        1, 7 * 86_400, whole=True)),
            access=access_config(get("ACCESS_TEAM_DOMAIN"), get("ACCESS_AUD")),
            owner_token=get("OWNER_TOKEN"),
            allowed_hosts=parse_hosts(get("ALLOWED_HOSTS")),
            chat_per_minute=int(_number("RATE_LIMIT_CHAT_PER_MINUTE",
                                        get("RATE_LIMIT_CHAT_PER_MINUTE",
                                            str(DEFAULT_CHAT_PER_MINUTE)),
                                        1, MAX_PER_MINUTE, whole=True)),
            search_per_minute=int(_number("RATE_LIMIT_SEARCH_PER_MINUTE",
                                          get("RATE_LIMIT_SEARCH_PER_MINUTE",
                                              str(DEFAULT_SEARCH_PER_MINUTE)),
                                          1, MAX_PER_MINUTE, whole=True)),
        )


def _number(key: str, raw: str, low: float, high: float, whole: bool = False) -> float:
    pattern = r"[0-9]{1,9}" if whole else r"[0-9]{1,9}(\.[0-9]{1,6})?"
    if not re.fullmatch(pattern, raw) or not low <= float(raw) <= high:
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"setting {key} must be {kind} from {low:g} to {high:g}, "
                          f"got {raw[:60]!r}")
    return float(raw)


def access_config(team_domain: str, aud: str) -> AccessConfig | None:
    """Both ACCESS_TEAM_DOMAIN and ACCESS_AUD, or neither; one alone is an error, since a
    half-configured Access would otherwise silently leave the owner routes without it."""
    if not team_domain and not aud:
        return None
    if not aud:
        raise ConfigError("setting ACCESS_AUD is missing: ACCESS_TEAM_DOMAIN is set, and "
                          "Cloudflare Access needs both (the AUD tag is on the Access "
                          "application's overview page)")
    if not team_domain:
        raise ConfigError("setting ACCESS_TEAM_DOMAIN is missing: ACCESS_AUD is set, and "
                          "Cloudflare Access needs both (e.g. myteam.cloudflareaccess.com)")
    host = team_domain.lower().removeprefix("https://").rstrip("/")
    if not _HOSTNAME.fullmatch(host):
        raise ConfigError("setting ACCESS_TEAM_DOMAIN must be a host name such as "
                          f"myteam.cloudflareaccess.com, got {team_domain[:100]!r}")
    if not _AUD.fullmatch(aud):
        raise ConfigError(f"setting ACCESS_AUD must be the application's AUD tag (no spaces), "
                          f"got {aud[:100]!r}")
    return AccessConfig(team_domain=host, aud=aud)


def parse_hosts(raw: str) -> tuple[str, ...]:
    """ALLOWED_HOSTS: comma-separated host names (no ports); "*" allows any."""
    hosts = tuple(h.strip().lower() for h in raw.split(",") if h.strip())
    for host in hosts:
        if host != "*" and not re.fullmatch(r"[a-z0-9.\-\[\]:]{1,253}", host):
            raise ConfigError(f"setting ALLOWED_HOSTS holds an invalid host name {host[:100]!r};"
                              " list names like localhost,mallory.lan separated by commas")
    return hosts


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

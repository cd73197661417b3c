"""Rate limits on chat and search: 429 with Retry-After (the owner-token sign-in has its
own, per client: worker/security/signin_limit.py).

At the edge the Workers Rate Limiting bindings count (wrangler.toml `[[ratelimits]]`,
`limit({key})` → `{success}`; limits live there). Elsewhere, or when a binding is absent,
a token bucket per key in this process counts, sized by RATE_LIMIT_*_PER_MINUTE.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared.api.errors import TooManyRequests
from worker.config import Settings

log = logging.getLogger("mallory.ratelimit")

# (method, path) → the limit's name.
LIMITED_ROUTES = {("POST", "/api/chat"): "chat", ("GET", "/api/search"): "search",
                  # The inspector searches as /api/search does (worker/routes/inspect.py).
                  ("GET", "/api/inspect/search"): "search",
                  ("GET", "/api/inspect/missing"): "search"}
# The limit's name → the Workers binding (wrangler.toml) that counts it at the edge.
BINDINGS = {"chat": "CHAT_RATE_LIMITER", "search": "SEARCH_RATE_LIMITER"}
# The binding's period (wrangler.toml simple.period): it reports no wait, so this is it.
EDGE_PERIOD_S = 60
MAX_KEYS = 10_000


def per_minute(name: str, settings: Settings) -> int:
    return {"chat": settings.chat_per_minute, "search": settings.search_per_minute}[name]


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """One bucket per key: holds up to a minute's allowance, refills continuously."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, per_min: int) -> float | None:
        """Take one token; None when allowed, else the seconds until one is available."""
        now, rate = self.clock(), per_min / 60
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_KEYS:
                self._buckets.pop(next(iter(self._buckets)))
            bucket = self._buckets[key] = _Bucket(tokens=float(per_min), updated=now)
        bucket.tokens = min(float(per_min), bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        return (1 - bucket.tokens) / rate


def _refuse(name: str, retry_after_s: float) -> TooManyRequests:
    wait = max(1, math.ceil(retry_after_s))
    return TooManyRequests(f"too many {name} requests; try again in {wait} s",
                           code="rate_limited", headers={"retry-after": str(wait)})


async def _edge_allows(binding: Any, key: str) -> bool:
    from worker.db.binding import to_py
    from worker.ffi import js_arg

    try:
        outcome = to_py(await binding.limit(js_arg(binding, {"key": key})))
    except Exception:  # a limiter outage must not lock the owner out; auth still holds
        log.exception("the rate-limiting binding failed; letting the request through")
        return True
    return bool(outcome.get("success")) if isinstance(outcome, dict) else True


async def enforce(name: str, identity: str, settings: Settings, env: Any,
                  buckets: TokenBuckets) -> None:
    key = f"{name}:{identity}"
    binding = getattr(env, BINDINGS[name], None) if name in BINDINGS else None
    if binding is not None and hasattr(binding, "limit"):
        if not await _edge_allows(binding, key):
            raise _refuse(name, EDGE_PERIOD_S)
        return
    wait = buckets.take(key, per_minute(name, settings))
    if wait is not None:
        raise _refuse(name, wait)

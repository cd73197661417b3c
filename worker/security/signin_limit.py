"""The sign-in limiter (`POST /owner/login`): per client, so a stranger's wrong guesses
cannot lock the owner out, and bounded across all clients against distributed guessing.

- Each client (its address: CF-Connecting-IP at the edge, the socket's peer locally) has
  its own bucket of PER_CLIENT_PER_MINUTE attempts.
- Clients that have not signed in here before also share one bucket of
  ALL_CLIENTS_PER_MINUTE: many addresses guessing at once run it dry and wait.
- A client that signed in here before (the last KNOWN_CLIENTS of them, kept in memory)
  skips the shared bucket, so the owner's own browser still gets through while it is dry.
  Bearer-token scripts never sign in, and are not limited here.

At the edge the buckets live in the isolate (sign-in is rare and the Rate Limiting
bindings are for chat and search); an isolate restart empties them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from shared.api.errors import TooManyRequests
from worker.security.ratelimit import TokenBuckets

PER_CLIENT_PER_MINUTE = 10
ALL_CLIENTS_PER_MINUTE = 60
KNOWN_CLIENTS = 1_000
EDGE_CLIENT_HEADER = "cf-connecting-ip"


def client_of(scope: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The client's address. The Workers adapter gives no peer address, and Cloudflare
    sets CF-Connecting-IP itself (replacing any a client sent); locally the peer is the
    socket's, and a CF-Connecting-IP header from the client is not believed."""
    client = scope.get("client")
    if client:
        return str(client[0])
    return headers.get(EDGE_CLIENT_HEADER, "").strip()[:64] or "unknown"


def _refuse(message: str, wait_s: float) -> TooManyRequests:
    wait = max(1, int(wait_s + 0.999))
    return TooManyRequests(f"{message}; try again in {wait} s", code="rate_limited",
                           headers={"retry-after": str(wait)})


class SignInLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.buckets = TokenBuckets(clock)
        self._known: OrderedDict[str, None] = OrderedDict()

    def check(self, client: str) -> None:
        """Take an attempt for `client`, or raise TooManyRequests (429, Retry-After)."""
        wait = self.buckets.take(f"client:{client}", PER_CLIENT_PER_MINUTE)
        if wait is not None:
            raise _refuse("too many sign-in attempts from this address", wait)
        if client in self._known:
            return
        wait = self.buckets.take("all-new-clients", ALL_CLIENTS_PER_MINUTE)
        if wait is not None:
            raise _refuse("too many sign-in attempts from new addresses at once (a browser "
                          "that signed in here before still can)", wait)

    def signed_in(self, client: str) -> None:
        self._known[client] = None
        self._known.move_to_end(client)
        while len(self._known) > KNOWN_CLIENTS:
            self._known.popitem(last=False)

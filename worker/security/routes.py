"""Which protection a request gets, decided from its method and normalised path alone."""

from __future__ import annotations

from enum import Enum

# The hub's routes: SYNC_TOKEN (and Access, when configured at the edge).
HUB_PREFIX = "/vault"
# The owner's routes: every one needs owner authentication. `/openapi.json` describes
# the owner's API (DESIGN.md §7), so it sits behind the same lock.
OWNER_PREFIXES = ("/api",)
OWNER_PATHS = ("/status", "/openapi.json", "/mcp")
# The owner-token login form posts here (local serve on a non-loopback address).
LOGIN_PATH = "/owner/login"
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})


class RouteClass(Enum):
    HUB = "hub"
    OWNER = "owner"
    LOGIN = "login"
    PUBLIC = "public"  # the web client's static files


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def classify(method: str, path: str) -> RouteClass:
    """Fail closed: anything that is not a hub route, the login form or a read of a static
    file is an owner route, so a route added later is never served unauthenticated."""
    if _under(path, HUB_PREFIX):
        return RouteClass.HUB
    if path == LOGIN_PATH:
        return RouteClass.LOGIN
    if any(_under(path, p) for p in OWNER_PREFIXES) or path in OWNER_PATHS:
        return RouteClass.OWNER
    return RouteClass.PUBLIC if method.upper() in READ_ONLY else RouteClass.OWNER

"""What the Worker entry checks from the method, URL and headers alone, before
`asgi.fetch`: the Workers ASGI adapter buffers the whole body before the app runs, so an
unauthenticated or oversized upload must be refused here. The path is normalised first,
exactly as the middleware normalises it for the router (worker.security.paths)."""

from __future__ import annotations

from collections.abc import Mapping

from shared.api.limits import (
    IMPORT_PATH,
    MAX_IMPORT_BODY_BYTES,
    MAX_OWNER_BODY_BYTES,
    check_declared_size,
)
from worker.auth import precheck_hub_request
from worker.config import Settings
from worker.security.login import MAX_LOGIN_BODY_BYTES
from worker.security.owner import require_credentials
from worker.security.paths import normalise_path
from worker.security.routes import RouteClass, classify


def precheck_request(method: str, raw_path: str, headers: Mapping[str, str],
                     settings: Settings) -> None:
    path = normalise_path(raw_path)
    route = classify(method, path)
    if route is RouteClass.HUB:
        precheck_hub_request(path, headers, settings.sync_tokens)
    elif route is RouteClass.OWNER:
        require_credentials(headers, settings)
        # An import's file is larger than any other owner body, and its route reads it
        # within its own limit.
        check_declared_size(headers.get("content-length"), MAX_IMPORT_BODY_BYTES
                            if path == IMPORT_PATH else MAX_OWNER_BODY_BYTES)
    elif route is RouteClass.LOGIN:
        check_declared_size(headers.get("content-length"), MAX_LOGIN_BODY_BYTES)

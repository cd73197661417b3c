"""HTTP helpers shared by the routes: the Runtime of a request, the error response,
query parameters and bodies."""

from __future__ import annotations

import logging
import re
from collections.abc import MutableMapping
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse

from shared.api.errors import (
    BadRequest,
    InvalidPayload,
    MalloryError,
    PayloadTooLarge,
    error_body,
)
from shared.api.limits import check_declared_size
from worker.config import Runtime, Settings
from worker.db import DatabaseError

log = logging.getLogger("mallory.http")
# ASCII digits only: int() also takes "١٢", "1_000" and " 7 ", and raises on 5,000 digits.
ASCII_INT = re.compile(r"-?[0-9]{1,18}")


# Where a Worker request keeps what it built from `env`: the middleware parses the
# Settings for its checks, and the route's Runtime is built with those same Settings.
SETTINGS_KEY, RUNTIME_KEY = "mallory.settings", "mallory.runtime"


def runtime_of(scope: MutableMapping[str, Any]) -> Runtime:
    """The Runtime for this request: ready-made locally, built from `env` in a Worker the
    first time it is asked for, then kept in the scope."""
    env = scope.get("env")
    if isinstance(env, Runtime):
        return env
    kept = scope.get(RUNTIME_KEY)
    if isinstance(kept, Runtime):
        return kept
    if env is None:
        raise MalloryError("no env in the ASGI scope: run the app through worker.entry or "
                           "`mallory serve`")
    built = scope[RUNTIME_KEY] = Runtime.from_env(env, settings_of(scope))
    return built


def runtime(request: Request) -> Runtime:
    return runtime_of(request.scope)


def error_json(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    return JSONResponse(error_body(code, message, details), status_code=status)


def settings_of(scope: MutableMapping[str, Any]) -> Settings:
    """The Settings for a request: the local Runtime's, or parsed from the Worker's env
    once and kept in the scope. Without an env nothing is configured, so owner routes
    refuse (fail closed)."""
    env = scope.get("env")
    if env is None:
        return Settings()
    if isinstance(env, Runtime):
        return env.settings
    kept = scope.get(SETTINGS_KEY)
    if not isinstance(kept, Settings):
        kept = scope[SETTINGS_KEY] = Settings.from_mapping(env)
    return kept


def error_response(exc: Exception) -> JSONResponse:
    if isinstance(exc, MalloryError):
        if exc.status >= 500:
            log.error("%s: %s", exc.code, exc.message)
        return JSONResponse(exc.to_json(), status_code=exc.status, headers=exc.headers or None)
    if isinstance(exc, DatabaseError):
        log.error("database error: %s", exc)
        return error_json(503, "database_error", "the database failed; try again shortly")
    log.exception("unexpected error", exc_info=exc)
    return error_json(500, "internal_error", "unexpected server error")


def whole_number(name: str, raw: str, low: int, high: int) -> int:
    if not ASCII_INT.fullmatch(raw):
        raise BadRequest(f"{name} must be a whole number, got {raw[:40]!r}")
    value = int(raw)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, got {value}")
    return value


def check_query_names(request: Request, taken: tuple[str, ...], route: str) -> None:
    """422 naming every query parameter `route` does not take (`taken`), as an unknown
    body field is: a misspelt `limt=5` is never silently the default."""
    unknown = [name for name in request.query_params if name not in taken]
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown)
        raise InvalidPayload(
            f"{route} takes no query parameter {names}; it takes {', '.join(taken)}",
            [{"item": None, "field": name[:40], "message": f"not a query parameter of {route}"}
             for name in unknown], code="unknown_query_parameter")


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    return whole_number(name, raw, low, high)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it passes `limit` bytes."""
    check_declared_size(request.headers.get("content-length"), limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def json_ok(model: BaseModel, status: int = 200) -> JSONResponse:
    """A success response: a wire model of shared/api/wire.py (or a request model the
    Worker echoes), rendered by its aliases ("from", not "from_")."""
    return JSONResponse(model.model_dump(mode="json", by_alias=True), status_code=status)

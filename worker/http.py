"""HTTP helpers shared by the routes: the JSON error shape, query parameters, bodies."""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from shared.errors import BadRequest, MalloryError, PayloadTooLarge
from shared.limits import check_declared_size
from worker.config import Runtime, Settings
from worker.db import DatabaseError

log = logging.getLogger("mallory.http")
ASCII_INT = re.compile(r"-?[0-9]{1,18}")


def runtime(request: Request) -> Runtime:
    """The Runtime for this request: ready-made locally, built from `env` in a Worker."""
    env = request.scope.get("env")
    if isinstance(env, Runtime):
        return env
    if env is None:
        raise MalloryError("no env in the ASGI scope: run the app through worker.entry or "
                           "`mallory serve`")
    from worker.db.binding import D1Database

    return Runtime(db=D1Database(getattr(env, "DB", None)), settings=Settings.from_mapping(env),
                   ai=getattr(env, "AI", None))


def settings_of(scope: Any) -> Settings:
    """The Settings for a request: the local Runtime's, or parsed from the Worker's env.
    Without an env nothing is configured, so owner routes refuse (fail closed)."""
    env = scope.get("env")
    if isinstance(env, Runtime):
        return env.settings
    return Settings() if env is None else Settings.from_mapping(env)


def error_response(exc: Exception) -> JSONResponse:
    if isinstance(exc, MalloryError):
        return JSONResponse(exc.to_json(), status_code=exc.status, headers=exc.headers or None)
    if isinstance(exc, DatabaseError):
        log.error("database error: %s", exc)
        return JSONResponse({"error": {"code": "database_error",
                                       "message": "the database failed; try again shortly"}},
                            status_code=503)
    log.exception("unexpected error", exc_info=exc)
    return JSONResponse({"error": {"code": "internal_error",
                                   "message": "unexpected server error"}}, status_code=500)


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    # ASCII digits only: int() also takes "١٢", "1_000" and " 7 ", and raises on 5,000.
    if not ASCII_INT.fullmatch(raw):
        raise BadRequest(f"{name} must be a whole number, got {raw[:40]!r}")
    value = int(raw)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, got {value}")
    return value


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


def json_ok(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status)

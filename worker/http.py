"""HTTP helpers shared by the routes: the Runtime of a request, the error response,
query parameters and bodies."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

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
    """400 for a query string that is not valid percent-encoded UTF-8, and 422 naming
    every query parameter `route` does not take (`taken`), as an unknown body field is,
    or that is given twice: a misspelt `limt=5` is never silently the default, and of
    `q=a&q=b` neither is silently dropped."""
    _check_query_encoding(request.scope.get("query_string", b""))
    given = Counter(name for name, _ in request.query_params.multi_items())
    repeated = sorted(name for name, n in given.items() if n > 1)
    if repeated:
        names = ", ".join(repr(name[:40]) for name in repeated)
        raise InvalidPayload(
            f"{route} takes each query parameter once; {names} is given more than once",
            [{"item": None, "field": name[:40], "message": "given more than once"}
             for name in repeated], code="repeated_query_parameter")
    unknown = [name for name in request.query_params if name not in taken]
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown)
        raise InvalidPayload(
            f"{route} takes no query parameter {names}; it takes {', '.join(taken)}",
            [{"item": None, "field": name[:40], "message": f"not a query parameter of {route}"}
             for name in unknown], code="unknown_query_parameter")


# A "%" that does not start an escape of two hex digits.
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def _check_query_encoding(raw: bytes) -> None:
    """400 unless the query string is percent-encoded UTF-8: Starlette reads "%ZZ" as the
    three characters and a cut UTF-8 sequence as U+FFFD, so what was searched is not
    what was sent."""
    bad = _BAD_ESCAPE.search(raw)
    if bad:
        raise BadRequest(f"the query string has a '%' at byte {bad.start()} that starts no "
                         "escape (%XX, two hex digits); encode a literal % as %25",
                         code="bad_query_encoding")
    try:
        for part in raw.replace(b"+", b" ").split(b"&"):
            unquote_to_bytes(part).decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the query string's percent escapes are not UTF-8",
                         code="bad_query_encoding") from None


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

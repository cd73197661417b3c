"""The Worker's ASGI app (Starlette): the same app runs in a Python Worker and locally."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount

from shared.api.errors import MalloryError
from worker.assets import Assets
from worker.db import DatabaseError
from worker.http import error_json, error_response
from worker.openapi import route as openapi
from worker.routes import (
    archive,
    chat,
    conversations,
    feedback,
    inspect,
    manage,
    mcp,
    memories,
    pause,
    search,
    status,
    vault,
)
from worker.security import login
from worker.security.middleware import SecurityMiddleware
from worker.security.redact import install_log_redaction

STATIC_DIR = Path(__file__).with_name("static")
ROUTES: list[BaseRoute] = [
    *search.routes, *chat.routes, *feedback.routes, *conversations.routes, *manage.routes,
    *status.routes, *vault.routes, *login.routes, *openapi.routes, *archive.routes,
    *mcp.routes, *inspect.routes, *pause.routes,
    *memories.routes,
]
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return error_json(exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"),
                      f"{exc.detail}: {request.method} {request.url.path}")


async def _error(request: Request, exc: Exception) -> JSONResponse:
    return error_response(exc)


def create_app(serve_static: bool = False,
               clock: Callable[[], float] = time.monotonic) -> SecurityMiddleware:
    """The app, inside the security middleware (worker/security). Paths no route serves
    go to the web client's files: the ASSETS binding when the env has one (the edge),
    worker/static from disk when run locally with `serve_static=True`, else a JSON 404
    (worker/assets.py). `clock` (seconds) drives the local rate limiter."""
    install_log_redaction()
    routes = [*ROUTES, Mount("/", app=Assets(STATIC_DIR if serve_static else None))]
    starlette = Starlette(routes=routes, exception_handlers={
        HTTPException: _http_exception, MalloryError: _error, DatabaseError: _error,
        Exception: _error})
    return SecurityMiddleware(starlette, clock=clock)


app = create_app()

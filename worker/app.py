"""The Worker's ASGI app (Starlette): the same app runs in a Python Worker and locally."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from shared.api.errors import MalloryError
from worker.assets import Assets
from worker.db import DatabaseError
from worker.http import check_query_names, error_json, error_response
from worker.openapi import route as openapi
from worker.openapi.operations import OPERATIONS
from worker.openapi.params import parameter_names
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


def _taking_only_their_parameters(routes: list[BaseRoute]) -> list[BaseRoute]:
    """`routes`, each one that takes query parameters (its operation's `query` model,
    worker/openapi/operations.py) answering 422 for a name it does not take, before its
    handler runs: the one description of a route's parameters is also the one check."""
    taken = {(op.method, op.path): parameter_names(op.query)
             for op in OPERATIONS if op.query is not None}
    checked: list[BaseRoute] = []
    for route in routes:
        names = [(method, taken[method, route.path]) for method in route.methods or ()
                 if (method, route.path) in taken] if isinstance(route, Route) else []
        if not names:
            checked.append(route)
            continue
        assert isinstance(route, Route) and len(names) == 1, route  # one method a route
        [(method, allowed)] = names
        checked.append(Route(route.path, _refusing_others(route.endpoint, allowed,
                                                          f"{method} {route.path}"),
                             methods=route.methods, name=route.name,
                             include_in_schema=route.include_in_schema))
    return checked


def _refusing_others(endpoint: Callable[[Request], Awaitable[Response]],
                     allowed: tuple[str, ...], where: str
                     ) -> Callable[[Request], Awaitable[Response]]:
    async def checked(request: Request) -> Response:
        check_query_names(request, allowed, where)
        return await endpoint(request)

    return checked


class _MethodsOf:
    """An ASGI app in front of the web client's files: a path a route serves, asked with
    another method, is a 405 naming the methods it takes (Starlette would hand it to the
    catch-all mount, which answers 404)."""

    def __init__(self, routes: list[BaseRoute], inner: ASGIApp) -> None:
        self.routes, self.inner = routes, inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        allowed = sorted({m for r in self.routes if isinstance(r, Route) and r.methods
                          and r.matches(scope)[0] is Match.PARTIAL for m in r.methods}
                         ) if scope["type"] == "http" else []
        if not allowed:
            await self.inner(scope, receive, send)
            return
        response = error_json(405, "method_not_allowed",
                              f"{scope['method']} {scope['path']} is not served; it takes "
                              f"{', '.join(allowed)}")
        response.headers["allow"] = ", ".join(allowed)
        await response(scope, receive, send)


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
    routes = [*_taking_only_their_parameters(ROUTES),
              Mount("/", app=_MethodsOf(ROUTES, Assets(STATIC_DIR if serve_static
                                                        else None)))]
    starlette = Starlette(routes=routes, exception_handlers={
        HTTPException: _http_exception, MalloryError: _error, DatabaseError: _error,
        Exception: _error})
    return SecurityMiddleware(starlette, clock=clock)


app = create_app()

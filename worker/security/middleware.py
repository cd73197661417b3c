"""The ASGI middleware around the app: every request passes here before routing.

Order: canonical path (the router sees what the entry prechecked) → Host allow-list →
by route class: owner authentication, CSRF (for credentials a browser attaches by
itself) and rate limits for owner routes, same-origin form posts for the login, and in
owner-token mode a browser that is not signed in is sent from the web client to the
sign-in page; hub routes keep their SYNC_TOKEN check in the handlers (and in
the entry, before the body is read). Security headers go on every response, errors too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from shared.api.errors import MalloryError
from worker.config import Settings
from worker.http import error_response, settings_of
from worker.mcp import rpc
from worker.security import csrf, ratelimit
from worker.security.access import JWKS, JwksCache
from worker.security.headers import NO_STORE, SECURITY_HEADERS, adding_headers
from worker.security.hosts import check_host
from worker.security.login import login_redirect
from worker.security.owner import OWNER_COOKIE, authenticate_owner, by_bearer
from worker.security.paths import normalise_path
from worker.security.routes import STATE_CHANGING, RouteClass, classify
from worker.security.signin_limit import SignInLimiter, client_of


def _raw_path(scope: Scope) -> str:
    raw = scope.get("raw_path")
    return raw.split(b"?", 1)[0].decode("latin-1") if raw else scope.get("path", "/")


class SecurityMiddleware:
    def __init__(self, app: Any, *, jwks: JwksCache = JWKS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app, self.jwks = app, jwks
        self.buckets = ratelimit.TokenBuckets(clock)
        self.signin = SignInLimiter(clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = adding_headers(send, SECURITY_HEADERS)
        path = None
        try:
            path = normalise_path(_raw_path(scope))
            scope = {**scope, "path": path, "raw_path": path.encode()}
            route = classify(scope["method"], path)
            if route is RouteClass.OWNER:
                send = adding_headers(send, NO_STORE)
            await self._check(scope, route)
        except MalloryError as exc:
            await self._refusal(exc, path)(scope, receive, send)
            return
        redirect = login_redirect(scope, Headers(scope=scope), route)
        if redirect is not None:
            await redirect(scope, receive, send)
            return
        if route is RouteClass.LOGIN:
            send = self._noting_sign_in(client_of(scope, Headers(scope=scope)), send)
        await self.app(scope, receive, send)

    @staticmethod
    def _refusal(exc: MalloryError, path: str | None) -> JSONResponse:
        """The app's error response; at the MCP endpoint, the same status and headers with
        a JSON-RPC error body (worker/mcp/rpc.refusal), which MCP clients show."""
        if path != rpc.PATH or exc.status >= 500:
            return error_response(exc)
        return JSONResponse(rpc.refusal(exc), status_code=exc.status,
                            headers=exc.headers or None)

    def _noting_sign_in(self, client: str, send: Send) -> Send:
        """Remember a client whose sign-in succeeded (the answer sets the owner cookie)."""
        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start" and any(
                    name.lower() == b"set-cookie" and value.startswith(OWNER_COOKIE.encode())
                    for name, value in message.get("headers", [])):
                self.signin.signed_in(client)
            await send(message)

        return noting

    async def _check(self, scope: Scope, route: RouteClass) -> None:
        headers, method = Headers(scope=scope), scope["method"].upper()
        settings = settings_of(scope)
        check_host(headers, settings.allowed_hosts)
        if route is RouteClass.OWNER:
            identity = await authenticate_owner(headers, settings, self.jwks)
            if method in STATE_CHANGING:
                # A bearer token needs no Origin (no page can send it by itself), but an
                # Origin it does carry must be this server's (MCP asks every server to
                # refuse foreign ones).
                if not by_bearer(headers, settings) or "origin" in headers:
                    csrf.check_same_origin(headers, self._origin(scope, headers))
                csrf.check_media_type(method, headers)
            await self._limit(scope, method, identity, settings)
        elif route is RouteClass.LOGIN and method in STATE_CHANGING:
            csrf.check_same_origin(headers, self._origin(scope, headers))
            csrf.check_media_type(method, headers, csrf.FORM)
            self.signin.check(client_of(scope, headers))

    async def _limit(self, scope: Scope, method: str, identity: str,
                     settings: Settings) -> None:
        name = ratelimit.LIMITED_ROUTES.get((method, scope["path"]))
        if name is not None:
            await ratelimit.enforce(name, identity, settings, scope.get("env"), self.buckets)

    @staticmethod
    def _origin(scope: Scope, headers: Headers) -> str:
        return csrf.origin_of(scope.get("scheme", "http"), headers.get("host", ""))

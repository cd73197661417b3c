"""Owner-token sign-in for the web client (`mallory serve` on a non-loopback address).

A browser cannot add an Authorization header to its own page loads, so `/login.html`
posts OWNER_TOKEN here once; the answer sets an HttpOnly, SameSite=Strict cookie holding
a MAC of the token (worker.security.owner.cookie_value) and sends the browser to `/`.
Scripts send `Authorization: Bearer <OWNER_TOKEN>` instead and never need this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from shared.api.errors import NotFound
from worker.config import OwnerAuth
from worker.http import read_body, settings_of
from worker.security.owner import OWNER_COOKIE, cookie_value, signed_in, token_matches
from worker.security.routes import LOGIN_PATH, RouteClass

MAX_LOGIN_BODY_BYTES = 4_096
COOKIE_MAX_AGE_S = 30 * 86_400
LOGIN_PAGE = "/login.html"
# The web client's page: a browser that opens it without signing in is sent to LOGIN_PAGE
# (its API calls would only get 401s). Scripts and the API keep their 401 JSON answers.
APP_PAGES = frozenset({"/", "/index.html"})


def login_redirect(scope: dict[str, Any], headers: Mapping[str, str],
                   route: RouteClass) -> RedirectResponse | None:
    """A 303 to the sign-in page for a browser opening the web client unsigned, in
    owner-token mode; None for anything else."""
    if (route is not RouteClass.PUBLIC or scope["method"].upper() not in ("GET", "HEAD")
            or scope["path"] not in APP_PAGES
            or "text/html" not in headers.get("accept", "").lower()):
        return None
    settings = settings_of(scope)
    if settings.owner_auth is not OwnerAuth.OWNER_TOKEN or signed_in(headers, settings):
        return None
    return RedirectResponse(LOGIN_PAGE, status_code=303)


async def login(request: Request) -> RedirectResponse:
    settings = settings_of(request.scope)
    if settings.owner_auth is not OwnerAuth.OWNER_TOKEN:
        raise NotFound("sign-in is only for owner-token mode (OWNER_TOKEN set, Access not)",
                       code="login_not_enabled")
    body = await read_body(request, MAX_LOGIN_BODY_BYTES)
    offered = parse_qs(body.decode("utf-8", "replace")).get("token", [""])[0].strip()
    if not offered or not token_matches(offered, settings.owner_token):
        return RedirectResponse(f"{LOGIN_PAGE}#wrong-token", status_code=303)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(OWNER_COOKIE, cookie_value(settings.owner_token),
                        max_age=COOKIE_MAX_AGE_S, path="/", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


routes = [Route(LOGIN_PATH, login, methods=["POST"])]

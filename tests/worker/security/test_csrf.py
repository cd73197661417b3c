"""CSRF: state-changing owner requests must be JSON from this site's own origin."""

from __future__ import annotations

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from tests.conftest import auth
from tests.rows import one
from tests.worker.security.conftest import configure
from worker.config import Runtime
from worker.security.csrf import origin_of
from worker.security.owner import OWNER_COOKIE

CHAT = b'{"content": "planted by another site"}'


async def stored(db: SqliteDatabase) -> int:
    return (await one(db.prepare("SELECT count(*) AS n FROM messages")))["n"]


@pytest.mark.parametrize("content_type", [
    "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", None, "application/json-patch+json", "text/json"])
async def test_non_json_bodies_are_415(client: httpx.AsyncClient, db: SqliteDatabase,
                                       content_type: str | None) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = await client.post("/api/chat", content=CHAT, headers=headers)
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "json_required"
    assert await stored(db) == 0


@pytest.mark.parametrize("headers", [
    {"origin": "http://evil.test"},
    {"origin": "null"},
    {"origin": "null", "sec-fetch-site": "cross-site"},   # a sandboxed frame elsewhere
    {"origin": "null", "sec-fetch-site": "none"},
    {"origin": "http://localhost.evil.test"},
    {"origin": "https://localhost"},          # another scheme is another origin
    {"origin": "http://localhost:8080"},      # another port too
    {"origin": None, "sec-fetch-site": "cross-site"},
    {"origin": None, "sec-fetch-site": "same-site"},
    {"origin": None},                            # says nothing about where it comes from
])
async def test_foreign_or_unknown_origins_are_403(client: httpx.AsyncClient, db: SqliteDatabase,
                                                  headers: dict) -> None:
    request = client.build_request("POST", "/api/chat", content=CHAT,
                                   headers={"content-type": "application/json"})
    for name, value in headers.items():
        if value is None:
            del request.headers[name]
        else:
            request.headers[name] = value
    response = await client.send(request)
    assert response.status_code == 403
    assert response.json()["error"]["code"] in ("cross_origin_request", "origin_required")
    assert await stored(db) == 0


@pytest.mark.parametrize("headers", [
    {"origin": "http://localhost"}, {"origin": "HTTP://LocalHost:80"},
    {"origin": None, "sec-fetch-site": "same-origin"},
    {"origin": None, "sec-fetch-site": "none"},
    {"origin": "null", "sec-fetch-site": "same-origin"},  # a form post under no-referrer
])
async def test_same_origin_json_is_accepted(client: httpx.AsyncClient, db: SqliteDatabase,
                                            headers: dict) -> None:
    request = client.build_request("POST", "/api/chat", content=CHAT,
                                   headers={"content-type": "application/json; charset=utf-8"})
    for name, value in headers.items():
        if value is None:
            del request.headers[name]
        else:
            request.headers[name] = value
    assert (await client.send(request)).status_code == 200
    assert await stored(db) == 2  # the owner's message and the answer


async def test_reads_need_no_origin(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/conversations", headers={"origin": "http://evil.test"})
    assert response.status_code == 200  # a cross-site read cannot see the answer (no CORS)
    assert "access-control-allow-origin" not in response.headers


async def test_a_bodiless_delete_needs_no_content_type_but_a_same_origin(
        client: httpx.AsyncClient) -> None:
    same = await client.delete("/api/messages/nope")
    assert same.status_code in (404, 405)  # reached the router
    cross = await client.delete("/api/messages/nope", headers={"origin": "http://evil.test"})
    assert cross.status_code == 403


@pytest.mark.parametrize(("scheme", "host", "origin"), [
    ("http", "127.0.0.1:8787", "http://127.0.0.1:8787"),
    ("https", "mallory.example.com:443", "https://mallory.example.com"),
    ("http", "[::1]:80", "http://[::1]"),
    ("http", "[::1]:8787", "http://[::1]:8787"),
])
def test_own_origin(scheme: str, host: str, origin: str) -> None:
    assert origin_of(scheme, host) == origin


async def test_a_bearer_token_needs_no_origin(client: httpx.AsyncClient, runtime: Runtime,
                                              db: SqliteDatabase) -> None:
    """A script with OWNER_TOKEN as a bearer sends no Origin: no browser adds that header by
    itself, so nothing is forged. The sign-in cookie still needs a same-origin request."""
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    request = client.build_request("POST", "/api/chat", content=CHAT,
                                   headers={"content-type": "application/json",
                                            **auth("s3cret-owner")})
    del request.headers["origin"]
    assert (await client.send(request)).status_code == 200
    assert await stored(db) == 2
    wrong = client.build_request("POST", "/api/chat", content=CHAT,
                                 headers={"content-type": "application/json", **auth("guess")})
    del wrong.headers["origin"]
    assert (await client.send(wrong)).status_code == 403
    as_text = client.build_request("POST", "/api/chat", content=CHAT,
                                   headers={"content-type": "text/plain",
                                            **auth("s3cret-owner")})
    assert (await client.send(as_text)).status_code == 415  # still JSON only

    signed_in = await client.post("/owner/login", data={"token": "s3cret-owner"})
    assert signed_in.status_code == 303 and client.cookies.get(OWNER_COOKIE)
    for headers in ({"origin": None}, {"origin": "http://evil.test"},
                    {"origin": None, "sec-fetch-site": "cross-site"}):
        cookie_only = client.build_request("POST", "/api/chat", content=CHAT,
                                           headers={"content-type": "application/json"})
        for name, value in headers.items():
            if value is None:
                del cookie_only.headers[name]
            else:
                cookie_only.headers[name] = value
        response = await client.send(cookie_only)
        assert response.status_code == 403, headers
        assert response.json()["error"]["code"] in ("cross_origin_request", "origin_required")
    assert await stored(db) == 2

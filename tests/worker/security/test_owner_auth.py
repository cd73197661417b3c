"""Owner routes through the real app: Access JWT, owner token, local owner, or refused."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import LIFE_ID, auth, heartbeat
from tests.worker.security.access_keys import ACCESS, key, serving_jwks, token
from tests.worker.security.conftest import configure
from worker.config import Runtime

OWNER_GETS = ["/api/search?q=tomato", "/api/conversations", "/api/messages/m1",
              "/api/conversations/c1/messages", "/status", "/openapi.json"]
ANSWERED = (200, 404)  # authenticated: the route answers (an unknown id is a 404)


async def test_nothing_configured_refuses_every_owner_route(client: httpx.AsyncClient,
                                                            runtime: Runtime) -> None:
    configure(runtime, local_owner=False)
    for path in OWNER_GETS:
        response = await client.get(path)
        assert response.status_code == 403, path
        error = response.json()["error"]
        assert error["code"] == "owner_auth_not_configured"
        assert "ACCESS_TEAM_DOMAIN" in error["message"] and "OWNER_TOKEN" in error["message"]
    chat = await client.post("/api/chat", json={"content": "plant this"})
    assert chat.status_code == 403
    # An unknown method on a made-up path is an owner route too (fail closed) ...
    assert (await client.post("/anything", json={})).status_code == 403
    # ... while the web client's files and the hub's routes keep working.
    assert (await client.get("/")).status_code == 200
    await heartbeat(client)
    manifest = await client.get("/vault/manifest", params={"vault": LIFE_ID}, headers=auth())
    assert manifest.status_code == 200


async def test_local_owner_mode_serves_owner_routes(client: httpx.AsyncClient) -> None:
    for path in OWNER_GETS:
        assert (await client.get(path)).status_code in ANSWERED, path


async def test_access_mode_needs_a_valid_jwt_even_for_a_local_owner(
        client: httpx.AsyncClient, runtime: Runtime) -> None:
    configure(runtime, access=ACCESS, owner_token="also-set")
    assert runtime.settings.local_owner  # Access wins over both
    with serving_jwks(key("k1")) as route:
        for path in OWNER_GETS:
            response = await client.get(path)
            assert response.status_code == 401, path
            assert response.json()["error"]["code"] == "access_jwt_missing"
            assert (await client.get(path, headers=auth("also-set"))).status_code == 401
            response = await client.get(path, headers={"cf-access-jwt-assertion": token()})
            assert response.status_code in ANSWERED, path
        chat = await client.post("/api/chat", json={"content": "hello there"},
                                 headers={"cf-access-jwt-assertion": token()})
        assert chat.status_code == 200
    assert route.call_count == 1  # the JWKS is cached across requests


@pytest.mark.parametrize(("overrides", "status", "code"), [
    ({"exp": 1}, 401, "access_jwt_expired"),
    ({"aud": ["other"]}, 403, "access_jwt_wrong_audience"),
    ({"iss": "https://other.cloudflareaccess.com"}, 403, "access_jwt_wrong_issuer"),
])
async def test_access_refusals_are_json_errors(client: httpx.AsyncClient, runtime: Runtime,
                                               overrides: dict, status: int, code: str) -> None:
    configure(runtime, access=ACCESS)
    with serving_jwks(key("k1")):
        response = await client.get("/status",
                                    headers={"cf-access-jwt-assertion": token(**overrides)})
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


async def test_owner_token_as_bearer(client: httpx.AsyncClient, runtime: Runtime) -> None:
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    missing = await client.get("/status")
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "owner_login_required"
    wrong = await client.get("/status", headers=auth("guess"))
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "owner_token_wrong")
    assert (await client.get("/status", headers=auth("s3cret-owner"))).status_code == 200
    # The sync token is not an owner token.
    assert (await client.get("/status", headers=auth())).status_code == 403


@pytest.mark.parametrize(("header", "code", "says"), [
    (None, "owner_login_required", "sign in first"),
    ("Basic czNjcmV0LW93bmVy", "bearer_scheme_required",
     "Authorization must use the Bearer scheme: send 'Authorization: Bearer <OWNER_TOKEN>'"),
    ("s3cret-owner", "bearer_scheme_required", "Authorization must use the Bearer scheme"),
    ("Bearer  ", "bearer_scheme_required",
     "the Authorization header names the Bearer scheme but no token"),
])
async def test_a_401_says_what_is_wrong_with_the_credentials(
        client: httpx.AsyncClient, runtime: Runtime, header: str | None, code: str,
        says: str) -> None:
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    headers = {"authorization": header} if header is not None else {}
    for response in (await client.get("/api/conversations", headers=headers),
                     await client.post("/api/chat", json={"content": "x"}, headers=headers)):
        assert response.status_code == 401
        error = response.json()["error"]
        assert error["code"] == code and error["message"].startswith(says), error
        assert "s3cret-owner" not in response.text
        assert response.headers["www-authenticate"] == 'Bearer realm="mallory-owner"'


async def test_the_sign_in_cookie_wins_over_an_authorization_of_another_scheme(
        client: httpx.AsyncClient, runtime: Runtime) -> None:
    # A proxy's HTTP Basic in front of `mallory serve` makes the browser send it on every
    # request, beside the cookie: the cookie signs it in.
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    assert (await client.post("/owner/login", data={"token": "s3cret-owner"})).status_code == 303
    response = await client.get("/api/conversations",
                                headers={"authorization": "Basic cHJveHk6cGFzcw=="})
    assert response.status_code == 200


async def test_owner_token_login_sets_a_strict_cookie(client: httpx.AsyncClient,
                                                      runtime: Runtime) -> None:
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    wrong = await client.post("/owner/login", data={"token": "guess"})
    assert wrong.status_code == 303
    assert wrong.headers["location"] == "/login.html#wrong-token"
    assert "set-cookie" not in wrong.headers
    assert (await client.get("/api/conversations")).status_code == 401

    right = await client.post("/owner/login", data={"token": "s3cret-owner"})
    assert right.status_code == 303 and right.headers["location"] == "/"
    cookie = right.headers["set-cookie"]
    assert "mallory_owner=" in cookie and "s3cret-owner" not in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    # httpx keeps the cookie, as a browser would: the web client's calls now pass.
    assert (await client.get("/api/conversations")).status_code == 200
    chat = await client.post("/api/chat", json={"content": "hello"})
    assert chat.status_code == 200

    configure(runtime, owner_token="rotated")  # rotation signs every browser out
    stale = await client.get("/api/conversations")
    assert (stale.status_code, stale.json()["error"]["code"]) == (403, "owner_token_wrong")


async def test_an_unsigned_browser_is_sent_to_the_sign_in_page(client: httpx.AsyncClient,
                                                               runtime: Runtime) -> None:
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    html = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("/", "/index.html", "/?msg=m1"):
        response = await client.get(path, headers=html)
        assert (response.status_code, response.headers.get("location")) == \
            (303, "/login.html"), path
    assert (await client.get("/login.html", headers=html)).status_code == 200
    # The API keeps its JSON 401, whatever the client accepts.
    api = await client.get("/api/conversations", headers=html)
    assert api.status_code == 401 and api.json()["error"]["code"] == "owner_login_required"
    stale = await client.get("/", headers={**html, "cookie": "mallory_owner=old"})
    assert stale.status_code == 303
    # Signed in (cookie) or a bearer token: the web client itself.
    assert (await client.get("/", headers={**html, **auth("s3cret-owner")})).status_code == 200
    await client.post("/owner/login", data={"token": "s3cret-owner"})
    page = await client.get("/", headers=html)
    assert page.status_code == 200 and "<html" in page.text.lower()


async def test_no_sign_in_redirect_outside_owner_token_mode(client: httpx.AsyncClient) -> None:
    assert (await client.get("/", headers={"accept": "text/html"})).status_code == 200


async def test_login_refuses_cross_origin_and_non_form_posts(client: httpx.AsyncClient,
                                                             runtime: Runtime) -> None:
    configure(runtime, owner_token="s3cret-owner", local_owner=False)
    cross = await client.post("/owner/login", data={"token": "s3cret-owner"},
                              headers={"origin": "http://evil.test"})
    assert cross.status_code == 403 and "set-cookie" not in cross.headers
    as_json = await client.post("/owner/login", json={"token": "s3cret-owner"})
    assert as_json.status_code == 415


async def test_login_is_not_found_outside_owner_token_mode(client: httpx.AsyncClient) -> None:
    response = await client.post("/owner/login", data={"token": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "login_not_enabled"


async def test_login_page_is_served_and_needs_no_script(client: httpx.AsyncClient) -> None:
    page = await client.get("/login.html")
    assert page.status_code == 200
    assert 'action="/owner/login"' in page.text and "<script" not in page.text


async def test_half_configured_access_names_the_missing_key(env_client) -> None:
    client = env_client({"ACCESS_AUD": "abc", "SYNC_TOKEN": "t"})
    response = await client.get("/status")
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "configuration_error" and "ACCESS_TEAM_DOMAIN" in error["message"]


async def test_a_worker_env_with_nothing_configured_refuses(env_client) -> None:
    response = await env_client({"SYNC_TOKEN": "t"}).get("/api/conversations")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "owner_auth_not_configured"


async def test_a_worker_env_with_access_verifies_the_jwt(env_client) -> None:
    client = env_client({"ACCESS_TEAM_DOMAIN": f"https://{ACCESS.team_domain}/",
                         "ACCESS_AUD": ACCESS.aud})
    with serving_jwks(key("k1")):
        assert (await client.get("/api/no-such-route")).status_code == 401
        # Accepted: the router answers (this env has no D1 binding, so a route with no
        # database work shows it).
        response = await client.get("/api/no-such-route",
                                    headers={"cf-access-jwt-assertion": token()})
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")

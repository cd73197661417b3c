"""Canonical paths: the entry precheck and the router see the same path."""

from __future__ import annotations

import httpx
import pytest

from shared.api.errors import BadRequest, Forbidden, PayloadTooLarge, Unauthorized
from shared.api.limits import MAX_IMPORT_BODY_BYTES, MAX_OWNER_BODY_BYTES
from tests.conftest import LOCAL_OWNER, auth, batch, heartbeat, note
from tests.worker.security.access_keys import ACCESS
from worker.config import Settings
from worker.security.paths import normalise_path
from worker.security.precheck import precheck_request

HUB_SPELLINGS = ["/vault/sync", "/vault%2Fsync", "/vault%2fsync", "/%76ault/sync",
                 "/%2576ault/sync", "//vault//sync", "/api/../vault/sync", "/./vault/sync",
                 "/x/%2e%2e/vault/sync"]
SETTINGS = Settings(sync_tokens=("t",), **LOCAL_OWNER)


@pytest.mark.parametrize("raw", HUB_SPELLINGS)
def test_every_spelling_of_a_hub_route_is_the_hub_route(raw: str) -> None:
    assert normalise_path(raw) == "/vault/sync"


@pytest.mark.parametrize("raw", HUB_SPELLINGS)
def test_the_entry_prechecks_every_spelling(raw: str) -> None:
    with pytest.raises(Unauthorized):
        precheck_request("POST", raw, {}, SETTINGS)
    precheck_request("POST", raw, auth("t"), SETTINGS)


@pytest.mark.parametrize(("raw", "fragment"), [
    ("/%ff", "UTF-8"), ("/../etc", "climbs"), ("/a%00b", "control"), ("/a%5Cb", "backslash"),
    ("/%2525252576ault", "too many"), ("/" + "a" * 3_000, "characters"),
])
def test_unusable_paths_are_a_400(raw: str, fragment: str) -> None:
    with pytest.raises(BadRequest, match=fragment) as info:
        normalise_path(raw)
    assert info.value.code == "bad_path"


def test_owner_routes_are_prechecked_from_headers() -> None:
    no_auth = Settings(sync_tokens=("t",))
    with pytest.raises(Forbidden, match="ACCESS_TEAM_DOMAIN"):
        precheck_request("GET", "/%61pi/conversations", {}, no_auth)
    with pytest.raises(Unauthorized):
        precheck_request("POST", "/api/chat", {}, Settings(access=ACCESS))
    precheck_request("POST", "/api/chat", {"cf-access-jwt-assertion": "x"},
                     Settings(access=ACCESS))  # presence only; the middleware verifies
    with pytest.raises(Unauthorized):
        precheck_request("GET", "/status", {}, Settings(owner_token="o"))
    precheck_request("GET", "/status", {"cookie": "a=b; mallory_owner=c"},
                     Settings(owner_token="o"))
    with pytest.raises(PayloadTooLarge):
        precheck_request("POST", "/api/chat",
                         {"content-length": str(MAX_OWNER_BODY_BYTES + 1)}, SETTINGS)
    with pytest.raises(PayloadTooLarge):
        precheck_request("POST", "/owner/login", {"content-length": "100000"}, no_auth)
    precheck_request("GET", "/", {}, no_auth)  # the web client's files are public
    precheck_request("GET", "/app.js", {"content-length": str(10**9)}, no_auth)


def test_an_import_is_prechecked_against_its_own_limit() -> None:
    # An export file is larger than any other owner body: the 64,000 bytes of a chat
    # refused at the edge what the route itself takes.
    for raw in ("/api/import", "/%61pi/import"):
        precheck_request("POST", raw, {"content-length": str(MAX_IMPORT_BODY_BYTES)},
                         SETTINGS)
        with pytest.raises(PayloadTooLarge, match=f"the limit is {MAX_IMPORT_BODY_BYTES}"):
            precheck_request("POST", raw, {"content-length": str(MAX_IMPORT_BODY_BYTES + 1)},
                             SETTINGS)
    with pytest.raises(PayloadTooLarge):
        precheck_request("POST", "/api/importx",
                         {"content-length": str(MAX_OWNER_BODY_BYTES + 1)}, SETTINGS)


@pytest.mark.parametrize("raw", ["/vault%2Fsync", "/%76ault/sync"])
async def test_encoded_hub_paths_through_the_app_need_the_token(
        client: httpx.AsyncClient, raw: str) -> None:
    seq = (await heartbeat(client))["vault"]["seq"]
    body = batch("p1", [note("a.md", "alpha")], seq=seq)
    refused = await client.post(raw, json=body)
    assert refused.status_code == 401
    accepted = await client.post(raw, json=body, headers=auth())
    assert accepted.status_code == 200 and accepted.json()["upserted"] == 1


async def test_a_bad_path_through_the_app_is_a_json_400(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/%ff")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_path"

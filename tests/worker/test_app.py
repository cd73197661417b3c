"""worker/app.py: a route that takes query parameters takes only those its operation
describes (worker/openapi/params.py); any other is a 422 naming it, before the handler
runs, as an unknown body field is."""

from __future__ import annotations

import re

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from tests.conftest import LIFE_ID, auth, heartbeat
from tests.rows import stored
from worker.openapi.operations import OPERATIONS, Operation
from worker.openapi.params import parameter_names

TAKING = [op for op in OPERATIONS if op.query is not None]
# Values a route accepts for what it requires, so only the unknown name is wrong.
REQUIRED = {"q": "car", "vault": LIFE_ID, "format": "mallory"}


def request_of(op: Operation, params: dict[str, str]) -> dict:
    path = re.sub(r"\{[^}]+\}", "m1", op.path)
    headers = {**auth(), "content-type": "application/json"}
    return {"method": op.method, "url": path, "params": params, "headers": headers,
            "content": b'{"format": "mallory-export", "version": 1, "conversations": []}'
            if op.method == "POST" else None}


def test_every_route_reading_query_parameters_describes_them() -> None:
    assert {(op.method, op.path) for op in TAKING} >= {
        ("GET", "/api/search"), ("GET", "/api/inspect/search"),
        ("GET", "/api/inspect/answers/{message_id}"), ("GET", "/api/inspect/missing"),
        ("GET", "/api/conversations"), ("GET", "/api/conversations/{conversation_id}/messages"),
        ("GET", "/vault/manifest"), ("POST", "/api/import"), ("GET", "/api/export")}


@pytest.mark.parametrize("op", TAKING, ids=lambda op: f"{op.method} {op.path}")
async def test_an_unknown_query_parameter_is_a_422_naming_it(
        client: httpx.AsyncClient, db: SqliteDatabase, op: Operation) -> None:
    await heartbeat(client)
    assert op.query is not None
    params = {n: REQUIRED[n] for n in parameter_names(op.query)
              if n in REQUIRED and op.query.model_fields[n].is_required()}
    before = await stored(db)
    response = await client.request(**request_of(op, {**params, "foo": "bar"}))
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "unknown_query_parameter"
    assert error["message"].startswith(f"{op.method} {op.path} takes no query parameter "
                                       "'foo'; it takes ")
    assert error["details"] == [{"item": None, "field": "foo",
                                 "message": f"not a query parameter of {op.method} {op.path}"}]
    assert await stored(db) == before


@pytest.mark.parametrize("op", TAKING, ids=lambda op: f"{op.method} {op.path}")
async def test_every_described_parameter_is_taken(client: httpx.AsyncClient,
                                                  op: Operation) -> None:
    # Every name the description lists gets past the check (its value may still be a 400).
    assert op.query is not None
    params = {name: REQUIRED.get(name, "1") for name in parameter_names(op.query)}
    response = await client.request(**request_of(op, params))
    assert response.json().get("error", {}).get("code") != "unknown_query_parameter", params


async def test_search_names_each_unknown_parameter_and_answers_without_them(
        client: httpx.AsyncClient) -> None:
    response = await client.get("/api/search?q=car&foo=bar&limt=5")
    assert response.status_code == 422
    assert [d["field"] for d in response.json()["error"]["details"]] == ["foo", "limt"]
    assert "takes no query parameter 'foo', 'limt'; it takes q, limit, source, vault, tz, " \
        "mode" in response.json()["error"]["message"]
    assert (await client.get("/api/search?q=car&limit=5")).status_code == 200


@pytest.mark.parametrize("op", TAKING, ids=lambda op: f"{op.method} {op.path}")
async def test_a_repeated_query_parameter_is_a_422_naming_it(
        client: httpx.AsyncClient, db: SqliteDatabase, op: Operation) -> None:
    await heartbeat(client)
    assert op.query is not None
    name = parameter_names(op.query)[0]
    value = REQUIRED.get(name, "1")
    request = {**request_of(op, {}), "params": [(name, value), (name, value)]}
    before = await stored(db)
    response = await client.request(**request)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "repeated_query_parameter"
    assert f"{name!r} is given more than once" in error["message"]
    assert await stored(db) == before


@pytest.mark.parametrize(("query", "needle"), [
    ("q=%ZZ", "'%' at byte 2 that starts no escape"), ("q=car%", "'%' at byte 5"),
    ("q=caf%C3", "not UTF-8"), ("q=%FF%FE", "not UTF-8"),
])
async def test_a_query_string_that_is_not_percent_encoded_utf8_is_a_400(
        client: httpx.AsyncClient, query: str, needle: str) -> None:
    response = await client.get(f"/api/search?{query}")
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "bad_query_encoding"
    assert needle in response.json()["error"]["message"]
    # Encoded right, the same characters are searched.
    assert (await client.get("/api/search?q=caf%C3%A9+100%25")).status_code == 200


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("GET", "/api/chat", "POST"), ("PUT", "/api/chat", "POST"),
    ("DELETE", "/api/search", "GET, HEAD"), ("POST", "/api/conversations", "GET, HEAD"),
])
async def test_a_served_path_asked_with_another_method_is_a_405_naming_its_methods(
        client: httpx.AsyncClient, db: SqliteDatabase, method: str, path: str,
        allow: str) -> None:
    before = await stored(db)
    response = await client.request(method, path, headers=auth(), json={"content": "hi"})
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert await stored(db) == before
    assert (await client.get("/no/such/page")).status_code == 404

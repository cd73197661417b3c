"""GET /openapi.json (worker/openapi/): it describes every route of the real app, is a
valid OpenAPI 3.1 document, and the app's real answers and the README's examples validate
against it.

Validation uses jsonschema (draft 2020-12, the dialect of OpenAPI 3.1 schemas) on the
served document itself, not the pydantic models behind it: what is checked is what a
client reads, `$ref`s and all. openapi-spec-validator checks the document's own shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any, get_args

import httpx
import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec
from starlette.routing import Route

from local.server import WithRuntime
from tests.conftest import BASE_URL, ROOT, auth, heartbeat, note, sync
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.openapi.document import openapi_document
from worker.openapi.params import ModeParam
from worker.recall.retrieval_mode import MODES
from worker.security.routes import RouteClass, classify

README_EXAMPLE = re.compile(
    r"<!-- example: (?P<method>[A-Z]+) (?P<path>\S+) (?P<what>request|\d{3}) -->\s*"
    r"```json\n(?P<body>.*?)\n```", re.S)


def app_operations() -> set[tuple[str, str]]:
    """(method, path) of every route the app serves (HEAD comes with GET)."""
    routes = create_app().app.router.routes
    return {(method, route.path) for route in routes
            if isinstance(route, Route) and route.include_in_schema
            for method in route.methods or () if method != "HEAD"}


def described_operations(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}


def schema_of(doc: dict[str, Any], method: str, path: str, what: str) -> dict[str, Any]:
    op = doc["paths"][path][method.lower()]
    if what == "request":
        [(_media, body)] = op["requestBody"]["content"].items()
        return body["schema"]
    assert what in op["responses"], f"{method} {path} does not document a {what} answer"
    return op["responses"][what]["content"]["application/json"]["schema"]


def check(doc: dict[str, Any], method: str, path: str, what: str, instance: Any) -> None:
    """Validate against the document, resolving its `#/components/...` references."""
    schema = {**schema_of(doc, method, path, what), "components": doc["components"]}
    errors = sorted(Draft202012Validator(schema).iter_errors(instance), key=str)
    assert not errors, f"{method} {path} {what}: " + "; ".join(
        f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_every_route_of_the_app_is_described_and_nothing_else() -> None:
    doc = openapi_document()
    assert app_operations() == described_operations(doc)


def test_the_document_is_valid_openapi_3_1() -> None:
    doc = openapi_document()
    validate_spec(doc)
    assert doc["openapi"] == "3.1.0"


def test_every_operation_names_its_auth_and_errors_in_the_one_error_shape() -> None:
    doc = openapi_document()
    error_ref = {"$ref": "#/components/schemas/ErrorResponse"}
    for method, path in described_operations(doc):
        op = doc["paths"][path][method.lower()]
        route = classify(method, path)
        assert op["x-route-class"] == route.value
        assert bool(op["security"]) == (route in (RouteClass.OWNER, RouteClass.HUB))
        errors = {s: r for s, r in op["responses"].items() if s[0] in "45"}
        assert {"400", "500"} <= set(errors), (method, path)
        if route in (RouteClass.OWNER, RouteClass.HUB):
            assert {"401", "403"} <= set(errors), (method, path)
        if "{" in path:
            assert "404" in errors, (method, path)
        for status, answer in errors.items():
            assert answer["content"]["application/json"]["schema"] == error_ref, status
            assert answer["description"], status
    error = doc["components"]["schemas"]["ErrorInfo"]
    assert error["required"] == ["code", "message"] and "details" in error["properties"]


def test_rate_limited_and_state_changing_routes_say_so() -> None:
    doc = openapi_document()
    chat = doc["paths"]["/api/chat"]["post"]["responses"]
    assert {"413", "415", "422", "429", "502"} <= set(chat)
    assert "429" not in doc["paths"]["/api/conversations"]["get"]["responses"]
    sync = doc["paths"]["/vault/sync"]["post"]["responses"]
    assert "415" in sync and "cross-site" not in sync["403"]["description"]  # hub: no CSRF
    search = {p["name"]: p for p in doc["paths"]["/api/search"]["get"]["parameters"]}
    assert search["q"]["required"] is True and search["limit"]["schema"]["maximum"] == 50
    assert search["source"]["schema"]["enum"] == ["all", "notes", "messages"]


async def test_openapi_json_is_an_owner_route(db) -> None:
    settings = Settings(sync_tokens=("t",), owner_token="owner-secret")
    app = WithRuntime(create_app(), Runtime(db=db, settings=settings))
    doc = openapi_document()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url=BASE_URL) as c:
        refused = await c.get("/openapi.json")
        assert refused.status_code == 401
        check(doc, "GET", "/openapi.json", "401", refused.json())
        served = await c.get("/openapi.json", headers=auth("owner-secret"))
        signed_in = await c.post("/owner/login", data={"token": "owner-secret"},
                                 headers={"origin": BASE_URL})
    assert served.status_code == 200
    assert served.json() == doc
    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/"
    assert "Location" in doc["paths"]["/owner/login"]["post"]["responses"]["303"]["headers"]


@pytest.fixture
async def answers(client: httpx.AsyncClient) -> AsyncIterator[list[tuple[str, str, str, Any]]]:
    """The app's real answers to one request of every route (and a few errors), as
    (method, documented path, status, body)."""
    seen: list[tuple[str, str, str, Any]] = []

    async def call(method: str, path: str, url: str, **kwargs: Any) -> httpx.Response:
        response = await client.request(method, url, **kwargs)
        if response.headers.get("content-type", "").startswith("application/json"):
            seen.append((method, path, str(response.status_code), response.json()))
        else:
            seen.append((method, path, str(response.status_code), None))
        return response

    contact = await heartbeat(client)
    seen.append(("POST", "/vault/heartbeat", "200", contact))
    synced = await sync(client, note("Travel/Iceland.md", "Crampons at the glacier car park.",
                                     title="Iceland"), batch_id="b-openapi")
    seen.append(("POST", "/vault/sync", "200", synced.json()))
    await call("POST", "/vault/sync", "/vault/sync", headers=auth(),
               json={"batch_id": "x", "vault_id": "nope", "vault": "", "seq": 0})
    await call("GET", "/vault/manifest", "/vault/manifest",
               params={"vault": contact["vault"]["id"]}, headers=auth())
    await call("GET", "/vault/manifest", "/vault/manifest", params={"vault": "x"},
               headers=auth())
    chat = (await call("POST", "/api/chat", "/api/chat",
                       json={"content": "where were the crampons for the glacier?",
                             "context": {"client": "test", "timezone": "Europe/Rome"}})).json()
    await call("POST", "/api/chat", "/api/chat", json={"content": " "})
    await call("POST", "/api/chat", "/api/chat", json={"content": "x", "incognito": True,
                                                       "conversation_id": "c"})
    conversation = chat["conversation_id"]
    answer = chat["assistant_message"]["id"]
    [cited] = chat["assistant_message"]["sources"]
    await call("POST", "/api/feedback", "/api/feedback",
               json={"message_id": answer, "n": cited["n"], "judgment": "relevant"})
    await call("POST", "/api/feedback", "/api/feedback",
               json={"message_id": answer, "n": 9, "judgment": "relevant"})
    await call("GET", "/api/search", "/api/search", params={"q": "crampons glacier"})
    await call("GET", "/api/search", "/api/search", params={"q": "the"})
    await call("GET", "/api/search", "/api/search", params={"q": "x", "vault": "Nowhere"})
    await call("GET", "/api/inspect/search", "/api/inspect/search",
               params={"q": "crampons glacier"})
    await call("GET", "/api/inspect/search", "/api/inspect/search", params={"q": "x",
                                                                           "mode": "fast"})
    await call("GET", "/api/inspect/answers/{message_id}", f"/api/inspect/answers/{answer}")
    await call("GET", "/api/inspect/answers/{message_id}", "/api/inspect/answers/unknown")
    await call("GET", "/api/inspect/missing", "/api/inspect/missing", params={
        "answer": answer, "vault": "Life", "path": "Travel/Iceland.md"})
    await call("GET", "/api/inspect/missing", "/api/inspect/missing", params={"q": "x"})
    await call("GET", "/api/conversations", "/api/conversations", params={"limit": 1})
    messages = "/api/conversations/{conversation_id}/messages"
    await call("GET", messages, f"/api/conversations/{conversation}/messages")
    await call("GET", "/api/messages/{message_id}", f"/api/messages/{answer}")
    await call("GET", "/api/messages/{message_id}", "/api/messages/unknown")
    await call("PATCH", "/api/conversations/{conversation_id}",
               f"/api/conversations/{conversation}", json={"title": "Crampons"})
    await call("PATCH", "/api/conversations/{conversation_id}",
               f"/api/conversations/{conversation}", content=b"{}",
               headers={"content-type": "text/plain"})
    exported = await call("GET", "/api/export", "/api/export")
    await call("POST", "/api/import", "/api/import", params={"format": "mallory"},
               content=exported.content, headers={"content-type": "application/json"})
    await call("POST", "/api/import", "/api/import", params={"format": "claude"},
               content=b"[1]", headers={"content-type": "application/json"})
    await call("POST", "/mcp", "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    await call("POST", "/mcp", "/mcp", json=[])
    memory = (await call("POST", "/api/memories", "/api/memories",
                         json={"fact": "The crampons are at the car park",
                               "source_message_id": answer})).json()
    await call("POST", "/api/memories", "/api/memories", json={"fact": ""})
    await call("GET", "/api/memories", "/api/memories")
    memory = (await call("PATCH", "/api/memories/{memory_id}", f"/api/memories/{memory['id']}",
                         json={"fact": "The crampons are rented at the car park"})).json()
    await call("DELETE", "/api/memories/{memory_id}",
               f"/api/memories/{memory['memory']['id']}")
    await call("DELETE", "/api/memories/{memory_id}", "/api/memories/unknown")
    await call("PUT", "/api/memory/pause", "/api/memory/pause", json={"paused": True})
    await call("GET", "/api/memory/pause", "/api/memory/pause")
    await call("PUT", "/api/memory/pause", "/api/memory/pause", json={"paused": "no"})
    await call("GET", "/status", "/status")
    await call("PUT", "/api/memory/pause", "/api/memory/pause", json={"paused": False})
    await call("GET", "/openapi.json", "/openapi.json")
    await call("POST", "/owner/login", "/owner/login", data={"token": "x"})
    await call("DELETE", "/api/messages/{message_id}", f"/api/messages/{answer}")
    await call("DELETE", "/api/conversations/{conversation_id}",
               f"/api/conversations/{conversation}")
    await call("DELETE", "/api/conversations/{conversation_id}",
               f"/api/conversations/{conversation}")
    yield seen


async def test_the_apps_real_answers_validate(answers: list[tuple[str, str, str, Any]]
                                              ) -> None:
    doc = openapi_document()
    for method, path, status, body in answers:
        if body is not None:
            check(doc, method, path, status, body)
        else:
            assert status in doc["paths"][path][method.lower()]["responses"], (method, path)
    answered = {(m, p) for m, p, s, _ in answers if s[0] in "23"}
    # Every route answered with success; the login only does so in owner-token mode (below).
    assert answered == described_operations(doc) - {("POST", "/owner/login")}
    assert {s for *_, s, _ in answers} >= {"200", "400", "404", "415", "422"}


def test_the_readme_examples_validate() -> None:
    doc = openapi_document()
    examples = list(README_EXAMPLE.finditer((ROOT / "README.md").read_text()))
    assert len(examples) >= 8
    for example in examples:
        check(doc, example["method"], example["path"], example["what"],
              json.loads(example["body"]))
    kinds = {(e["method"], e["path"], e["what"]) for e in examples}
    assert ("POST", "/api/chat", "request") in kinds and ("GET", "/status", "200") in kinds


def test_a_wrong_example_is_caught() -> None:
    """The check can fail: a field the model does not have, a wrong type, a missing one."""
    doc = openapi_document()
    with pytest.raises(AssertionError, match="Additional properties"):
        check(doc, "POST", "/api/chat", "request", {"content": "hi", "conversation": "c1"})
    with pytest.raises(AssertionError, match="is not of type 'integer'"):
        check(doc, "POST", "/vault/sync", "200",
              {"batch_id": "b", "status": "applied", "upserted": "1"})
    with pytest.raises(AssertionError, match="'message' is a required property"):
        check(doc, "GET", "/api/messages/{message_id}", "404", {"error": {"code": "x"}})


def test_the_mode_parameter_lists_exactly_the_retrieval_modes() -> None:
    assert get_args(ModeParam) == MODES

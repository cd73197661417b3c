"""The OpenAPI 3.1 document, built from worker/openapi/operations.py and the pydantic
models it names (their JSON Schemas, draft 2020-12, are what OpenAPI 3.1 takes as is).

What a route answers beyond its own errors follows from facts the app already holds:
its class (worker/security/routes.classify: owner, hub or login), whether it changes state
(CSRF and media-type checks), whether it is rate-limited (worker/security/ratelimit), and
whether it takes a body, a path id or query parameters. Every error has the one shape
`{error: {code, message, details?}}` (shared/api/errors.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from shared.api.wire import ErrorResponse
from worker.openapi.operations import JSON, OPERATIONS, Operation
from worker.security.ratelimit import LIMITED_ROUTES
from worker.security.routes import STATE_CHANGING, RouteClass, classify

REF = "#/components/schemas/{model}"
API_VERSION = "2"  # bump when a route or a model changes incompatibly
PATH_PARAM = re.compile(r"{(\w+)}")
DESCRIPTION = (
    "Mallory Recall's Worker. Owner routes (/api/*, /status, /openapi.json) need owner "
    "authentication: a Cloudflare Access JWT, or OWNER_TOKEN as a bearer token or the "
    "sign-in cookie; `mallory serve` on a loopback address needs none. Hub routes "
    "(/vault/*) need SYNC_TOKEN as a bearer token (and, behind Access, the hub's service "
    "token). A POST, PATCH or DELETE under /api/ must be application/json from the site's "
    "own origin. Every error is {\"error\": {\"code\", \"message\", \"details\"?}}.")

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "accessJwt": {"type": "apiKey", "in": "header", "name": "Cf-Access-Jwt-Assertion",
                  "description": "set by Cloudflare Access (ACCESS_TEAM_DOMAIN, ACCESS_AUD)"},
    "ownerToken": {"type": "http", "scheme": "bearer", "description": "OWNER_TOKEN"},
    "ownerCookie": {"type": "apiKey", "in": "cookie", "name": "mallory_owner",
                    "description": "set by POST /owner/login"},
    "syncToken": {"type": "http", "scheme": "bearer", "description": "SYNC_TOKEN"},
    "accessClientId": {"type": "apiKey", "in": "header", "name": "CF-Access-Client-Id",
                       "description": "the hub's Access service token, behind Access"},
    "accessClientSecret": {"type": "apiKey", "in": "header", "name": "CF-Access-Client-Secret",
                           "description": "the hub's Access service token, behind Access"},
}
SECURITY: dict[RouteClass, list[dict[str, list[str]]]] = {
    RouteClass.OWNER: [{"accessJwt": []}, {"ownerToken": []}, {"ownerCookie": []}],
    RouteClass.HUB: [{"syncToken": []},
                     {"syncToken": [], "accessClientId": [], "accessClientSecret": []}],
    RouteClass.LOGIN: [],
    RouteClass.PUBLIC: [],
}

# Errors any request can meet, then those each fact about a route adds.
ANY_ROUTE = {400: "the request path is malformed (bad_path)",
             421: "the Host header is not one this server answers for (unknown_host)",
             500: "an unexpected error (internal_error)",
             503: "the database or a dependency is down; try again shortly"}
BY_CLASS = {
    RouteClass.OWNER: {401: "owner credentials are missing, or Authorization is not of the "
                            "Bearer scheme (bearer_scheme_required)",
                       403: "owner credentials are wrong, or no owner authentication is "
                            "configured (owner_auth_not_configured)"},
    RouteClass.HUB: {401: "SYNC_TOKEN is missing, or Authorization is not of the Bearer "
                          "scheme (bearer_scheme_required)", 403: "SYNC_TOKEN is wrong or not set"},
    RouteClass.LOGIN: {},
    RouteClass.PUBLIC: {},
}
CHANGING_STATE = {403: "the request is cross-site (Origin or Sec-Fetch-Site)",
                  415: "the body is not of the media type the route takes"}
HUB_BODY = {415: "the body is not Content-Type: application/json"}
RATE_LIMITED = {429: "over the rate limit; Retry-After says when to try again"}
WITH_BODY = {400: "the body is not a JSON object, is over a nesting, number or string limit, "
                  "or names a key twice in one object (duplicate_key)",
             413: "the body is over its size limit",
             422: "the body does not fit the model; details name every invalid field"}
WITH_QUERY = {400: "a query parameter is missing, malformed or out of range",
              422: "a query parameter the route does not take (unknown_query_parameter; "
                   "details name each)"}
WITH_ID = {404: "no such item (never existed, or already deleted)"}


def _merge(*tables: Mapping[int, str]) -> dict[int, str]:
    merged: dict[int, list[str]] = {}
    for table in tables:
        for status, text in table.items():
            if text not in merged.setdefault(status, []):
                merged[status].append(text)
    return {status: "; ".join(texts) for status, texts in sorted(merged.items())}


def errors_of(op: Operation) -> dict[int, str]:
    route = classify(op.method, op.path)
    return _merge(
        ANY_ROUTE, BY_CLASS[route],
        CHANGING_STATE if op.method in STATE_CHANGING and route is not RouteClass.HUB else {},
        HUB_BODY if op.request is not None and route is RouteClass.HUB else {},
        RATE_LIMITED if (op.method, op.path) in LIMITED_ROUTES else {},
        WITH_BODY if op.request is not None and op.request_media == JSON else {},
        WITH_QUERY if op.query is not None else {},
        WITH_ID if PATH_PARAM.search(op.path) else {},
        op.errors)


def _models(ops: Iterable[Operation]) -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    found: dict[tuple[type[BaseModel], JsonSchemaMode], None] = {
        (ErrorResponse, "serialization"): None}
    for op in ops:
        if isinstance(op.response, type):
            found[(op.response, "serialization")] = None
        if op.request is not None:
            found[(op.request, "validation")] = None
    return list(found)


def _parameters(op: Operation) -> list[dict[str, Any]]:
    params = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
              for name in PATH_PARAM.findall(op.path)]
    if op.query is not None:
        schema = op.query.model_json_schema()
        for name, prop in schema["properties"].items():
            prop = {k: v for k, v in prop.items() if k != "title"}
            description = prop.pop("description", None)
            param = {"name": name, "in": "query",
                     "required": name in schema.get("required", []), "schema": prop}
            params.append({**param, "description": description} if description else param)
    return params


def _content(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {JSON: {"schema": dict(schema)}}


def _operation(op: Operation, refs: Mapping[tuple[Any, JsonSchemaMode], Any]
               ) -> dict[str, Any]:
    error_ref = refs[(ErrorResponse, "serialization")]
    success: dict[str, Any] = {"description": op.answer}
    if isinstance(op.response, type):
        success["content"] = _content(refs[(op.response, "serialization")])
    elif op.response is not None:
        success["content"] = _content(op.response)
    if op.status in (301, 302, 303, 307, 308):
        success["headers"] = {"Location": {"schema": {"type": "string"}}}
    route = classify(op.method, op.path)
    described: dict[str, Any] = {
        "operationId": f"{op.method.lower()}{re.sub(r'[^A-Za-z0-9]+', '_', op.path)}",
        "summary": op.summary, "tags": [op.tag], "security": SECURITY[route],
        "x-route-class": route.value,
        "responses": {str(op.status): success, **{
            str(status): {"description": text, "content": _content(error_ref)}
            for status, text in errors_of(op).items()}},
    }
    if params := _parameters(op):
        described["parameters"] = params
    if op.request is not None:
        described["requestBody"] = {"required": True, "content": {
            op.request_media: {"schema": refs[(op.request, "validation")]}}}
    return described


@cache
def openapi_document() -> dict[str, Any]:
    refs, schemas = models_json_schema(_models(OPERATIONS), ref_template=REF)
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, refs)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Mallory Recall", "version": API_VERSION, "description": DESCRIPTION},
        "paths": paths,
        "components": {"schemas": schemas.get("$defs", {}),
                       "securitySchemes": SECURITY_SCHEMES},
    }

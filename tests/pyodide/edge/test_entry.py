"""worker/entry.py's Default class inside Pyodide, called with JavaScript Requests the way
workerd calls it, through the Workers SDK's own ASGI adapter (`asgi.fetch`)."""

from __future__ import annotations

from typing import Any

import js  # type: ignore[import-not-found]
import mallory_js  # type: ignore[import-not-found]  # the runner's JS bindings
from pyodide.ffi import to_js  # type: ignore[import-not-found]

from worker.entry import Default


def _env() -> object:
    env = to_js({"SYNC_TOKEN": "test-sync-token", "MODEL_PROVIDER": "offline",
                 "RETRIEVAL_MODE": "lexical"}, dict_converter=js.Object.fromEntries)
    env.ASSETS = mallory_js.makeAssets()
    return env


def _request(method: str, url: str, headers: dict[str, str] | None = None) -> Any:
    init = to_js({"method": method, "headers": headers or {}},
                 dict_converter=js.Object.fromEntries)
    return js.Request.new(url, init)


async def _text(response: Any) -> tuple[int, str, str]:
    response = getattr(response, "js_object", response)
    return (int(response.status), str(response.headers.get("content-type")),
            str(await response.text()))


async def test_a_hub_request_without_the_token_is_refused_before_the_app() -> None:
    worker = Default(None, _env())
    status, kind, body = await _text(await worker.fetch(
        _request("POST", "https://mallory.test/vault/sync", {"content-length": "10"})))
    assert status == 401 and kind.startswith("application/json")
    assert '"code"' in body


async def test_the_app_answers_through_the_sdk_adapter() -> None:
    worker = Default(None, _env())
    status, kind, body = await _text(await worker.fetch(
        _request("GET", "https://mallory.test/")))
    assert status == 200 and kind.startswith("text/html") and "<html" in body.lower()
    status, kind, body = await _text(await worker.fetch(
        _request("GET", "https://mallory.test/no/such/page.txt")))
    assert status == 404 and '"not_found"' in body
    # Owner routes with no owner credentials configured refuse (fail closed).
    status, kind, body = await _text(await worker.fetch(
        _request("GET", "https://mallory.test/api/search?q=x")))
    assert status == 403 and kind.startswith("application/json")

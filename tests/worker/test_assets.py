"""Paths no route serves (worker/assets.py). The ASSETS binding itself is driven inside
Pyodide against a JavaScript binding (tests/pyodide/edge/test_journey.py)."""

from __future__ import annotations

import inspect

import httpx

from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import BASE_URL, LOCAL_OWNER
from worker.app import ROUTES, create_app
from worker.assets import asset_url
from worker.config import Runtime, Settings


def test_every_route_is_async_so_none_runs_in_a_thread() -> None:
    # Starlette runs a sync endpoint through anyio.to_thread; Pyodide has no threads.
    assert all(inspect.iscoroutinefunction(r.endpoint) for r in ROUTES)  # type: ignore[attr-defined]


async def test_without_assets_or_static_files_a_path_is_a_json_404(db: SqliteDatabase) -> None:
    app = WithRuntime(create_app(), Runtime(db=db, settings=Settings(**LOCAL_OWNER)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url=BASE_URL) as client:
        response = await client.get("/index.html")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_the_asset_request_keeps_the_encoded_path_and_the_query() -> None:
    scope = {"scheme": "https", "path": "/a b", "raw_path": b"/a%20b", "query_string": b"msg=m1",
             "headers": [(b"host", b"mallory.example")]}
    assert asset_url(scope) == "https://mallory.example/a%20b?msg=m1"

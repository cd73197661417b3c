"""The web client's files (worker/static), for every path no route serves.

At the edge the Workers assets binding serves them (wrangler.toml `[assets]`, binding
`ASSETS`, `env.ASSETS.fetch(request)`): a request reaches the Worker when no asset matches
its path or when `run_worker_first` sends it there, and the Worker hands it on. Starlette's
StaticFiles cannot run at the edge: it stats files through `anyio.to_thread`, and Pyodide
has no threads. Locally (`mallory serve`) StaticFiles serves worker/static from disk.
Either way a missing file is the app's JSON 404.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from worker.config import Runtime

# What the assets binding serves: reads only (it answers other methods with 405).
ASSET_METHODS = ("GET", "HEAD")
# Response headers that describe the body as the binding sent it, not as Starlette re-sends it.
_HOP_HEADERS = {"content-length", "content-encoding", "transfer-encoding", "connection"}


def assets_binding(scope: Scope) -> Any:
    """The ASSETS binding of this request's env, if it has one."""
    env = scope.get("env")
    if isinstance(env, Runtime):
        return env.assets
    return getattr(env, "ASSETS", None) if env is not None else None


def asset_url(scope: Scope) -> str:
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("host") or "localhost"
    query = scope.get("query_string", b"").decode("latin-1")
    path = scope.get("raw_path", scope["path"].encode()).decode("latin-1")
    return f"{scope.get('scheme', 'https')}://{host}{path}" + (f"?{query}" if query else "")


async def fetch_asset(binding: Any, scope: Scope) -> Response:
    """The binding's answer for this request as a Starlette response; 404 as HTTPException."""
    import js  # type: ignore[import-not-found]
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    method = scope["method"]
    forwarded = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope.get("headers", [])
                 if k.lower() in (b"accept", b"if-none-match", b"if-modified-since", b"range")]
    init = to_js({"method": method, "headers": forwarded}, dict_converter=js.Object.fromEntries)
    answer = await binding.fetch(js.Request.new(asset_url(scope), init))
    answer = getattr(answer, "js_object", answer)  # the SDK may wrap the JS Response
    status = int(answer.status)
    if status == 404:
        raise HTTPException(404)
    headers = {str(k): str(v) for k, v in answer.headers.entries()
               if str(k).lower() not in _HOP_HEADERS}
    body = b"" if method == "HEAD" else (await answer.arrayBuffer()).to_bytes()
    return Response(body, status_code=status, headers=headers)


class Assets:
    """ASGI app for the paths no route matched: the ASSETS binding, else `local_dir`."""

    def __init__(self, local_dir: Path | None = None) -> None:
        self.local = None
        if local_dir is not None:
            from starlette.staticfiles import StaticFiles

            self.local = StaticFiles(directory=local_dir, html=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        binding = assets_binding(scope)
        if binding is not None:
            if scope["method"] not in ASSET_METHODS:
                raise HTTPException(405)
            response = await fetch_asset(binding, scope)
            await response(scope, receive, send)
        elif self.local is not None:
            await self.local(scope, receive, send)
        else:
            raise HTTPException(404)

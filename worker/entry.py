"""The Python Worker entrypoint: one thin class that hands requests to the ASGI app.

The hub-only routes are authenticated here, from headers alone, before `asgi.fetch`:
the Workers ASGI adapter reads the whole body into memory before the app runs, so an
unauthenticated or oversized upload must be refused first.
"""

from __future__ import annotations

from workers import Response, WorkerEntrypoint  # type: ignore[import-not-found]

from shared.errors import MalloryError, PayloadTooLarge
from shared.limits import MAX_SYNC_BODY_BYTES
from worker.app import app
from worker.auth import check_sync_auth
from worker.config import Settings


def _precheck(request, env) -> None:
    from urllib.parse import urlparse

    if not urlparse(str(request.url)).path.startswith("/vault/"):
        return
    headers = {k.lower(): v for k, v in request.headers.items()}
    check_sync_auth(headers, Settings.from_mapping(env).sync_tokens)
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_SYNC_BODY_BYTES:
        raise PayloadTooLarge(f"body is {declared} bytes; the limit is {MAX_SYNC_BODY_BYTES}")


class Default(WorkerEntrypoint):
    async def fetch(self, request):
        import asgi  # type: ignore[import-not-found]  # provided by the Workers runtime

        try:
            _precheck(request, self.env)
        except MalloryError as exc:
            return Response.json(exc.to_json(), status=exc.status)
        return await asgi.fetch(app, getattr(request, "js_object", request), self.env)

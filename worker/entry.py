"""The Python Worker entrypoint: one thin class that hands requests to the ASGI app.

Requests are prechecked here, from headers alone, before `asgi.fetch` (hub routes need
SYNC_TOKEN, owner routes the configured kind of credential, bodies a declared size under
the limit): the Workers ASGI adapter reads the whole body into memory before the app
runs, so an unauthenticated or oversized upload must be refused first.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from workers import Response, WorkerEntrypoint  # type: ignore[import-not-found]

from shared.api.errors import MalloryError
from worker.app import app
from worker.config import Settings
from worker.security.headers import SECURITY_HEADERS
from worker.security.precheck import precheck_request


def _headers(request: Any) -> dict[str, str]:
    """Lower-cased headers from the SDK's Request (an email.Message) or a raw JS Request."""
    headers = request.headers
    items = headers.items() if hasattr(headers, "items") else headers.entries()
    return {str(k).lower(): str(v) for k, v in items}


class Default(WorkerEntrypoint):
    async def fetch(self, request: Any) -> Any:
        import asgi  # type: ignore[import-not-found]  # provided by the Workers runtime

        try:
            precheck_request(str(request.method), urlparse(str(request.url)).path,
                             _headers(request), Settings.from_mapping(self.env))
        except MalloryError as exc:
            return Response.json(exc.to_json(), status=exc.status,  # type: ignore[arg-type]
                                 headers={**SECURITY_HEADERS, **exc.headers})  # type: ignore[arg-type]
        return await asgi.fetch(app, getattr(request, "js_object", request), self.env)

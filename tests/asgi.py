"""ASGI wrappers tests put around the app."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send


class WithEnv:
    """Puts `env` in the ASGI scope, where the Workers ASGI adapter puts it: a plain
    mapping of vars and secrets, or an object with the bindings as attributes."""

    def __init__(self, app: ASGIApp, env: Any) -> None:
        self.app, self.env = app, env

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app({**scope, "env": self.env}, receive, send)

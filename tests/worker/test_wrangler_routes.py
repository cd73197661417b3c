"""Every route of the app reaches the Worker at the edge: wrangler.toml's
`run_worker_first` sends it there before the assets binding answers (a path it misses is
served as a static file, or a 404, and the Worker never sees it)."""

from __future__ import annotations

import fnmatch
import tomllib

from starlette.routing import Route

from tests.conftest import ROOT
from worker.app import create_app


def test_every_route_is_run_worker_first() -> None:
    config = tomllib.loads((ROOT / "wrangler.toml").read_text(encoding="utf-8"))
    patterns = config["assets"]["run_worker_first"]
    paths = {r.path for r in create_app().app.router.routes if isinstance(r, Route)}
    missed = sorted(p for p in paths
                    if not any(fnmatch.fnmatchcase(p, pattern) for pattern in patterns))
    assert missed == [], f"add these to [assets] run_worker_first in wrangler.toml: {missed}"
    assert "/mcp" in paths  # the check sees routes added outside /api/*

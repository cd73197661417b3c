"""10,000+ seeded hostile requests through the real app on real SQLite/FTS5: no 5xx,
every error in the JSON error shape, FTS indexes intact afterwards.

Reproduce a run with RELIABILITY_SEED=<seed>; RELIABILITY_REQUESTS=<n> to scale it."""

from __future__ import annotations

import os
import time
from collections import Counter

import httpx
import pytest

from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import BASE_URL, note, sync
from tests.reliability.conftest import FTS_TABLES, SETTINGS, error_shape_problem, fts_integrity
from tests.reliability.hostile import ORIGIN, requests
from worker.app import create_app
from worker.config import Runtime

pytestmark = pytest.mark.reliability
SEED = int(os.environ.get("RELIABILITY_SEED", "16"))
# The default run sends about a tenth of what .ci/run sends after it (RELIABILITY_REQUESTS=10500):
# 10,500 requests took 93 s of a 10-minute suite.
COUNT = int(os.environ.get("RELIABILITY_REQUESTS", "1000"))
SEED_NOTES = [
    note("Recipes/Sourdough.md", "Feed the starter twice a day; bake at 250 C.",
         title="Sourdough bread", tags=["baking"]),
    note("Garden/Tomatoes.md", "Tomato blight shows as brown spots; water at the base."),
    note("Travel/Kyoto.md", "Temples of Kyoto in autumn; the budget was 2,400 euros."),
    note("Work/pg.md", "Run pg:pull before v1.2.3; snake_case names; Ctrl+P opens it."),
]


async def test_hostile_requests_never_5xx(tmp_path) -> None:
    db = SqliteDatabase(tmp_path / "hostile.sqlite")
    await migrate(db)
    app = WithRuntime(create_app(serve_static=True), Runtime(db=db, settings=SETTINGS))
    conversations: list[str] = []
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": ORIGIN}) as client:
        await sync(client, *SEED_NOTES, batch_id="seed")
        for spec in requests(SEED, COUNT, conversations):
            url = httpx.URL(f"{BASE_URL}{spec.path}", query=spec.query.encode())
            # httpx normalises str and bytes values alike; its stubs take one kind or the other.
            response = await client.request(spec.method, url,
                                            headers=spec.headers,  # type: ignore[arg-type]
                                            content=spec.body)
            statuses[response.status_code] += 1
            if response.status_code >= 500:
                failures.append(f"{response.status_code} {spec.describe()} → "
                                f"{response.text[:200]}")
            elif response.status_code >= 400 and spec.method != "HEAD":
                problem = error_shape_problem(response.status_code, response.content)
                if problem:
                    failures.append(f"shape ({problem}) {spec.describe()}")
            if spec.kind == "chat" and response.status_code == 200:
                conversations.append(response.json()["conversation_id"])
    elapsed = time.monotonic() - started
    print(f"\n{COUNT} hostile requests (seed {SEED}) in {elapsed:.1f} s; statuses "
          f"{dict(sorted(statuses.items()))}")
    assert failures == [], f"{len(failures)} failures, first: " + "\n".join(failures[:10])
    assert sum(statuses.values()) == COUNT
    # The mix reaches the handlers, not only the guards: real answers and real refusals.
    assert statuses[200] > COUNT // 5 and len(conversations) > COUNT // 100
    assert {400, 401, 403, 404, 415, 422} <= set(statuses)
    assert await fts_integrity(db) == FTS_TABLES
    db.close()

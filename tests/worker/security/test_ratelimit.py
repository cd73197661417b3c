"""Rate limits on chat and search: 429 with Retry-After, counted by a token bucket locally
(fake clock here) or by the Workers Rate Limiting binding at the edge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from types import SimpleNamespace

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from local.server import WithRuntime
from shared.api.errors import TooManyRequests
from tests.asgi import WithEnv
from tests.conftest import BASE_URL
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.security.ratelimit import EDGE_PERIOD_S, TokenBuckets, enforce
from worker.security.signin_limit import ALL_CLIENTS_PER_MINUTE, PER_CLIENT_PER_MINUTE, client_of


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def limited(runtime: Runtime, fake_clock: FakeClock) -> AsyncIterator[httpx.AsyncClient]:
    runtime.settings = replace(runtime.settings, chat_per_minute=3, search_per_minute=6)
    app = WithRuntime(create_app(clock=fake_clock), runtime)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as client:
        yield client


def test_bucket_allows_a_minutes_worth_then_refills(fake_clock: FakeClock) -> None:
    buckets = TokenBuckets(fake_clock)
    assert [buckets.take("k", 6) for _ in range(6)] == [None] * 6
    assert buckets.take("k", 6) == pytest.approx(10.0)  # 6/min: one token per 10 s
    fake_clock.now += 5
    assert buckets.take("k", 6) == pytest.approx(5.0)
    fake_clock.now += 5
    assert buckets.take("k", 6) is None
    assert buckets.take("other", 6) is None  # keys are independent
    fake_clock.now += 3600
    assert [buckets.take("k", 6) for _ in range(7)].count(None) == 6  # capped at capacity


async def test_chat_over_the_limit_is_429_with_retry_after(limited: httpx.AsyncClient,
                                                           fake_clock: FakeClock, db) -> None:
    for i in range(3):
        assert (await limited.post("/api/chat", json={"content": f"hi {i}"})).status_code == 200
    refused = await limited.post("/api/chat", json={"content": "one more"})
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused.headers["retry-after"] == "20"  # 3/min: one chat per 20 s
    assert (await db.prepare("SELECT count(*) AS n FROM messages").first())["n"] == 6
    # Other routes are not limited by the chat limit.
    assert (await limited.get("/api/conversations")).status_code == 200
    fake_clock.now += 20
    assert (await limited.post("/api/chat", json={"content": "later"})).status_code == 200


async def test_search_has_its_own_limit(limited: httpx.AsyncClient,
                                        fake_clock: FakeClock) -> None:
    codes = [(await limited.get("/api/search", params={"q": "x"})).status_code
             for _ in range(7)]
    assert codes == [200] * 6 + [429]
    assert (await limited.post("/api/chat", json={"content": "hi"})).status_code == 200


class FakeRateLimiter:
    """The Workers Rate Limiting binding's documented shape: limit({key}) → {success}."""

    def __init__(self, allow: int) -> None:
        self.allow, self.keys = allow, list[str]()

    async def limit(self, options: dict[str, str]) -> dict[str, bool]:
        self.keys.append(options["key"])
        return {"success": len(self.keys) <= self.allow}


async def test_the_edge_binding_decides_when_present(fake_clock: FakeClock) -> None:
    binding = FakeRateLimiter(allow=2)
    env = SimpleNamespace(CHAT_RATE_LIMITER=binding)
    buckets = TokenBuckets(fake_clock)
    settings = Settings(chat_per_minute=1)  # the local bucket would refuse the second
    await enforce("chat", "access:owner@example.com", settings, env, buckets)
    await enforce("chat", "access:owner@example.com", settings, env, buckets)
    with pytest.raises(TooManyRequests) as info:
        await enforce("chat", "access:owner@example.com", settings, env, buckets)
    assert info.value.headers == {"retry-after": str(EDGE_PERIOD_S)}
    assert binding.keys == ["chat:access:owner@example.com"] * 3


async def test_a_failing_binding_lets_the_owner_through(fake_clock: FakeClock) -> None:
    class Broken:
        async def limit(self, options: dict) -> dict:
            raise RuntimeError("binding unavailable")

    await enforce("chat", "owner", Settings(), SimpleNamespace(CHAT_RATE_LIMITER=Broken()),
                  TokenBuckets(fake_clock))


async def test_the_binding_through_the_app() -> None:
    env = SimpleNamespace(OWNER_TOKEN="o", SEARCH_RATE_LIMITER=FakeRateLimiter(allow=0))
    app = WithEnv(create_app(), env)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url=BASE_URL) as client:
        response = await client.get("/api/search", params={"q": "x"},
                                    headers={"authorization": "Bearer o"})
    assert response.status_code == 429 and response.headers["retry-after"] == "60"


def _sign_in_client(app: WithRuntime, address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 5000)),
                             base_url=BASE_URL, headers={"origin": BASE_URL})


async def _sign_in(client: httpx.AsyncClient, token: str) -> int:
    return (await client.post("/owner/login", data={"token": token})).status_code


async def test_a_strangers_wrong_sign_ins_do_not_lock_the_owner_out(
        runtime: Runtime, fake_clock: FakeClock) -> None:
    runtime.settings = replace(runtime.settings, owner_token="s3cret-owner", local_owner=False)
    app = WithRuntime(create_app(clock=fake_clock), runtime)
    async with _sign_in_client(app, "203.0.113.9") as stranger, \
            _sign_in_client(app, "198.51.100.4") as owner:
        codes = [await _sign_in(stranger, f"guess-{i}") for i in range(PER_CLIENT_PER_MINUTE + 2)]
        assert codes == [303] * PER_CLIENT_PER_MINUTE + [429, 429]
        refused = await stranger.post("/owner/login", data={"token": "s3cret-owner"})
        assert refused.status_code == 429 and "this address" in refused.json()["error"]["message"]
        right = await owner.post("/owner/login", data={"token": "s3cret-owner"})
        assert right.status_code == 303 and right.headers["location"] == "/"
        assert (await owner.get("/api/conversations")).status_code == 200


async def test_distributed_guessing_is_bounded_but_a_known_browser_gets_through(
        runtime: Runtime, fake_clock: FakeClock) -> None:
    runtime.settings = replace(runtime.settings, owner_token="s3cret-owner", local_owner=False)
    app = WithRuntime(create_app(clock=fake_clock), runtime)
    async with _sign_in_client(app, "198.51.100.4") as owner:
        assert await _sign_in(owner, "s3cret-owner") == 303  # the owner's browser, earlier
        codes = []
        for i in range(ALL_CLIENTS_PER_MINUTE + 5):  # one guess from each of many addresses
            async with _sign_in_client(app, f"10.1.{i // 250}.{i % 250}") as guesser:
                codes.append(await _sign_in(guesser, f"guess-{i}"))
        assert codes.count(429) == 6  # the owner's sign-in took one from the shared bucket
        async with _sign_in_client(app, "192.0.2.77") as newcomer:
            late = await newcomer.post("/owner/login", data={"token": "s3cret-owner"})
            assert late.status_code == 429 and int(late.headers["retry-after"]) >= 1
        assert await _sign_in(owner, "s3cret-owner") == 303  # signed in here before
        fake_clock.now += 60  # the shared bucket refills
        async with _sign_in_client(app, "192.0.2.77") as newcomer:
            assert await _sign_in(newcomer, "s3cret-owner") == 303


async def test_at_the_edge_the_client_is_cf_connecting_ip(fake_clock: FakeClock) -> None:
    """The Workers adapter gives no peer address; Cloudflare sets CF-Connecting-IP."""
    env = SimpleNamespace(OWNER_TOKEN="o")
    app = WithEnv(create_app(clock=fake_clock), env)

    class NoPeer:
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            await app({**scope, "client": None}, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=NoPeer()),
                                 base_url=BASE_URL, headers={"origin": BASE_URL}) as client:
        def post(ip: str, token: str):
            return client.post("/owner/login", data={"token": token},
                               headers={"cf-connecting-ip": ip})
        for i in range(PER_CLIENT_PER_MINUTE):
            assert (await post("203.0.113.9", f"g{i}")).status_code == 303
        assert (await post("203.0.113.9", "o")).status_code == 429
        assert (await post("198.51.100.4", "o")).status_code == 303


def test_a_local_client_cannot_pick_its_address_with_the_edge_header() -> None:
    assert client_of({"client": ("127.0.0.1", 1)}, {"cf-connecting-ip": "1.2.3.4"}) == \
        "127.0.0.1"
    assert client_of({"client": None}, {"cf-connecting-ip": " 1.2.3.4 "}) == "1.2.3.4"

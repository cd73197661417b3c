"""Host allow-list for local serve (DNS rebinding), and what binding an address means."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from local.cli import main
from local.migrate import MIGRATIONS_DIR, migrate
from local.server import local_app, settings_for_bind
from local.sqlite_db import SqliteDatabase
from shared.api.errors import ConfigError
from tests.conftest import auth, heartbeat
from tests.rows import one
from tests.worker.security.conftest import configure
from worker.config import OwnerAuth, Runtime, Settings
from worker.security.hosts import LOOPBACK_HOSTS, host_name


@pytest.mark.parametrize(("header", "name"), [
    ("localhost:8787", "localhost"), ("127.0.0.1", "127.0.0.1"), ("[::1]:8787", "::1"),
    ("LOCALHOST", "localhost"), ("::1", "::1"), ("", ""),
])
def test_host_name(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize("host", ["localhost:8787", "127.0.0.1:8787", "[::1]:8787"])
async def test_loopback_names_are_served(client: httpx.AsyncClient, runtime: Runtime,
                                         host: str) -> None:
    configure(runtime, allowed_hosts=LOOPBACK_HOSTS)
    response = await client.get("/api/conversations", headers={"host": host})
    assert response.status_code == 200


@pytest.mark.parametrize("host", ["rebind.attacker.test", "rebind.attacker.test:8787",
                                  "127.0.0.1.nip.io", "localhost.evil.test", ""])
async def test_other_hosts_are_421(client: httpx.AsyncClient, runtime: Runtime,
                                   host: str) -> None:
    configure(runtime, allowed_hosts=LOOPBACK_HOSTS)
    for method, path in (("GET", "/api/conversations"), ("GET", "/"), ("GET", "/status"),
                         ("POST", "/vault/sync")):
        response = await client.request(method, path, headers={"host": host})
        assert response.status_code == 421, (method, path)
        assert response.json()["error"]["code"] == "unknown_host"
        assert "ALLOWED_HOSTS" in response.json()["error"]["message"]


async def test_a_configured_name_is_served(client: httpx.AsyncClient, runtime: Runtime) -> None:
    configure(runtime, allowed_hosts=(*LOOPBACK_HOSTS, "mallory.lan"), owner_token="o")
    response = await client.get("/status", headers={"host": "mallory.lan:8787", **auth("o")})
    assert response.status_code == 200


@pytest.mark.parametrize("allowed", [("*",), (*LOOPBACK_HOSTS, "mallory.lan")])
async def test_a_wide_host_list_turns_local_owner_off(client: httpx.AsyncClient,
                                                      runtime: Runtime, db: SqliteDatabase,
                                                      allowed: tuple[str, ...]) -> None:
    """DNS rebinding: a page at rebind.attacker.example points its name at 127.0.0.1; with
    ALLOWED_HOSTS=* (or a LAN name) the Host check lets it in, so local owner must not."""
    configure(runtime, allowed_hosts=allowed)
    for host in ("rebind.attacker.example", "localhost"):
        if host not in allowed and "*" not in allowed:
            continue
        origin = {"host": host, "origin": f"http://{host}"}
        for method, path in (("GET", "/api/conversations"), ("GET", "/api/search?q=x"),
                             ("GET", "/status")):
            response = await client.request(method, path, headers=origin)
            assert response.status_code == 403, (host, path)
            error = response.json()["error"]
            assert error["code"] == "local_owner_needs_loopback_hosts"
            assert "OWNER_TOKEN" in error["message"] and "ALLOWED_HOSTS" in error["message"]
        chat = await client.post("/api/chat", json={"content": "plant this"}, headers=origin)
        assert chat.status_code == 403
    assert (await one(db.prepare("SELECT count(*) AS n FROM messages")))["n"] == 0
    # The owner token opens it again, and the hub's routes never depended on it.
    configure(runtime, owner_token="o")
    response = await client.get("/api/conversations",
                                headers={"host": "rebind.attacker.example" if "*" in allowed
                                         else "mallory.lan", **auth("o")})
    assert response.status_code == 200
    await heartbeat(client)


def test_serve_with_a_wide_host_list_needs_an_owner_token() -> None:
    for hosts in (("*",), ("localhost", "mallory.lan")):
        with pytest.raises(ConfigError, match="OWNER_TOKEN") as info:
            settings_for_bind(Settings(allowed_hosts=hosts), "127.0.0.1")
        assert "DNS-rebinding" in info.value.message
        settings = settings_for_bind(Settings(allowed_hosts=hosts, owner_token="o"),
                                     "127.0.0.1")
        assert settings.owner_auth is OwnerAuth.OWNER_TOKEN
    loopback = settings_for_bind(Settings(allowed_hosts=("localhost", "127.0.0.2")),
                                 "127.0.0.1")
    assert loopback.owner_auth is OwnerAuth.LOCAL_OWNER


def test_mallory_serve_refuses_a_wide_host_list_at_start_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no .dev.vars
    monkeypatch.setenv("ALLOWED_HOSTS", "*")
    monkeypatch.delenv("OWNER_TOKEN", raising=False)
    monkeypatch.delenv("ACCESS_AUD", raising=False)
    monkeypatch.delenv("ACCESS_TEAM_DOMAIN", raising=False)
    assert main(["serve", "--db", str(tmp_path / "m.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "ALLOWED_HOSTS=*" in err and "OWNER_TOKEN" in err and "DNS-rebinding" in err


def test_loopback_bind_is_local_owner_with_loopback_hosts() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"):
        settings = settings_for_bind(Settings(), host)
        assert settings.owner_auth is OwnerAuth.LOCAL_OWNER
        extra = ("127.0.0.2",) if host == "127.0.0.2" else ()  # its own address
        assert settings.allowed_hosts == (*LOOPBACK_HOSTS, *extra)


async def test_a_server_bound_to_another_loopback_address_answers_it(
        tmp_path: Path) -> None:
    """`mallory serve --host 127.0.0.2` is reached as http://127.0.0.2:PORT: not 421."""
    db = SqliteDatabase(str(tmp_path / "bound.sqlite"))
    await migrate(db, MIGRATIONS_DIR)
    settings = settings_for_bind(Settings(), "127.0.0.2")
    app = local_app(db, settings, serve_static=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.2:8787") as c:
        assert (await c.get("/status")).status_code == 200
        foreign = await c.get("/status", headers={"host": "127.0.0.3:8787"})
        assert foreign.status_code == 421
    db.close()


def test_other_binds_need_an_owner_token_or_access() -> None:
    for host in ("0.0.0.0", "::", "192.168.1.20"):
        with pytest.raises(ConfigError, match="OWNER_TOKEN"):
            settings_for_bind(Settings(), host)
    settings = settings_for_bind(Settings(owner_token="o"), "192.168.1.20")
    assert settings.owner_auth is OwnerAuth.OWNER_TOKEN and not settings.local_owner
    assert settings.allowed_hosts == (*LOOPBACK_HOSTS, "192.168.1.20")
    wildcard = settings_for_bind(Settings(owner_token="o"), "0.0.0.0")
    assert wildcard.allowed_hosts == LOOPBACK_HOSTS  # names come from ALLOWED_HOSTS
    named = settings_for_bind(Settings(owner_token="o", allowed_hosts=("box.lan",)), "0.0.0.0")
    assert named.allowed_hosts == ("box.lan",)


def test_an_owner_token_is_required_even_on_loopback_once_set() -> None:
    settings = settings_for_bind(Settings(owner_token="o"), "127.0.0.1")
    assert settings.owner_auth is OwnerAuth.OWNER_TOKEN

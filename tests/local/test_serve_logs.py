"""What `mallory serve` writes to its log, read from a real server process: no credential
in any line (uvicorn's access log included), and what the owner searched for only at
--log-level debug."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from local.thread_server import free_port
from tests.conftest import ROOT

SECRETS = ["k-abc12345", "s-xyz78901", "a-qqq77701", "t-secret01", "p-secret02", "ak-9911z",
           "sg-5566x", "bt-7788y"]
MEMORY = "hypothyroid"


def serve_and_log(tmp_path: Path, log_level: str) -> str:
    """Run `mallory serve`, send requests carrying credentials and a search, stop it;
    return everything it wrote."""
    port = free_port()
    env = {**os.environ, "SYNC_TOKEN": "sync-token-value-1", "RETRIEVAL_MODE": "lexical",
           "PYTHONPATH": str(ROOT)}
    for name in ("OWNER_TOKEN", "ACCESS_AUD", "ACCESS_TEAM_DOMAIN", "ALLOWED_HOSTS"):
        env.pop(name, None)
    command = [sys.executable, "-m", "local.cli", "serve", "--db", str(tmp_path / "m.sqlite"),
               "--port", str(port), "--log-level", log_level]
    out = tmp_path / f"serve-{log_level}.log"
    with out.open("w") as sink:
        server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=sink,
                                  stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{url}/status", timeout=2)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        pytest.fail(f"mallory serve did not start: {out.read_text()}")
                    time.sleep(0.2)
            k, s, a, t, p, ak, sg, bt = SECRETS
            httpx.get(f"{url}/api/search", params={"q": f"my {MEMORY} dose"})
            # Refused (422: /api/search takes no such parameters), and logged all the same.
            httpx.get(f"{url}/api/search", params={"q": f"my {MEMORY} dose", "key": k,
                                                    "sig": s, "auth": a})
            httpx.get(f"{url}/status", params={"token": t, "password": p, "api_key": ak,
                                               "signature": sg})
            httpx.get(f"{url}/api/conversations", params={"access_token": bt},
                      headers={"authorization": f"Bearer {bt}"})
            httpx.post(f"{url}/api/chat", json={"content": f"my {MEMORY} dose is 50"},
                       headers={"origin": url})
        finally:
            server.terminate()
            server.wait(timeout=30)
    return out.read_text()


def test_no_credential_and_no_search_text_in_the_info_log(tmp_path: Path) -> None:
    log = serve_and_log(tmp_path, "info")
    assert '"GET /api/search?q=*** HTTP/1.1" 200' in log, log
    assert '"GET /api/search?q=***&key=***&sig=***&auth=*** HTTP/1.1" 422' in log, log
    assert '"GET /status?token=***&password=***&api_key=***&signature=*** HTTP/1.1"' in log
    assert "Logging error" not in log and "Traceback" not in log
    for secret in [*SECRETS, MEMORY, "sync-token-value-1"]:
        assert secret not in log, secret


def test_search_text_appears_at_debug_level_and_credentials_still_do_not(
        tmp_path: Path) -> None:
    log = serve_and_log(tmp_path, "debug")
    assert f"/api/search?q=my+{MEMORY}+dose&key=***" in log, log
    for secret in SECRETS:
        assert secret not in log, secret

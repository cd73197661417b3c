"""No internal details in responses; no credentials in logs."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace

import httpx
import pytest
import respx

from local.sqlite_db import SqliteDatabase
from tests.conftest import note, sync
from worker.config import Runtime
from worker.security.redact import RedactingFilter, install_log_redaction, redact

BASE = "https://mallory:hunter2-password@llm.internal.example/v1"
SECRET_BODY = '{"error": "bad key sk-live-abcdef for org acme-internal at 10.0.0.7"}'


@pytest.fixture
def openai(runtime: Runtime):
    runtime.settings = replace(runtime.settings, model_provider="openai", openai_base_url=BASE,
                               openai_api_key="sk-live-abcdef", openai_model="m")
    with respx.mock(assert_all_called=False) as mock:
        yield mock


def leaks(text: str) -> list[str]:
    return [s for s in ("hunter2", "sk-live", "acme-internal", "10.0.0.7", "llm.internal")
            if s in text]


@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 503])
async def test_provider_error_bodies_are_not_relayed(client: httpx.AsyncClient, openai,
                                                     status: int) -> None:
    openai.post(f"{BASE}/chat/completions").mock(
        return_value=httpx.Response(status, text=SECRET_BODY))
    response = await client.post("/api/chat", json={"content": "hello"})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "model_unavailable"
    assert f"HTTP {status}" in error["message"]
    assert leaks(response.text) == []


async def test_an_unreachable_provider_names_no_url(client: httpx.AsyncClient, openai,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    openai.post(f"{BASE}/chat/completions").mock(
        side_effect=httpx.ConnectError(f"cannot connect to {BASE}"))
    with caplog.at_level(logging.ERROR):
        install_log_redaction()  # caplog's handler is new: filter it as the app would
        caplog.handler.addFilter(RedactingFilter())
        response = await client.post("/api/chat", json={"content": "hello"})
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "model_unreachable"
    assert "OPENAI_BASE_URL" in response.json()["error"]["message"]
    assert leaks(response.text) == []
    logged = caplog.text
    assert "unreachable" in logged and "hunter2" not in logged and "mallory:***@" in logged


async def test_recall_errors_are_codes(client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, note("a.md", "sourdough starter feeding"))
    await db.prepare("DROP TABLE note_sections_df").run()
    body = (await client.post("/api/chat", json={"content": "sourdough starter?"})).json()
    assert body["recall"]["error"] == "recall_failed"


async def test_unexpected_errors_say_nothing_of_their_cause(client: httpx.AsyncClient,
                                                            db: SqliteDatabase) -> None:
    await db.prepare("DROP TABLE conversations").run()
    response = await client.get("/api/conversations")
    assert response.status_code in (500, 503)
    assert "conversations" not in response.json()["error"]["message"]
    assert "no such table" not in response.text


@pytest.mark.parametrize(("text", "secret"), [
    ("could not reach https://bob:hunter2@llm.example/v1: refused", "hunter2"),
    ("headers: Authorization: Bearer abc.DEF-123_x", "abc.DEF"),
    ("retry with ?token=abc123&x=1", "abc123"),
    ("OPENAI_API_KEY=sk-12345", "sk-12345"),
    ('{"cf-access-client-secret": "s3cr3t-value"}', "s3cr3t-value"),
    ("jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl was refused", "eyJzdWIi"),
    ("SYNC_TOKEN: abcdef", "abcdef"),
    ("cookie: mallory_owner=0123abcd", "0123abcd"),
    ("GET /x?key=k-abc123 HTTP/1.1", "k-abc123"),
    ("GET /x?a=1&sig=s-xyz789", "s-xyz789"),
    ('{"signature": "sg-1122"}', "sg-1122"),
    ("auth=a-qqq777", "a-qqq777"),
    ("x-auth-token: at-3344", "at-3344"),
    ("GET /api/search?source=all&q=my+diagnosis HTTP/1.1", "diagnosis"),
])
def test_redaction(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_search_text_is_kept_when_asked_for() -> None:
    assert redact("GET /api/search?q=my+diagnosis&key=k1", memory=False) == \
        "GET /api/search?q=my+diagnosis&key=***"


def test_plain_words_survive_redaction() -> None:
    text = "the owner's tokens of appreciation; https://example.com/path; Bearer of news"
    assert redact(text).startswith("the owner's tokens of appreciation; https://example.com/path")


def test_the_filter_redacts_arguments_and_tracebacks() -> None:
    record = logging.LogRecord("mallory.test", logging.ERROR, __file__, 1,
                               "failed at %s", ("https://u:pw-secret@host/x",), None)
    try:
        raise RuntimeError("Bearer sekrit-token-value")
    except RuntimeError:
        record.exc_info = sys.exc_info()
    assert RedactingFilter().filter(record)
    formatted = logging.Formatter().format(record)
    assert "pw-secret" not in formatted and "sekrit-token-value" not in formatted
    assert "failed at https://u:***@host/x" in formatted


def test_structured_arguments_survive_for_formatters_that_unpack_them() -> None:
    """uvicorn's access formatter unpacks `args` (client, method, path, version, status):
    the filter keeps the tuple, with a credential in the path redacted in place."""
    from uvicorn.logging import AccessFormatter

    def access(path: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                                 '%s - "%s %s HTTP/%s" %d',
                                 ("127.0.0.1:5000", "GET", path, "1.1", 200), None)

    formatter = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                                use_colors=False)
    plain, secret = access("/status"), access("/api/search?q=x&token=abc123secret")
    assert RedactingFilter().filter(plain) and RedactingFilter().filter(secret)
    assert formatter.format(plain) == '127.0.0.1:5000 - "GET /status HTTP/1.1" 200 OK'
    line = formatter.format(secret)
    assert "abc123secret" not in line and line.endswith('token=*** HTTP/1.1" 200 OK')

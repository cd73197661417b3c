"""POST /mcp with the official MCP Python SDK as the client, over real HTTP to the app
served as `mallory serve` serves it: list the tools, call each one, and be refused without
the owner's credentials."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from tests.conftest import TOKEN, note, sync
from worker.config import Settings
from worker.mcp.rpc import REFUSED

OWNER_TOKEN = "owner-token-for-mcp"
TOOLS = {"search_memory", "recall", "get_note", "get_message", "remember", "forget",
         "inspect"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = settings_for_bind(Settings(sync_tokens=(TOKEN,), owner_token=OWNER_TOKEN),
                                 "127.0.0.1")
    with running_server(tmp_path / "mcp.sqlite", token=TOKEN, settings=settings) as s:
        yield s


@asynccontextmanager
async def session(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    client = create_mcp_http_client(headers=headers)
    async with (client, streamable_http_client(f"{url}/mcp", http_client=client) as streams,
                ClientSession(*streams) as s):
        await s.initialize()
        yield s


def owner(url: str) -> dict[str, str]:
    # The SDK sends no Origin; a browser page would, and the owner's own origin is allowed.
    return {"authorization": f"Bearer {OWNER_TOKEN}", "origin": url}


def text_of(called: CallToolResult) -> str:
    """The text of a tool's first content item (every tool answers in text)."""
    content = called.content[0]
    assert isinstance(content, TextContent), content
    return content.text


def result(called: Any) -> Any:
    assert not called.is_error, called.content
    [text] = called.content
    return json.loads(text.text)


async def sync_note(server: RunningServer) -> None:
    body = "The spare key for the shed is under the blue geranium pot by the back door."
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as hub:
        synced = await sync(hub, note("Home/Shed.md", body, title="Shed"))
    assert synced.status_code == 200, synced.text


async def test_every_tool_through_the_sdk(server: RunningServer) -> None:
    await sync_note(server)
    async with session(server.url, owner(server.url)) as s:
        listed = await s.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        search = next(t for t in listed.tools if t.name == "search_memory")
        assert search.input_schema["required"] == ["query"]

        found = result(await s.call_tool("search_memory", {"query": "shed key geranium"}))
        assert [h["id"] for h in found["hits"]] == ["Home/Shed.md"]
        note = result(await s.call_tool("get_note", {"path": "Home/Shed.md"}))
        assert note["vault"] == "Life" and "blue geranium pot" in note["body"]

        kept = result(await s.call_tool("remember", {"text": "My bike lock code is 4-1-7-3."}))
        message_id = kept["remembered"]["id"]
        fetched = result(await s.call_tool("get_message", {"id": message_id}))
        assert fetched["message"]["content"] == "My bike lock code is 4-1-7-3."
        recalled = result(await s.call_tool("recall", {"message": "what is my bike lock code?"}))
        assert recalled["injected"] >= 1
        assert message_id in [h["id"] for h in recalled["hits"]]
        async with httpx.AsyncClient(base_url=server.url, headers=owner(server.url)) as web:
            saved = (await web.get("/api/memories")).json()["memories"]
            assert [(m["id"], m["fact"]) for m in saved] == \
                [(message_id, "My bike lock code is 4-1-7-3.")]  # a saved memory
            paused = await web.put("/api/memory/pause", json={"paused": True})
            assert paused.status_code == 200, paused.text
        held = result(await s.call_tool("recall", {"message": "what is my bike lock code?"}))
        assert (held["skipped"], held["injected"], held["hits"]) == ("paused", 0, [])
        async with httpx.AsyncClient(base_url=server.url, headers=owner(server.url)) as web:
            assert (await web.put("/api/memory/pause", json={"paused": False})).is_success

        gone = result(await s.call_tool("forget", {"message_id": message_id}))
        assert gone
        again = result(await s.call_tool("search_memory", {"query": "bike lock code"}))
        assert message_id not in [h["id"] for h in again["hits"]]
        async with httpx.AsyncClient(base_url=server.url, headers=owner(server.url)) as web:
            assert (await web.get("/api/memories")).json()["memories"] == []  # deleted too

        missing = await s.call_tool("get_note", {"path": "Nowhere.md"})
        assert missing.is_error and "no note" in text_of(missing)
        bad = await s.call_tool("search_memory", {"limit": 3})
        assert bad.is_error and "query" in text_of(bad)
        # `remember` checks a fact as POST /api/memories does, and stores nothing bad.
        for text, needle in (("   ", "after trimming"), ("a\u0000b", "control characters")):
            refused = await s.call_tool("remember", {"text": text})
            assert refused.is_error and needle in text_of(refused), text_of(refused)
        async with httpx.AsyncClient(base_url=server.url, headers=owner(server.url)) as web:
            assert (await web.get("/api/memories")).json()["memories"] == []


async def test_inspect_through_the_sdk(server: RunningServer) -> None:
    await sync_note(server)
    async with session(server.url, owner(server.url)) as s:
        recall = result(await s.call_tool("inspect", {"query": "where is the shed key?"}))
        assert (recall["policy"], recall["subject"]) == ("automatic", "search")
        [shed] = [c for c in recall["candidates"] if c["id"] == "Home/Shed.md"]
        assert shed["hit"] and shed["decision"]["passed"]
        assert shed["decision"]["reason"].startswith("its estimated relevance ")
        search = result(await s.call_tool("inspect", {"query": "geranium",
                                                      "policy": "explicit"}))
        assert search["policy"] == "explicit" and search["hits"] == 1
        bad = await s.call_tool("inspect", {"query": "x", "policy": "loud"})
        assert bad.is_error and "policy" in text_of(bad)


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


async def test_without_credentials_the_sdk_is_refused(server: RunningServer) -> None:
    for headers in ({}, {"authorization": "Bearer wrong", "origin": server.url}):
        with pytest.raises(BaseExceptionGroup) as caught:
            async with session(server.url, headers):
                pytest.fail("the session opened without the owner's credentials")
        # the SDK reports the server's refusal of `initialize` as an MCP error, with the
        # server's own code and message (not its stand-in for a non-JSON-RPC body, -32603)
        (refused,) = leaves(caught.value)
        assert isinstance(refused, MCPError), refused
        assert refused.error.code == REFUSED, refused.error
        assert "token" in refused.error.message.lower(), refused.error.message


def test_without_credentials_a_request_is_401(server: RunningServer) -> None:
    refused = httpx.post(f"{server.url}/mcp", timeout=10, json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].lower().startswith("bearer")
    body = refused.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == REFUSED
    # the app's own error object, as every other route answers it
    assert body["error"]["data"]["error"]["message"] == body["error"]["message"]


def test_foreign_origins_and_hosts_are_refused(server: RunningServer) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    auth = {"authorization": f"Bearer {OWNER_TOKEN}"}
    foreign = httpx.post(f"{server.url}/mcp", json=message, timeout=10,
                         headers={**auth, "origin": "https://evil.example"})
    assert foreign.status_code == 403
    rebound = httpx.post(f"{server.url}/mcp", json=message, timeout=10,
                         headers={**auth, "origin": server.url, "host": "evil.example"})
    assert rebound.status_code == 421


def test_the_transport_edges(server: RunningServer) -> None:
    headers = owner(server.url)
    note = httpx.post(f"{server.url}/mcp", headers=headers, timeout=10,
                      json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert note.status_code == 202 and note.content == b""
    assert httpx.get(f"{server.url}/mcp", headers=headers, timeout=10).status_code == 405
    unknown = httpx.post(f"{server.url}/mcp", headers=headers, timeout=10,
                         json={"jsonrpc": "2.0", "id": 7, "method": "resources/list"})
    assert unknown.json()["error"]["code"] == -32601 and unknown.json()["id"] == 7
    batch = httpx.post(f"{server.url}/mcp", headers=headers, timeout=10, json=[])
    assert batch.status_code == 200 and batch.json()["error"]["code"] == -32600
    garbled = httpx.post(f"{server.url}/mcp", headers={**headers,
                                                       "content-type": "application/json"},
                         content=b"{not json", timeout=10)
    assert garbled.status_code == 400 and garbled.json()["error"]["code"]

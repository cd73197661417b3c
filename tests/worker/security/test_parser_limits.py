"""Parser limits: hostile JSON and cursors are 400s with codes."""

from __future__ import annotations

import json
from itertools import accumulate

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local.sqlite_db import SqliteDatabase
from shared.api.errors import BadRequest
from shared.api.json_bounds import (
    _STRING,
    JsonLimits,
    _check_depth,
    _check_strings,
    _hop_strings,
    loads_bounded,
)
from tests.conftest import LIFE_ID, auth, heartbeat
from tests.rows import one, stored
from worker.cursors import parse_conversation_cursor

JSON = {"content-type": "application/json"}
HOSTILE = [
    (b"[" * 5_000 + b"]" * 5_000, "json_too_deep"),
    (b'{"content": ' + b"[" * 5_000, "json_too_deep"),
    (b'{"content": "x", "context": ' + b'{"a":' * 40 + b"1" + b"}" * 40 + b"}", "json_too_deep"),
    (b'{"content": ' + b"9" * 5_000 + b"}", "number_too_large"),
    (b'{"content": "x", "context": -' + b"1" * 100 + b"}", "number_too_large"),
    (b'{"content": "x", "context": 0.' + b"5" * 100 + b"}", "number_too_large"),
]


@pytest.mark.parametrize(("body", "code"), HOSTILE)
async def test_hostile_chat_bodies(client: httpx.AsyncClient, db: SqliteDatabase,
                                   body: bytes, code: str) -> None:
    response = await client.post("/api/chat", content=body, headers=JSON)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert (await one(db.prepare("SELECT count(*) AS n FROM messages")))["n"] == 0


@pytest.mark.parametrize(("body", "code"), HOSTILE)
async def test_hostile_sync_bodies(client: httpx.AsyncClient, body: bytes, code: str) -> None:
    response = await client.post("/vault/sync", content=body, headers={**JSON, **auth()})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code


# Every route that parses a JSON body, each with a body that is right but for a key named
# twice: the key is named in a 400 and nothing is stored (json.loads alone kept the last).
DUPLICATED = [
    ("POST", "/api/chat", b'{"content": "first zebra", "content": "second zebra"}', "content"),
    ("POST", "/api/chat", b'{"content": "zebra", "context": {"timezone": "Europe/Rome", '
                          b'"timezone": "Pacific/Auckland"}}', "timezone"),
    ("POST", "/api/memories", b'{"fact": "I like tea", "fact": "I like coffee"}', "fact"),
    ("PUT", "/api/memory/pause", b'{"paused": true, "paused": false}', "paused"),
    ("POST", "/api/feedback", b'{"message_id": "m", "n": 1, "n": 2, "judgment": "relevant"}',
     "n"),
    ("PATCH", "/api/conversations/c1", b'{"title": "a", "title": "b"}', "title"),
    ("POST", "/api/import?format=mallory", b'{"format": "mallory-export", "version": 1, '
                                           b'"version": 2, "conversations": []}', "version"),
    ("POST", "/mcp", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", '
                     b'"method": "tools/call"}', "method"),
    ("POST", "/vault/heartbeat", b'{"vault_id": "' + LIFE_ID.encode() + b'", "vault": "Life", '
                                 b'"vault": "Work"}', "vault"),
    ("POST", "/vault/sync", b'{"batch_id": "b1", "vault_id": "' + LIFE_ID.encode() + b'", '
     b'"vault": "Life", "seq": 1, "deletes": [], "upserts": [{"path": "A.md", "path": "B.md", '
     b'"title": "A", "body": "x", "mtime": 1, "note_date": 1, "content_hash": "h", '
     b'"tags": [], "aliases": []}]}', "path"),
]


@pytest.mark.parametrize(("method", "path", "body", "key"), DUPLICATED)
async def test_a_key_named_twice_is_a_400_naming_it(client: httpx.AsyncClient,
                                                    db: SqliteDatabase, method: str,
                                                    path: str, body: bytes, key: str) -> None:
    await heartbeat(client)  # a vault to sync into: only the duplicate is wrong
    before = await stored(db)
    response = await client.request(method, path, content=body, headers={**JSON, **auth()}
                                    if path.startswith("/vault/") else JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "duplicate_key"
    assert f"names the key {key!r} twice" in error["message"]
    assert await stored(db) == before


@pytest.mark.parametrize("body", [b'{"a": {"x": 1}, "b": {"x": 2}}', b'{"a": 1, "A": 2}',
                                  b'[{"a": 1}, {"a": 2}]', rb'{"a": "\"a\": 1"}'])
def test_the_same_key_in_other_objects_is_no_duplicate(body: bytes) -> None:
    assert loads_bounded(body, "x") == json.loads(body)


@pytest.mark.parametrize("body", [b"NaN", b"[Infinity]", b"[-Infinity]", b"[1e400]",
                                  b'{"a": 1e99999}'])
def test_non_finite_numbers_are_refused(body: bytes) -> None:
    with pytest.raises(BadRequest):
        loads_bounded(body, "chat")


def test_brackets_and_digits_inside_strings_do_not_count() -> None:
    text = '{"a": "' + "[" * 100 + "9" * 100 + '\\"]]]"}'
    assert loads_bounded(text.encode(), "chat") == {"a": "[" * 100 + "9" * 100 + '"]]]'}


def test_depth_limit_is_exact() -> None:
    limits = JsonLimits(max_depth=3)
    assert loads_bounded(b"[[[1]]]", "x", limits) == [[[1]]]
    with pytest.raises(BadRequest) as info:
        loads_bounded(b"[[[[1]]]]", "x", limits)
    assert info.value.code == "json_too_deep"
    assert loads_bounded(b"[[[1]],[[2]],[[3]]]", "x", limits)  # siblings do not add up


def test_string_limit() -> None:
    limits = JsonLimits(max_string_bytes=10)
    assert loads_bounded(b'["12345678"]', "x", limits) == ["12345678"]
    with pytest.raises(BadRequest) as info:
        loads_bounded(b'["123456789"]', "x", limits)
    assert info.value.code == "string_too_long"


def test_an_unterminated_string_is_a_quick_400() -> None:
    with pytest.raises(BadRequest, match="not valid JSON"):
        loads_bounded(b'{"a": "' + b"\\\\x" * 200_000, "chat")


@pytest.mark.parametrize("cursor", [
    "\u00b21.x",             # '²'.isdigit() is True; int('²') raises (a 500 in the probe)
    "\u0661\u0662.x",        # Arabic-Indic digits
    "99999999999999999999.x",  # beyond 2^53 (a 503 in the probe)
    "9007199254740992.x",    # 2^53 exactly: one past the largest safe integer
    "12", "12.", ".x", "1 2.x", "+12.x", "-12.x", "1_000.x", "12.x y", "12.x\n",
    "12." + "a" * 101, "12.x/../y",
])
async def test_bad_conversation_cursors_are_400(client: httpx.AsyncClient, cursor: str) -> None:
    with pytest.raises(BadRequest):
        parse_conversation_cursor(cursor)
    response = await client.get("/api/conversations", params={"before": cursor})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_cursor"


def test_good_cursor() -> None:
    assert parse_conversation_cursor("9007199254740991.ab-12_c") == (2**53 - 1, "ab-12_c")


@pytest.mark.parametrize("value", ["\u0661", "\uff11\uff12", "1_0", " 7", "7\n", "9" * 5_000,
                                   "0x10", "1e3"])
async def test_integer_parameters_are_ascii_digits_only(client: httpx.AsyncClient,
                                                        value: str) -> None:
    for path in ("/api/conversations", "/api/conversations/c1/messages"):
        response = await client.get(path, params={"limit": value})
        assert response.status_code == 400, (path, value)
        assert len(response.json()["error"]["message"]) < 200
    response = await client.get("/api/conversations/c1/messages", params={"before": value})
    assert response.status_code == 400


json_like = st.recursive(
    st.text(alphabet='"\\a[1{', max_size=10) | st.integers(),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(alphabet='"\\a', max_size=4),
                                                        c, max_size=3))


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200) | st.text(alphabet='"\\ab[]{}01', max_size=80).map(str.encode)
       | json_like.map(lambda v: json.dumps(v).encode()))
def test_quote_hopping_empties_strings_exactly_as_the_regex(body: bytes) -> None:
    """The fast path for sparse quotes must agree with the regex byte for byte."""
    skeleton, longest = _hop_strings(body)
    assert skeleton == _STRING.sub(b'""', body)
    assert longest == max((m.end() - m.start() for m in _STRING.finditer(body)), default=0)


@pytest.mark.parametrize("body", [
    b'{"a": "' + b"x" * 10_000 + b'", "b": [' + b"[" * 40 + b"]" * 40 + b"]}",  # sparse
    b'[' + b'"",' * 40 + b"[" * 40 + b"]" * 40 + b"]",                           # dense
])
def test_both_paths_find_the_same_depth(body: bytes) -> None:
    with pytest.raises(BadRequest) as info:
        loads_bounded(body, "x")
    assert info.value.code == "json_too_deep"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="[]{}a,:0", max_size=120).map(str.encode), st.integers(0, 8))
def test_the_depth_refused_is_the_deepest_open_bracket(skeleton: bytes, max_depth: int) -> None:
    steps = [1 if c in b"[{" else -1 for c in skeleton if c in b"[]{}"]
    deepest = max(accumulate(steps), default=0)
    limits = JsonLimits(max_depth=max_depth)
    if deepest > max_depth:
        with pytest.raises(BadRequest) as info:
            _check_depth(skeleton, "x", limits)
        assert info.value.code == "json_too_deep"
    else:
        _check_depth(skeleton, "x", limits)


@settings(max_examples=300, deadline=None)
@given(json_like.map(lambda v: json.dumps(v).encode()), st.integers(1, 40))
def test_a_body_within_the_string_limit_is_emptied_as_the_regex_does(body: bytes,
                                                                      limit: int) -> None:
    """Dense quotes and a body no longer than the limit (no string can be over it)."""
    limits = JsonLimits(max_string_bytes=max(limit, len(body)))
    assert _check_strings(body, "x", limits) == _STRING.sub(b'""', body)

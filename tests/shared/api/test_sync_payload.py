"""The pure payload parsers: any bytes give a parsed model or one of our typed errors."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.api.body import parse_json_model
from shared.api.errors import MalloryError
from shared.api.owner_requests import ChatRequest
from shared.api.sync_payload import SyncBatch, parse_sync_batch

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20)
sync_like = st.fixed_dictionaries({
    "batch_id": st.text(max_size=20) | st.integers(), "vault": st.text(max_size=10),
    "vault_id": st.uuids().map(str) | json_values, "seq": st.integers() | json_values,
    "upserts": st.lists(st.dictionaries(
        st.sampled_from(["path", "title", "body", "mtime", "note_date", "content_hash",
                         "tags", "aliases", "relations", "role", "status", "extra"]),
        json_values, max_size=8), max_size=3),
    "deletes": st.lists(json_values, max_size=3)})


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode())
       | sync_like.map(lambda v: json.dumps(v).encode()))
def test_sync_parser_never_fails_untyped(body: bytes) -> None:
    try:
        assert isinstance(parse_sync_batch(body, 1_780_000_000_000), SyncBatch)
    except MalloryError as exc:
        assert exc.status in (400, 413, 422)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_chat_parser_never_fails_untyped(body: bytes) -> None:
    try:
        assert isinstance(parse_json_model(body, ChatRequest, "chat"), ChatRequest)
    except MalloryError as exc:
        assert exc.status in (400, 422)

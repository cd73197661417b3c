"""The README's `/api/search` documentation against the wire model it describes: the
hit-field table and the example hit name exactly the fields of `shared.api.wire.SearchHit`
(/api/search returns only documented fields, and the README's API table documents
them all). And its size-limit table against the constants the routes enforce."""

from __future__ import annotations

import json
import re

from shared.api.limits import (
    MAX_BATCH_ITEMS,
    MAX_CHAT_BODY_BYTES,
    MAX_CHAT_CHARS,
    MAX_CONTEXT_BYTES,
    MAX_CONVERSATION_TITLE_CHARS,
    MAX_FEEDBACK_BODY_BYTES,
    MAX_HEARTBEAT_BODY_BYTES,
    MAX_IMPORT_BODY_BYTES,
    MAX_MEMORY_BODY_BYTES,
    MAX_MEMORY_CHARS,
    MAX_PAUSE_BODY_BYTES,
    MAX_RENAME_BODY_BYTES,
    MAX_SYNC_BODY_BYTES,
)
from shared.api.wire import SearchHit
from tests.conftest import ROOT
from worker.openapi.operations import OPERATIONS
from worker.routes.archive import MAX_IMPORT_MESSAGES
from worker.routes.mcp import MAX_MCP_BODY_BYTES

README = (ROOT / "README.md").read_text(encoding="utf-8")
TABLE_INTRO = "`/api/search` answers"
EXAMPLE = re.compile(r"<!-- example: GET /api/search 200 -->\s*```json\n(.*?)\n```", re.S)


def hit_table_rows(text: str) -> list[tuple[list[str], str]]:
    """(field names, meaning) of each row of the first table after TABLE_INTRO."""
    assert TABLE_INTRO in text, f"the README no longer opens the hit table with {TABLE_INTRO!r}"
    lines = text[text.index(TABLE_INTRO):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| field |"))
    rows = []
    for line in lines[start + 2:]:  # past the header and its |---| rule
        if not line.startswith("|"):
            break
        first, meaning = (cell.strip() for cell in line.strip("|").split("|", 1))
        rows.append((re.findall(r"`([^`]+)`", first), meaning))
    return rows


def test_the_hit_table_documents_every_search_hit_field_and_nothing_else() -> None:
    rows = hit_table_rows(README)
    documented = [name for names, _ in rows for name in names]
    assert len(documented) == len(set(documented)), f"a field is documented twice: {documented}"
    assert set(documented) == set(SearchHit.model_fields), (
        f"undocumented: {sorted(set(SearchHit.model_fields) - set(documented))}; "
        f"not in SearchHit: {sorted(set(documented) - set(SearchHit.model_fields))}")
    assert all(meaning for _, meaning in rows)


def test_the_example_hit_shows_every_field() -> None:
    [example] = EXAMPLE.findall(README)
    hits = json.loads(example)["hits"]
    assert hits, "the example answer shows no hit"
    for hit in hits:
        assert set(hit) == set(SearchHit.model_fields)
        SearchHit.model_validate(hit)


def test_the_table_parser_sees_a_missing_row() -> None:
    # The check above is only as good as the parser: a table without the `heading` row
    # must come out without it.
    without = "\n".join(line for line in README.splitlines()
                        if not line.startswith("| `heading` |"))
    names = {name for names, _ in hit_table_rows(without) for name in names}
    assert "heading" not in names and "standing" in names


SIZE_LIMITS_INTRO = "**Size limits**"
# route(s) → (what the field column states, the body limit), from the constants.
SIZE_LIMITS = {
    ("POST /api/chat",): ([f"`content` ≤ {MAX_CHAT_CHARS:,} characters",
                           f"`context` ≤ {MAX_CONTEXT_BYTES:,} bytes"], MAX_CHAT_BODY_BYTES),
    ("POST /api/memories", "PATCH /api/memories/{id}"): (
        [f"`fact` ≤ {MAX_MEMORY_CHARS:,} characters"], MAX_MEMORY_BODY_BYTES),
    ("PATCH /api/conversations/{id}",): (
        [f"`title` ≤ {MAX_CONVERSATION_TITLE_CHARS:,} characters"], MAX_RENAME_BODY_BYTES),
    ("POST /api/feedback",): ([], MAX_FEEDBACK_BODY_BYTES),
    ("PUT /api/memory/pause",): ([], MAX_PAUSE_BODY_BYTES),
    ("POST /api/import",): ([f"≤ {MAX_IMPORT_MESSAGES:,} messages"], MAX_IMPORT_BODY_BYTES),
    ("POST /mcp",): ([], MAX_MCP_BODY_BYTES),
    ("POST /vault/sync",): ([f"≤ {MAX_BATCH_ITEMS:,} items"], MAX_SYNC_BODY_BYTES),
    ("POST /vault/heartbeat",): ([], MAX_HEARTBEAT_BODY_BYTES),
}


def size_limit_rows(text: str) -> dict[tuple[str, ...], tuple[str, str]]:
    """route(s) → (field cell, body cell) of the table after SIZE_LIMITS_INTRO."""
    assert SIZE_LIMITS_INTRO in text, f"the README no longer has {SIZE_LIMITS_INTRO!r}"
    lines = text[text.index(SIZE_LIMITS_INTRO):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| route |"))
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        route, field, body = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows[tuple(re.findall(r"`([A-Z]+ [^`]+)`", route))] = (field, body)
    return rows


def test_the_readme_states_the_size_limits_the_routes_enforce() -> None:
    rows = size_limit_rows(README)
    assert set(rows) == set(SIZE_LIMITS)
    for routes, (fields, body_limit) in SIZE_LIMITS.items():
        field, body = rows[routes]
        assert body == f"≤ {body_limit:,} bytes", routes
        for stated in fields:
            assert stated in field, (routes, stated)


def test_every_route_taking_a_json_body_has_its_size_limit_stated() -> None:
    stated = {route.replace("{id}", "") for routes in SIZE_LIMITS for route in routes}
    with_body = {re.sub(r"\{[^}]+\}", "", f"{op.method} {op.path}") for op in OPERATIONS
                 if (op.request is not None and op.request_media == "application/json")
                 or op.path in ("/mcp", "/api/import")}
    assert with_body <= stated, sorted(with_body - stated)


def test_the_size_table_parser_sees_a_changed_figure() -> None:
    changed = README.replace(f"≤ {MAX_CHAT_CHARS:,} characters", "≤ 9,000 characters", 1)
    assert f"≤ {MAX_CHAT_CHARS:,} characters" not in size_limit_rows(changed)[
        ("POST /api/chat",)][0]

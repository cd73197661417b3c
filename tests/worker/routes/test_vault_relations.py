"""POST /vault/sync with the knowledge model (migrations/0006), on real SQLite through the
ASGI app: relations stored as an adjacency table that follows its notes through edits,
deletes and renames; statuses stored only when known; bad relations refused whole."""

from __future__ import annotations

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from shared.knowledge.relations import RelationEdge
from tests.conftest import NOW_MS, auth, batch, heartbeat, note, sync

EDGES_SQL = """
SELECT n.path AS source, r.target_path, r.type, r.scope, r.linked,
       EXISTS (SELECT 1 FROM vault_notes AS t
               WHERE t.vid = r.vid AND t.path = r.target_path) AS resolved
FROM note_relations AS r JOIN vault_notes AS n ON n.rid = r.note_rid
ORDER BY n.path, r.ord
"""


async def edges(db: SqliteDatabase) -> list[tuple]:
    rows = (await db.prepare(EDGES_SQL).all()).results
    return [(r["source"], r["target_path"], r["type"], r["scope"], r["linked"],
             r["resolved"]) for r in rows]


def rel(target: str, type_: str, linked: bool = True, scope: str | None = None) -> dict:
    return RelationEdge(target=target, type=type_, linked=linked, scope=scope).model_dump()


A = note("Ideas/A.md", "Claims A; see [[B]].", relations=[
    rel("Ideas/B.md", "supports"), rel("Ideas/C.md", "applies_under", scope="in winter"),
    rel("Ideas/B.md", "see_also", linked=False)])
B = note("Ideas/B.md", "Claims B.")


async def test_relations_become_edges_resolved_when_read(client: httpx.AsyncClient,
                                                         db: SqliteDatabase) -> None:
    await sync(client, A, B)
    assert await edges(db) == [
        ("Ideas/A.md", "Ideas/B.md", "supports", None, 1, 1),
        ("Ideas/A.md", "Ideas/C.md", "applies_under", "in winter", 1, 0),  # no C yet
        ("Ideas/A.md", "Ideas/B.md", "see_also", None, 0, 1)]  # kept, inert
    await sync(client, note("Ideas/C.md", "Claims C."), batch_id="c")
    assert (await edges(db))[1][-1] == 1  # C appeared: the edge resolves


async def test_edges_follow_edits_deletes_and_renames(client: httpx.AsyncClient,
                                                      db: SqliteDatabase) -> None:
    await sync(client, A, B)
    edited = note("Ideas/A.md", "Claims A, now against [[B]].",
                  relations=[rel("Ideas/B.md", "contradicts")], mtime=NOW_MS)
    await sync(client, edited, batch_id="edit")
    assert await edges(db) == [("Ideas/A.md", "Ideas/B.md", "contradicts", None, 1, 1)]
    # B renamed (a hub sends the new path, then deletes the old): A's edge lapses…
    await sync(client, note("Ideas/B2.md", "Claims B."), batch_id="rename",
               deletes=[{"path": "Ideas/B.md", "deleted_at": NOW_MS}])
    assert await edges(db) == [("Ideas/A.md", "Ideas/B.md", "contradicts", None, 1, 0)]
    # … and A, deleted, takes its edges with it.
    await sync(client, batch_id="gone", deletes=[{"path": "Ideas/A.md", "deleted_at": NOW_MS}])
    assert await edges(db) == []


async def test_an_unchanged_resend_keeps_the_edges(client: httpx.AsyncClient,
                                                   db: SqliteDatabase) -> None:
    await sync(client, A, B)
    before = (await db.prepare("SELECT rowid, * FROM note_relations").all()).results
    await sync(client, A, batch_id="again")
    assert (await db.prepare("SELECT rowid, * FROM note_relations").all()).results == before


async def test_status_is_stored_only_when_known_and_role_as_sent(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, note("a.md", "x", status="Stable", type="Decision"),
               note("b.md", "y", status="active", role="evidence"))
    rows = (await db.prepare("SELECT path, note_type, status, role FROM vault_notes "
                             "ORDER BY path").all()).results
    assert [(r["path"], r["note_type"], r["status"], r["role"]) for r in rows] == [
        ("a.md", "Decision", "stable", None), ("b.md", None, None, "evidence")]


@pytest.mark.parametrize(("relations", "message"), [
    ([rel("Ideas/A.md", "supports")], "names the note itself"),
    ([rel("Ideas/B.md", "supports"), rel("Ideas/B.md", "supports")], "repeats relations[0]"),
    ([{"target": "../x.md", "type": "supports", "linked": True}], "'..'"),
    ([{"target": "B", "type": "supports", "linked": True}], "Markdown file"),
    ([{"target": "Ideas/B.md", "type": "applies_under", "linked": True}], "needs a scope"),
    ([{"target": "Ideas/B.md", "type": "supports", "linked": "yes"}], "boolean"),
    ([{"target": "Ideas/B.md", "type": "supports"}], "linked"),
    ({"target": "Ideas/B.md"}, "list"),
])
async def test_bad_relations_refuse_the_batch_naming_the_item(
        client: httpx.AsyncClient, db: SqliteDatabase, relations, message) -> None:
    await heartbeat(client)
    bad = {**A.model_dump(), "relations": relations}
    body = {**batch("bad"), "upserts": [B.model_dump(), bad]}
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 422, response.text
    details = response.json()["error"]["details"]
    assert [d["item"] for d in details] == ["upserts[1]"] * len(details)
    assert any(message in d["message"] or message in str(d["field"]) for d in details)
    count = await db.prepare("SELECT count(*) AS n FROM vault_notes").first()
    assert count == {"n": 0}
    assert await edges(db) == []

"""Contradictions together on real SQLite: conflict relations followed one hop from what
automatic recall chose, either direction, only when effective, within three hits."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from local.sqlite_db import SqliteDatabase
from shared.knowledge.relations import RelationEdge
from tests.conftest import NOW_MS, note, sync
from worker.db import Result, Statement
from worker.recall.automatic import gated
from worker.recall.explicit import search
from worker.store.relations_sql import EDGES_SQL


def edge(target: str, type_: str, linked: bool = True, scope: str | None = None
         ) -> RelationEdge:
    return RelationEdge(target=target, type=type_, linked=linked, scope=scope)


OLD = note("Decisions/Backups old.md",
           "Nightly rsync of the photos folder to the USB disk at 02:30. Replaced by "
           "[[Backups new]].", title="Backups: rsync to the USB disk", type="decision",
           status="deprecated")
NEW = note("Decisions/Backups new.md",
           "Déjà Dup to the NAS every day, six months of versions. Supersedes "
           "[[Backups old]].", title="Backups: Déjà Dup to the NAS", type="decision",
           status="stable", relations=[edge("Decisions/Backups old.md", "supersedes")])
FILLER = [note(f"Misc/Note {i}.md", f"Unrelated musings number {i} about tea and kettles.")
          for i in range(6)]


async def test_a_superseded_note_comes_with_its_replacement_current_first(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, OLD, NEW, *FILLER)
    found = await gated(db, "do we still rsync the photos to the usb disk?", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Decisions/Backups new.md",
                                          "Decisions/Backups old.md"]
    new, old = found.hits
    assert [(link.type, link.direction) for link in new.note.links] == [("supersedes", "out")]
    assert [(link.type, link.direction) for link in old.note.links] == [("supersedes", "in")]
    assert (new.note.status, new.identity.knowledge_role, old.note.status) == (
        "stable", "canonical", "deprecated")


async def test_the_edge_is_followed_from_the_target_side_too(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, OLD, NEW, *FILLER)
    found = await gated(db, "Déjà Dup NAS versions", NOW_MS)
    assert [h.identity.id for h in found.hits][:2] == ["Decisions/Backups new.md",
                                              "Decisions/Backups old.md"]


async def test_an_unlinked_or_unknown_relation_is_inert(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    unlinked = NEW.model_copy(update={"relations": [
        edge("Decisions/Backups old.md", "supersedes", linked=False),
        edge("Decisions/Backups old.md", "overrides")]})
    await sync(client, OLD, unlinked, *FILLER)
    found = await gated(db, "Déjà Dup NAS versions", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Decisions/Backups new.md"]
    assert found.hits[0].note.links == ()


async def test_an_edge_to_a_missing_page_lapses_and_returns_with_it(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, NEW, *FILLER, batch_id="without-old")
    found = await gated(db, "Déjà Dup NAS versions", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Decisions/Backups new.md"]
    await sync(client, OLD, batch_id="old-arrives")
    found = await gated(db, "Déjà Dup NAS versions", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Decisions/Backups new.md",
                                          "Decisions/Backups old.md"]
    await sync(client, batch_id="old-goes",
               deletes=[{"path": "Decisions/Backups old.md", "deleted_at": NOW_MS}])
    found = await gated(db, "Déjà Dup NAS versions", NOW_MS)
    assert [h.identity.id for h in found.hits] == ["Decisions/Backups new.md"]


async def test_contradicting_notes_share_the_three_hit_budget(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    a = note("SSH/Port 22.md", "Keep sshd on port 22 with keys only. Contradicts "
             "[[Port 2222]].", type="decision", status="stable",
             relations=[edge("SSH/Port 2222.md", "contradicts")])
    b = note("SSH/Port 2222.md", "Move sshd to port 2222 to quiet the auth log. Goes "
             "against [[Port 22]].", type="decision", status="draft",
             relations=[edge("SSH/Port 22.md", "contradicts")])
    c = note("SSH/Clipping.md", "A forum post: changing the sshd port stops scanners.",
             type="clipping", relations=[edge("SSH/Port 22.md", "contradicts")])
    d = note("SSH/Clipping 2.md", "Another post: a moved sshd port is obscurity only.",
             type="clipping", relations=[edge("SSH/Port 22.md", "supports")])
    await sync(client, a, b, c, d, *FILLER)
    found = await gated(db, "which port should sshd use, 22 or 2222?", NOW_MS)
    ids = [h.identity.id for h in found.hits]
    assert len(ids) <= 3 and {"SSH/Port 22.md", "SSH/Port 2222.md"} <= set(ids)
    assert ids.index("SSH/Port 22.md") < ids.index("SSH/Port 2222.md")  # stable first
    assert "SSH/Clipping 2.md" not in ids  # supports is no conflict relation


async def test_explicit_search_ranks_by_standing_without_bundling(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    same = "The garden hose fitting is a 3/4 inch thread."
    await sync(client,
               note("Garden/Hose draft.md", same, title="Hose fitting", status="draft",
                    type="procedure", note_date=NOW_MS - 86_400_000),
               note("Garden/Hose stable.md", same, title="Hose fitting", status="stable",
                    type="procedure", note_date=NOW_MS - 86_400_000),
               note("Garden/Hose old.md", same, title="Hose fitting", status="deprecated",
                    type="procedure", note_date=NOW_MS - 86_400_000))
    result = await search(db, "garden hose fitting thread", NOW_MS)
    assert [h.identity.id for h in result.hits] == ["Garden/Hose stable.md", "Garden/Hose draft.md",
                                           "Garden/Hose old.md"]
    stable, draft, old = result.hits
    assert (stable.scores.standing, draft.scores.standing, old.scores.standing) == (1.03, 1.0, 0.92)


class Recording:
    """The real database, remembering the SQL of every batch (for the round-trip count)."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db = db
        self.batches: list[list[str]] = []

    def prepare(self, sql: str) -> Statement:
        return self.db.prepare(sql)

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.batches.append([s.sql for s in statements])
        return await self.db.batch(statements)


async def test_notes_without_relations_cost_no_extra_round_trip(
        client: httpx.AsyncClient, db: SqliteDatabase) -> None:
    await sync(client, OLD, NEW, *FILLER)
    recording = Recording(db)
    found = await gated(recording, "unrelated musings about tea and kettles", NOW_MS)
    assert found.hits and not any(h.note.related for h in found.hits)
    assert not any(EDGES_SQL in sqls for sqls in recording.batches)
    found = await gated(recording, "Déjà Dup NAS versions", NOW_MS)
    assert sum(EDGES_SQL in sqls for sqls in recording.batches) == 1

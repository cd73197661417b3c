"""The hub's change plan and batching, on a real vault folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hub.plan import (
    MASS_DELETE_MIN,
    MASS_DELETE_SHARE,
    Run,
    make_batches,
    mass_delete,
    plan_changes,
)
from hub.reading import RACY_NS
from hub.state import PARSER_VERSION, UNKNOWN, Entry, State
from hub.walk import walk_vault
from shared.api.limits import MAX_BATCH_ITEMS
from shared.api.protocol import SECTIONS_VERSION
from shared.api.sync_payload import SyncBatch

NOW = 1_780_000_000_000
RUN = Run("0a0b0c0d-0000-4000-8000-000000000001", "Vault", 7)


def write(vault: Path, rel: str, text: str, mtime_s: float = 1_700_000_000) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime_s, mtime_s))


def entry_for(vault: Path, rel: str, digest: str, read_ns: int) -> Entry:
    stat = (vault / rel).stat()
    return Entry(hash=digest, mtime_ns=stat.st_mtime_ns, size=stat.st_size, pushed_at=NOW,
                 read_ns=read_ns, parser=PARSER_VERSION, ctime_ns=stat.st_ctime_ns)


def test_first_plan_sends_everything_and_reports_rejections(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    write(tmp_path, "b/c.md", "---\ntitle: [unclosed\n---\nbody")
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    assert [u.path for u in plan.upserts] == ["a.md"]
    assert [r.path for r in plan.rejected] == ["b/c.md"]
    assert plan.deletes == [] and set(plan.reads) == {"a.md"}


def test_a_settled_unchanged_stat_is_not_even_read(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    state = State(notes={"a.md": entry_for(tmp_path, "a.md", "h", time.time_ns())})
    reads: list[str] = []
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW,
                        read=lambda v, p, n: reads.append(p))  # type: ignore[arg-type,return-value]
    assert (plan.upserts, plan.unchanged, reads) == ([], 1, [])


def test_a_racy_stat_is_read_again_and_an_equal_hash_confirmed(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    first = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    digest = first.upserts[0].content_hash
    mtime_ns = (tmp_path / "a.md").stat().st_mtime_ns
    racy = State(notes={"a.md": entry_for(tmp_path, "a.md", digest, mtime_ns + RACY_NS - 1)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), racy, NOW)
    assert (plan.upserts, plan.unchanged, plan.confirmed) == ([], 1, ["a.md"])
    # An edit that kept the size and the (coarse) time stamp is caught by that read.
    write(tmp_path, "a.md", "alpHa")
    assert (tmp_path / "a.md").stat().st_mtime_ns == mtime_ns
    plan = plan_changes(tmp_path, walk_vault(tmp_path), racy, NOW)
    assert [u.body for u in plan.upserts] == ["alpHa"]


def test_a_rewrite_that_kept_size_and_mtime_is_caught_by_its_hash(tmp_path: Path) -> None:
    """A settled record, then the same size written with the old mtime put back (a sync
    tool, a restore, `touch -d`): only the change time shows it; reading it, the content
    hash differs and the page is sent. Before, it was never sent without --full."""
    write(tmp_path, "a.md", "alpha")
    first = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    state = State(notes={"a.md": entry_for(tmp_path, "a.md", first.upserts[0].content_hash,
                                           time.time_ns())})
    before = (tmp_path / "a.md").stat()
    time.sleep(0.01)  # the change time moves on (kernel time stamps are coarse)
    write(tmp_path, "a.md", "alpHa", mtime_s=before.st_mtime_ns / 1e9)
    after = (tmp_path / "a.md").stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert [u.body for u in plan.upserts] == ["alpHa"]
    # Only touched (chmod, a copy back of the same bytes): read, confirmed, not sent.
    same = State(notes={"a.md": entry_for(tmp_path, "a.md", plan.upserts[0].content_hash,
                                          time.time_ns())})
    time.sleep(0.01)
    os.chmod(tmp_path / "a.md", 0o600)
    again = plan_changes(tmp_path, walk_vault(tmp_path), same, NOW)
    assert (again.upserts, again.confirmed) == ([], ["a.md"])


def test_a_version_known_only_from_the_manifest_is_read(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    state = State(notes={"a.md": Entry(hash="remote", mtime_ns=UNKNOWN, size=UNKNOWN,
                                       pushed_at=0)})
    assert [u.path for u in plan_changes(tmp_path, walk_vault(tmp_path), state, NOW).upserts] \
        == ["a.md"]


def test_a_missing_file_becomes_a_delete_dated_now(tmp_path: Path) -> None:
    future_ms = NOW + 10_000
    state = State(notes={"gone.md": Entry(hash="h", mtime_ns=future_ms * 1_000_000, size=1,
                                          pushed_at=NOW)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert [(d.path, d.deleted_at) for d in plan.deletes] == [("gone.md", NOW)]


def test_batches_respect_item_and_byte_limits_and_ids_are_deterministic(tmp_path: Path) -> None:
    for i in range(25):
        write(tmp_path, f"n{i:02d}.md", "x" * 1_000)
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    batches = make_batches(plan, RUN, max_items=10, max_bytes=5_000)
    assert sum(b.size for b in batches) == 25
    assert all(b.size <= min(10, MAX_BATCH_ITEMS) for b in batches)
    assert all(len(b.upserts) <= 4 for b in batches)  # ~1.3 KB per item under 5,000 bytes
    again = make_batches(plan, RUN, max_items=10, max_bytes=5_000)
    assert [b.batch_id for b in batches] == [b.batch_id for b in again]
    assert len({b.batch_id for b in batches}) == len(batches)
    other_run = make_batches(plan, Run(RUN.vault_id, RUN.vault_name, 8), 10, 5_000)
    assert not {b.batch_id for b in batches} & {b.batch_id for b in other_run}
    payload = batches[0].payload(RUN)
    assert (payload["vault_id"], payload["vault"], payload["seq"]) == (RUN.vault_id, "Vault", 7)
    assert payload["sections_version"] == SECTIONS_VERSION
    assert SyncBatch.model_validate(payload).sections_version == SECTIONS_VERSION  # readable


def test_upserts_go_before_deletes(tmp_path: Path) -> None:
    write(tmp_path, "new.md", "moved here")
    state = State(notes={"old.md": Entry(hash="h", mtime_ns=1, size=1, pushed_at=NOW)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    [batch] = make_batches(plan, RUN)
    assert ([u.path for u in batch.upserts], [d.path for d in batch.deletes]) == (
        ["new.md"], ["old.md"])


REL = "---\nrelations:\n  - {target: %s, type: %s}\n---\n%s\n"


def test_relations_are_resolved_against_the_whole_vault_and_linted(tmp_path: Path) -> None:
    write(tmp_path, "New.md", REL % ("Old", "supersedes", "Replaces [[Old]]."))
    write(tmp_path, "Sub/Old.md", "---\nstatus: deprecated\n---\nThe old way.")
    write(tmp_path, "Lost.md", REL % ("Nowhere", "supports", "See [[Nowhere]]."))
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    sent = {u.path: [(r.target, r.type, r.linked) for r in u.relations] for u in plan.upserts}
    assert sent == {"New.md": [("Sub/Old.md", "supersedes", True)],
                    "Lost.md": [("Nowhere.md", "supports", True)], "Sub/Old.md": []}
    assert [(f.path, f.code) for f in plan.findings] == [("Lost.md",
                                                          "relation_missing_target")]
    assert plan.resolved["Lost.md"].missing == ["Nowhere"]
    assert {u.path: u.status for u in plan.upserts}["Sub/Old.md"] == "deprecated"


def test_a_page_whose_missing_target_appears_is_sent_again(tmp_path: Path) -> None:
    write(tmp_path, "Lost.md", REL % ("Nowhere", "supports", "See [[Nowhere]]."))
    first = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    digest = first.upserts[0].content_hash
    entry = entry_for(tmp_path, "Lost.md", digest, time.time_ns())
    entry.missing = ["Nowhere"]
    state = State(notes={"Lost.md": entry})
    again = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert (again.upserts, again.unchanged) == ([], 1)  # still missing: not even read
    write(tmp_path, "Elsewhere/Nowhere.md", "Here now.")
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    lost = next(u for u in plan.upserts if u.path == "Lost.md")
    assert lost.content_hash == digest  # same file, new relation target
    assert [r.target for r in lost.relations] == ["Elsewhere/Nowhere.md"]


def test_cycles_are_found_with_the_relations_of_pages_not_read(tmp_path: Path) -> None:
    write(tmp_path, "A.md", REL % ("B", "supersedes", "[[B]]"))
    write(tmp_path, "B.md", "B")
    entry = entry_for(tmp_path, "B.md", "h", time.time_ns())
    entry.relations = [["A.md", "supersedes"]]  # recorded when B was last sent
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(notes={"B.md": entry}), NOW)
    assert [u.path for u in plan.upserts] == ["A.md"]
    assert [(f.path, f.code) for f in plan.findings] == [("A.md", "relation_cycle")]


def test_a_relation_to_a_page_deleted_this_run_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "A.md", REL % ("B", "supports", "[[B]]"))
    entry = entry_for(tmp_path, "A.md", "h", time.time_ns())
    entry.relations = [["B.md", "supports"]]
    state = State(notes={"A.md": entry, "B.md": Entry("h", 1, 1, NOW)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert [d.path for d in plan.deletes] == ["B.md"] and plan.upserts == []
    assert [(f.path, f.code) for f in plan.findings] == [("A.md", "relation_missing_target")]
    assert "'B.md': that page was deleted or moved" in plan.findings[0].message


def test_a_mass_delete_counts_notes_lost_not_notes_moved(tmp_path: Path) -> None:
    for i in range(40):
        write(tmp_path, f"Old/n{i}.md", f"note {i}")
    first = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    state = State(notes={u.path: Entry(u.content_hash, 1, 1, NOW, parser=PARSER_VERSION)
                         for u in first.upserts})
    (tmp_path / "Old").rename(tmp_path / "New")  # a folder renamed: 40 deletes, no loss
    moved = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert len(moved.deletes) == 40 and mass_delete(moved, state) is None
    for i in range(9):
        (tmp_path / f"New/n{i}.md").unlink()
    assert mass_delete(plan_changes(tmp_path, walk_vault(tmp_path), state, NOW),
                       state) is None  # 9: under the floor of 10
    (tmp_path / "New/n9.md").unlink()
    assert mass_delete(plan_changes(tmp_path, walk_vault(tmp_path), state, NOW), state) == 10
    assert MASS_DELETE_MIN == 10 and MASS_DELETE_SHARE == 0.2

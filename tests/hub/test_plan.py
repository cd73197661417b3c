"""The hub's change plan and batching, on a real vault folder."""

from __future__ import annotations

import os
from pathlib import Path

from hub.plan import make_batches, plan_changes
from hub.state import Entry, State
from hub.walk import walk_vault
from shared.limits import MAX_BATCH_ITEMS

NOW = 1_780_000_000_000


def write(vault: Path, rel: str, text: str, mtime_s: float = 1_700_000_000) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime_s, mtime_s))


def test_first_plan_sends_everything_and_reports_rejections(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    write(tmp_path, "b/c.md", "---\ntitle: [unclosed\n---\nbody")
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    assert [u.path for u in plan.upserts] == ["a.md"]
    assert [r.path for r in plan.rejected] == ["b/c.md"]
    assert plan.deletes == []


def test_unchanged_stat_is_not_even_read(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "alpha")
    stat = next(iter(walk_vault(tmp_path)))
    state = State(notes={"a.md": Entry(hash="h", mtime_ns=stat.mtime_ns, size=stat.size,
                                       pushed_at=NOW)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert (plan.upserts, plan.unchanged) == ([], 1)


def test_a_missing_file_becomes_a_delete_dated_after_its_last_version(tmp_path: Path) -> None:
    future_ms = NOW + 10_000
    state = State(notes={"gone.md": Entry(hash="h", mtime_ns=future_ms * 1_000_000, size=1,
                                          pushed_at=NOW)})
    plan = plan_changes(tmp_path, walk_vault(tmp_path), state, NOW)
    assert [(d.path, d.deleted_at) for d in plan.deletes] == [("gone.md", future_ms + 1)]


def test_batches_respect_item_and_byte_limits_and_ids_are_deterministic(tmp_path: Path) -> None:
    for i in range(25):
        write(tmp_path, f"n{i:02d}.md", "x" * 1_000)
    plan = plan_changes(tmp_path, walk_vault(tmp_path), State(), NOW)
    batches = make_batches(plan, "Vault", max_items=10, max_bytes=5_000)
    assert sum(b.size for b in batches) == 25
    assert all(b.size <= min(10, MAX_BATCH_ITEMS) for b in batches)
    assert all(len(b.upserts) <= 4 for b in batches)  # ~1.3 KB per item under 5,000 bytes
    again = make_batches(plan, "Vault", max_items=10, max_bytes=5_000)
    assert [b.batch_id for b in batches] == [b.batch_id for b in again]
    assert len({b.batch_id for b in batches}) == len(batches)

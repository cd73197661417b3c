"""Change detection and batching: what to send, in batches the Worker accepts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hub.notes import Rejection, read_note
from hub.state import State
from hub.walk import FileStat
from shared.limits import MAX_BATCH_ITEMS, MAX_SYNC_BODY_BYTES
from shared.schemas import NoteDelete, NoteUpsert

# Leave room under the Worker's body limit for the envelope and JSON escaping variance.
BATCH_BYTES = MAX_SYNC_BODY_BYTES // 2
BATCH_ITEMS = 100


@dataclass
class Plan:
    upserts: list[NoteUpsert] = field(default_factory=list)
    deletes: list[NoteDelete] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    unchanged: int = 0
    stats: dict[str, FileStat] = field(default_factory=dict)
    # Files read and found identical to what the Worker holds: path → hash (refreshes the
    # state's stat fields so the next run need not read them again).
    confirmed: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.upserts and not self.deletes


def plan_changes(vault: Path, files: Iterable[FileStat], state: State, now_ms: int,
                 remote: Mapping[str, tuple[str, int]] | None = None) -> Plan:
    """Compare the vault with what was pushed (the local state, or with `remote` — the
    Worker's manifest, path → (hash, mtime ms) — for a full reconcile)."""
    plan = Plan()
    seen: set[str] = set()
    for f in files:
        seen.add(f.path)
        plan.stats[f.path] = f
        known = state.notes.get(f.path)
        if remote is None and known and known.mtime_ns == f.mtime_ns and known.size == f.size:
            plan.unchanged += 1  # stat unchanged: skip reading the file at all
            continue
        parsed = read_note(vault, f.path)
        if isinstance(parsed, Rejection):
            plan.rejected.append(parsed)
            continue
        if remote is not None:
            pushed = remote[f.path][0] if f.path in remote else None
        else:
            pushed = known.hash if known else None
        if pushed == parsed.content_hash:
            plan.unchanged += 1
            plan.confirmed[f.path] = parsed.content_hash
        else:
            plan.upserts.append(parsed)
    # The Worker ignores a delete older than the copy it holds (a stale retry must not
    # remove a newer note), so a deletion is dated after the last version we know of, even
    # when that file's mtime was in the future.
    if remote is not None:
        last_seen = {path: mtime for path, (_, mtime) in remote.items()}
    else:
        last_seen = {path: e.mtime_ns // 1_000_000 for path, e in state.notes.items()}
    for path in sorted(set(last_seen) - seen):
        plan.deletes.append(NoteDelete(path=path,
                                       deleted_at=max(now_ms, last_seen[path] + 1)))
    return plan


@dataclass(frozen=True)
class Batch:
    batch_id: str
    upserts: tuple[NoteUpsert, ...]
    deletes: tuple[NoteDelete, ...]

    def payload(self, vault_name: str) -> dict:
        return {"batch_id": self.batch_id, "vault": vault_name,
                "upserts": [u.model_dump() for u in self.upserts],
                "deletes": [d.model_dump() for d in self.deletes]}

    @property
    def size(self) -> int:
        return len(self.upserts) + len(self.deletes)


def batch_id(vault_name: str, upserts: Iterable[NoteUpsert], deletes: Iterable[NoteDelete]
             ) -> str:
    """Deterministic: the same changes always make the same id, so a resent batch is
    recognised by the Worker as a duplicate."""
    digest = hashlib.sha256(vault_name.encode())
    for u in upserts:
        digest.update(f"U\0{u.path}\0{u.content_hash}\0{u.mtime}\n".encode())
    for d in deletes:
        digest.update(f"D\0{d.path}\0{d.deleted_at}\n".encode())
    return "b-" + digest.hexdigest()[:40]


def _item_bytes(item: NoteUpsert | NoteDelete) -> int:
    return len(json.dumps(item.model_dump()).encode()) + 2


def make_batches(plan: Plan, vault_name: str, max_items: int = BATCH_ITEMS,
                 max_bytes: int = BATCH_BYTES) -> list[Batch]:
    max_items = min(max_items, MAX_BATCH_ITEMS)
    batches: list[Batch] = []
    ups: list[NoteUpsert] = []
    dels: list[NoteDelete] = []
    size = 0

    def flush() -> None:
        nonlocal ups, dels, size
        if ups or dels:
            batches.append(Batch(batch_id(vault_name, ups, dels), tuple(ups), tuple(dels)))
        ups, dels, size = [], [], 0

    for item in [*plan.upserts, *plan.deletes]:
        item_size = _item_bytes(item)
        if len(ups) + len(dels) >= max_items or (size + item_size > max_bytes and size):
            flush()
        (ups if isinstance(item, NoteUpsert) else dels).append(item)  # type: ignore[arg-type]
        size += item_size
    flush()
    return batches

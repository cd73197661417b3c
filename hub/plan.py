"""Change detection and batching: what to send, in batches the Worker accepts."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hub.findings import Finding
from hub.links import VaultIndex
from hub.lint import Resolved, Suggester, cycles, resolve_page
from hub.notes import Rejection
from hub.reading import Page, Unstable, read_page
from hub.state import PARSER_VERSION, State
from hub.walk import FileStat
from shared.api.limits import MAX_BATCH_ITEMS, MAX_SYNC_BODY_BYTES
from shared.api.protocol import SECTIONS_VERSION
from shared.api.sync_payload import NoteDelete, NoteUpsert, SyncBatch

# Leave room under the Worker's body limit for the envelope and JSON escaping variance.
BATCH_BYTES = MAX_SYNC_BODY_BYTES // 2
BATCH_ITEMS = 100
# A run that would delete more than this share of the notes the Worker holds for the vault,
# and at least MASS_DELETE_MIN of them, stops before sending anything until it is given
# --allow-mass-delete: a wrong folder, an unmounted disk or a vault given another folder's
# id looks like a vault emptied, and the notes' answers would be withdrawn.
MASS_DELETE_SHARE = 0.2
MASS_DELETE_MIN = 10

Reader = Callable[[Path, str, int], Page | Rejection | Unstable]
Counter = Callable[[int, int], None]  # (done, total)


@dataclass
class Plan:
    upserts: list[NoteUpsert] = field(default_factory=list)
    deletes: list[NoteDelete] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    # Files that changed while being read: neither sent nor recorded, so the next run
    # reads them again.
    changing: list[str] = field(default_factory=list)
    unchanged: int = 0
    # Every page read, with the stat it had when read (recorded once the Worker has it).
    reads: dict[str, Page] = field(default_factory=dict)
    # Pages read and found identical to what the Worker holds (their stat is refreshed).
    confirmed: list[str] = field(default_factory=list)
    # Pages sent although they could not be split cleanly, with why (hub/sections.py).
    warnings: list[Rejection] = field(default_factory=list)
    # Every page read, its relations resolved against the vault (hub/lint.py), and the
    # lint findings of the pages read (cycles: those they take part in).
    resolved: dict[str, Resolved] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.upserts and not self.deletes


def plan_changes(vault: Path, files: Iterable[FileStat], state: State, now_ms: int,
                 read: Reader = read_page, progress: Counter | None = None) -> Plan:
    """Compare the vault with what the state says the Worker holds: a file whose stat is
    as recorded (and not racy) is not even read; the others are read and sent when their
    hash differs; a path the state holds and the vault no longer does is deleted. A page
    whose relation target was missing and now exists is read and sent again, so its
    relation names the page that appeared. `progress(done, total)` is told before each
    file and once all are done."""
    files = list(files)
    # Built only when needed: a no-op run without missing targets resolves nothing.
    index: VaultIndex | None = None

    def vault_index() -> VaultIndex:
        nonlocal index
        if index is None:
            index = VaultIndex.of(f.path for f in files)
        return index

    recheck = {path for path, entry in state.notes.items() if entry.missing
               and any(vault_index().resolve(name, path) for name in entry.missing)}
    plan = Plan()
    seen: set[str] = set()
    stats = list(files)
    for done, f in enumerate(stats):
        if progress:
            progress(done, len(stats))
        seen.add(f.path)
        known = state.notes.get(f.path)
        if known and known.matches(f) and f.path not in recheck:
            plan.unchanged += 1
            continue
        page = read(vault, f.path, now_ms)
        if isinstance(page, Rejection):
            plan.rejected.append(page)
        elif isinstance(page, Unstable):
            plan.changing.append(f.path)
        else:
            plan.reads[f.path] = page
            plan.warnings += [Rejection(f.path, w) for w in page.note.warnings]
            if known and known.hash == page.note.content_hash \
                    and known.parser == PARSER_VERSION and f.path not in recheck:
                plan.unchanged += 1
                plan.confirmed.append(f.path)
            else:
                plan.upserts.append(page.note)
    if progress:
        progress(len(stats), len(stats))
    # Deletions are ordered by the run's sync sequence on the Worker, not by this date.
    plan.deletes = [NoteDelete(path=path, deleted_at=now_ms)
                    for path in sorted(set(state.notes) - seen)]
    if plan.reads or plan.deletes:  # else there is nothing to resolve nor to lint
        _resolve(plan, state, vault_index())
    return plan


def _resolve(plan: Plan, state: State, index: VaultIndex) -> None:
    """Resolve the relations of every page read (they are sent with it) and lint them;
    cycles are looked for in the whole vault, with the relations the state recorded for
    the pages not read, and so are relations to a page this run deletes (or moves)."""
    suggest = Suggester(index)
    for path, page in plan.reads.items():
        done = resolve_page(path, page.knowledge, index, suggest)
        page.note.relations = done.relations
        plan.resolved[path] = done
        plan.findings += done.findings
    gone = {d.path for d in plan.deletes}
    for path, entry in sorted(state.notes.items()):
        if path in index.paths and path not in plan.reads:
            plan.findings += [Finding(path, "relation_missing_target", (
                f"{kind} relation to {target!r}: that page was deleted or moved in this run;"
                " the relation has no effect until the page names where it went"))
                for target, kind in entry.relations if target in gone]
    graph: dict[str, list[tuple[str, str]]] = {
        p: [(r[0], r[1]) for r in e.relations] for p, e in state.notes.items()
        if p in index.paths}
    graph.update({p: [(r.target, r.type) for r in done.relations]
                  for p, done in plan.resolved.items()})
    plan.findings += cycles(graph, touching=set(plan.reads))


def lost_notes(plan: Plan, state: State) -> int:
    """The notes the plan deletes that do not reappear elsewhere: a page moved (a folder
    renamed) is an upsert of the same bytes at its new path, and is no loss."""
    moved = {u.content_hash for u in plan.upserts}
    return sum(1 for d in plan.deletes
               if d.path not in state.notes or state.notes[d.path].hash not in moved)


def mass_delete(plan: Plan, state: State) -> int | None:
    """How many notes the plan would lose, when that share of the notes the Worker holds
    (`state`) needs confirming; else None."""
    lost = lost_notes(plan, state)
    return lost if lost >= MASS_DELETE_MIN and lost > MASS_DELETE_SHARE * len(state.notes) \
        else None


@dataclass(frozen=True)
class Run:
    """What every batch of one run carries: the vault and the run's sync sequence."""

    vault_id: str
    vault_name: str
    seq: int


@dataclass(frozen=True)
class Batch:
    batch_id: str
    upserts: tuple[NoteUpsert, ...]
    deletes: tuple[NoteDelete, ...]

    def payload(self, run: Run) -> SyncBatch:
        return SyncBatch(batch_id=self.batch_id, vault_id=run.vault_id, vault=run.vault_name,
                         seq=run.seq, sections_version=SECTIONS_VERSION,
                         upserts=list(self.upserts), deletes=list(self.deletes))

    @property
    def size(self) -> int:
        return len(self.upserts) + len(self.deletes)


def batch_id(run: Run, upserts: Iterable[NoteUpsert], deletes: Iterable[NoteDelete]) -> str:
    """Deterministic: the same changes of the same run always make the same id, so a
    resent batch is recognised by the Worker as a duplicate."""
    digest = hashlib.sha256(f"{run.vault_id}\0{run.seq}\0{run.vault_name}\n".encode())
    for u in upserts:
        digest.update(f"U\0{u.path}\0{u.content_hash}\0{u.mtime}\n".encode())
    for d in deletes:
        digest.update(f"D\0{d.path}\0{d.deleted_at}\n".encode())
    return "b-" + digest.hexdigest()[:40]


def _item_bytes(item: NoteUpsert | NoteDelete) -> int:
    """Its bytes in the batch body as the client sends it (hub/client.py), and a comma."""
    return len(item.model_dump_json().encode()) + 2


def make_batches(plan: Plan, run: Run, max_items: int = BATCH_ITEMS,
                 max_bytes: int = BATCH_BYTES) -> list[Batch]:
    """Upserts first, then deletes: a note moved to another path is in place before its
    old path goes, so the answers citing it follow it (worker/store/citations.py)."""
    max_items = min(max_items, MAX_BATCH_ITEMS)
    batches: list[Batch] = []
    ups: list[NoteUpsert] = []
    dels: list[NoteDelete] = []
    size = 0

    def flush() -> None:
        nonlocal ups, dels, size
        if ups or dels:
            batches.append(Batch(batch_id(run, ups, dels), tuple(ups), tuple(dels)))
        ups, dels, size = [], [], 0

    items: list[NoteUpsert | NoteDelete] = [*plan.upserts, *plan.deletes]
    for item in items:
        item_size = _item_bytes(item)
        if len(ups) + len(dels) >= max_items or (size + item_size > max_bytes and size):
            flush()
        if isinstance(item, NoteUpsert):
            ups.append(item)
        else:
            dels.append(item)
        size += item_size
    flush()
    return batches

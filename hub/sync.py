"""One sync run: identify the vault, check the state against the Worker, walk, diff, push
in batches, record progress after every batch, report.

Every run starts with a heartbeat, which registers the vault, hands out the run's sync
sequence and tells what the Worker holds of the vault (note count and checksum) and who
the Worker is. When any of that disagrees with the hub's state — a hub killed between a
batch and its save, a new or reset Worker, another URL, a lost or older state — the state
is rebuilt from the manifest first (hub/state.py `reconciled`): drift is repaired by a
normal run, and a delete is never lost. The run ends with a second heartbeat carrying the
number of pages it could not send, so /status shows every run, no-op runs included.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import httpx

from hub.client import (
    BatchRejected,
    BatchTooLarge,
    HubError,
    VaultNameTaken,
    WorkerClient,
)
from hub.identity import ensure_vault_id, id_path, read_vault_id, replace_vault_id
from hub.lint import Resolved
from hub.lock import state_lock
from hub.notes import Rejection
from hub.plan import (
    BATCH_ITEMS,
    MASS_DELETE_SHARE,
    Batch,
    Plan,
    Reader,
    Run,
    batch_id,
    make_batches,
    mass_delete,
    plan_changes,
)
from hub.reading import read_page
from hub.state import (
    JOURNAL_MAX_LINES,
    PARSER_VERSION,
    STATE_VERSION,
    Entry,
    State,
    copied_from,
    load_state,
    reconciled,
    record_changes,
    save_state,
)
from hub.summary import Summary
from hub.walk import walk_vault
from shared.api.sync_payload import NoteDelete, NoteUpsert
from shared.api.wire import Contact

# The phases a run reports progress in: reading the vault's files, sending the batches.
READING, SENDING = "reading", "sending"
Progress = Callable[[str, int, int], None]  # (phase, done, total)


class MassDelete(HubError):
    """The run would delete too many of the vault's notes without --allow-mass-delete."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def drift(state: State, contact: Contact, vault_id: str, url: str) -> str | None:
    """Why the state cannot be trusted as a picture of what the Worker holds, if it can't."""
    if state.version < STATE_VERSION:
        return "the hub state predates vault ids"
    if state.worker_id != contact.worker_id:
        return "first contact with this Worker" if not state.worker_id else \
            "the Worker's database is another one (new, reset or restored)"
    if state.url != url:
        return f"the state was written for {state.url}"
    if state.vault_id != vault_id:
        return "the state belongs to another vault id"
    notes, checksum = len(state.notes), state.checksum()
    held = contact.vault
    if (notes, checksum) != (held.notes, held.checksum):
        return (f"the Worker holds {held.notes} notes (checksum {held.checksum}), "
                f"the hub state {notes} (checksum {checksum})")
    return None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """While a run reads the vault and resolves its pages' relations: it keeps every page
    (Plan.reads), and reading makes next to no cyclic garbage (26 objects for
    bench.sync's 10,000 notes; reference counting frees the rest), so the cycle
    collector's passes over the growing heap would find nothing. Both are process-wide:
    under `mallory serve --sync-vault` the server's thread shares them for a run's length,
    and the garbage it makes meanwhile is collected after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Syncer:
    def __init__(self, vault: Path, client: WorkerClient, vault_name: str, state_dir: Path,
                 exclude: Sequence[str] = (), progress: Progress | None = None,
                 batch_items: int = BATCH_ITEMS, read: Reader = read_page) -> None:
        self.vault, self.client, self.vault_name = vault, client, vault_name
        self.state_dir, self.exclude, self.progress = state_dir, tuple(exclude), progress
        self.batch_items, self.read = batch_items, read
        self._reads: dict = {}
        self._resolved: dict[str, Resolved] = {}
        # What the run has done so far: a run that fails part way reports it (hub/report.py).
        self.summary = Summary(vault_name=vault_name)

    def _tell(self, phase: str, done: int, total: int) -> None:
        if self.progress:
            self.progress(phase, done, total)

    def _plan(self, state: State) -> Plan:
        plan = plan_changes(self.vault, walk_vault(self.vault, self.exclude), state, _now_ms(),
                            self.read, lambda done, total: self._tell(READING, done, total))
        self._reads, self._resolved = plan.reads, plan.resolved
        return plan

    def _summary(self, plan: Plan, vault_id: str | None) -> Summary:
        self.summary = Summary(unchanged=plan.unchanged, rejected=list(plan.rejected),
                               warnings=list(plan.warnings), findings=list(plan.findings),
                               changing=len(plan.changing), plan=plan,
                               vault_name=self.vault_name, vault_id=vault_id)
        return self.summary

    def dry_run(self, full: bool = False) -> Summary:
        """What a run would send, writing nothing (not even the vault's identity file)."""
        started = time.monotonic()
        state = load_state(self.state_dir)
        self._check_not_a_copy(state)
        vault_id = read_vault_id(self.vault) or (
            state.vault_id if state.describes(self.vault) else None) or None
        if full:
            state = reconciled(State(), self.client.manifest(vault_id) if vault_id else {})
        summary = self._summary(self._plan(state), vault_id)
        summary.elapsed_s = time.monotonic() - started
        return summary

    def run(self, full: bool = False, dry_run: bool = False,
            allow_mass_delete: bool = False) -> Summary:
        if dry_run:
            return self.dry_run(full)
        with state_lock(self.state_dir):
            return self._run(full, allow_mass_delete)

    def _contact(self, state: State) -> tuple[str, Contact]:
        """The vault's id and the Worker's answer to the run's first heartbeat, which takes
        the vault's lease for this state's hub. The id is the folder's own; the state's
        copy is used only to write back a deleted identity file of the same folder, or
        when the Worker holds the vault's name under that earlier id (two first runs
        raced before ids were created atomically): the identity file heals to it."""
        remembered = state.vault_id if state.vault_id and state.describes(self.vault) \
            else None
        self._check_not_a_copy(state)
        vault_id = ensure_vault_id(self.vault, remembered)
        self.summary.vault_id = vault_id
        try:
            return vault_id, self.client.heartbeat(vault_id, self.vault_name,
                                                   holder=state.hub_id)
        except VaultNameTaken as exc:
            if not remembered or exc.holder != remembered or remembered == vault_id:
                raise
        replace_vault_id(self.vault, remembered)
        self.summary.healed = f"the identity file held {vault_id}; it holds {remembered}, " \
            "the id this folder's notes are synced under"
        self.summary.vault_id = remembered
        return remembered, self.client.heartbeat(remembered, self.vault_name,
                                                 holder=state.hub_id)

    def _check_not_a_copy(self, state: State) -> None:
        """Refuse a folder that holds another synced folder's identity (a copy of that
        vault folder, `.mallory/` included: hub/identity.py), before anything is sent."""
        held = read_vault_id(self.vault)
        if held is None or state.folder == str(self.vault.resolve()):
            return
        origin = copied_from(self.vault, held, self.state_dir)
        if origin is not None:
            raise HubError(
                f"{self.vault} holds the identity of {origin} (vault id {held}), which this "
                "hub syncs too: is it a copy of that folder? Synced under one id, each would "
                f"undo the other's notes. Delete {id_path(self.vault).parent} to sync this "
                "folder as a vault of its own; nothing was sent")

    def _run(self, full: bool, allow_mass_delete: bool) -> Summary:
        started = time.monotonic()
        state = load_state(self.state_dir)
        vault_id, contact = self._contact(state)
        try:
            summary = self._sync(state, vault_id, contact, full, allow_mass_delete)
        except HubError:
            # Give the lease up at once (best effort): another hub need not wait it out.
            with contextlib.suppress(HubError, httpx.HTTPError):
                self.client.heartbeat(vault_id, self.vault_name, seq=contact.vault.seq,
                                      holder=state.hub_id)
            raise
        summary.elapsed_s = time.monotonic() - started
        return summary

    def _sync(self, state: State, vault_id: str, contact: Contact, full: bool,
              allow_mass_delete: bool) -> Summary:
        why = "--full" if full else drift(state, contact, vault_id, self.client.url)
        if why:
            # --full trusts only the manifest (every file is read); otherwise the stats of
            # files whose hash the Worker confirms are kept.
            base = State(hub_id=state.hub_id) if full or state.version < STATE_VERSION \
                else state
            state = reconciled(base, self.client.manifest(vault_id))
        state.vault, state.vault_id, state.url = self.vault_name, vault_id, self.client.url
        state.worker_id, state.folder = contact.worker_id, str(self.vault.resolve())
        # The pages are held until the run ends: read with the collector paused, then
        # frozen, so that its later passes leave them out, and unfrozen at the end, so that
        # any garbage among them is collected then. At 10,000 notes the collector's passes
        # took 0.72 s of the first push's CPU, 0.09 s so (bench.sync).
        with _collector_paused():
            plan = self._plan(state)
            gc.freeze()
        try:
            return self._push(plan, state, vault_id, contact, why, allow_mass_delete)
        finally:
            gc.unfreeze()

    def _push(self, plan: Plan, state: State, vault_id: str, contact: Contact,
              why: str | None, allow_mass_delete: bool) -> Summary:
        healed = self.summary.healed
        summary = self._summary(plan, vault_id)
        summary.reconciled, summary.healed = why, healed
        lost = None if allow_mass_delete else mass_delete(plan, state)
        if lost is not None:
            summary.mass_delete = lost
            raise MassDelete(
                f"this run would delete {lost} of the {len(state.notes)} notes "
                f"the Worker holds for vault {self.vault_name!r} ({vault_id}), more than "
                f"{MASS_DELETE_SHARE:.0%}: is {self.vault} the right folder, and mounted? If "
                "those notes are really gone, run again with --allow-mass-delete; nothing was "
                "sent")
        for path in plan.confirmed:
            self._record(state, path)
        run = Run(vault_id, self.vault_name, contact.vault.seq)
        batches = make_batches(plan, run, max_items=self.batch_items)
        changed = bool(why or plan.confirmed or batches)
        if changed:
            save_state(self.state_dir, state)  # the rebuilt state and its confirmed stats
        total, done = sum(b.size for b in batches), 0
        self._tell(SENDING, done, total)
        for batch in batches:
            self._send(batch, run, state, summary)
            done += batch.size
            self._tell(SENDING, done, total)
        self.client.heartbeat(vault_id, self.vault_name, rejected=len(summary.rejected),
                              seq=contact.vault.seq, holder=state.hub_id)
        state.last_sync_at = _now_ms()
        if changed or state.journal_lines >= JOURNAL_MAX_LINES:
            save_state(self.state_dir, state)  # the journal's lines folded in
        else:
            record_changes(self.state_dir, state)
        return summary

    def _record(self, state: State, path: str) -> None:
        """The Worker holds what was read of `path`: record its hash with the stat the file
        had when read (never a later stat, which could belong to a newer version)."""
        page, resolved = self._reads[path], self._resolved.get(path, Resolved())
        state.notes[path] = Entry(hash=page.note.content_hash, mtime_ns=page.mtime_ns,
                                  ctime_ns=page.ctime_ns,
                                  size=page.size, pushed_at=_now_ms(), read_ns=page.read_ns,
                                  parser=PARSER_VERSION,
                                  relations=[[r.target, r.type] for r in resolved.relations],
                                  missing=list(resolved.missing))

    def _send(self, batch: Batch, run: Run, state: State, summary: Summary) -> None:
        try:
            result = self.client.push(batch.payload(run))
        except BatchTooLarge:
            if batch.size == 1:
                item = (batch.upserts or batch.deletes)[0]
                summary.rejected.append(Rejection(item.path, "the Worker says it is too large"))
                return
            self._split_and_send(batch, run, state, summary)
            return
        except BatchRejected as exc:
            self._drop_rejected(batch, run, exc, state, summary)
            return
        summary.batches += 1
        if result.status == "applied":
            summary.stale += result.skipped_stale
        for note in batch.upserts:
            self._record(state, note.path)
        for gone in batch.deletes:
            state.notes.pop(gone.path, None)
        summary.sent += len(batch.upserts)
        summary.deleted += len(batch.deletes)
        # resume point: this batch is confirmed
        record_changes(self.state_dir, state, (n.path for n in batch.upserts),
                       (d.path for d in batch.deletes))

    def _rebatch(self, run: Run, ups: Sequence, dels: Sequence) -> Batch:
        return Batch(batch_id(run, ups, dels), tuple(ups), tuple(dels))

    def _split_and_send(self, batch: Batch, run: Run, state: State, summary: Summary) -> None:
        items = [*batch.upserts, *batch.deletes]
        half = len(items) // 2
        for part in (items[:half], items[half:]):
            ups = [i for i in part if i in batch.upserts]
            dels = [i for i in part if i in batch.deletes]
            self._send(self._rebatch(run, ups, dels), run, state, summary)

    def _drop_rejected(self, batch: Batch, run: Run, exc: BatchRejected, state: State,
                       summary: Summary) -> None:
        bad: dict[str, str] = {}
        for detail in exc.details:
            item = str(detail.get("item") or "")
            kind, _, rest = item.partition("[")
            if kind in ("upserts", "deletes") and rest.rstrip("]").isdigit():
                entries = batch.upserts if kind == "upserts" else batch.deletes
                index = int(rest.rstrip("]"))
                if index < len(entries):
                    bad[entries[index].path] = str(detail.get("message"))
        if not bad:  # nothing we can isolate: report the whole batch, keep the rest intact
            items: list[NoteUpsert | NoteDelete] = [*batch.upserts, *batch.deletes]
            summary.rejected += [Rejection(i.path, str(exc)) for i in items]
            return
        summary.rejected += [Rejection(p, f"refused by the Worker: {m}") for p, m in bad.items()]
        ups = [u for u in batch.upserts if u.path not in bad]
        dels = [d for d in batch.deletes if d.path not in bad]
        if ups or dels:
            self._send(self._rebatch(run, ups, dels), run, state, summary)

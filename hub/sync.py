"""One sync run: walk, diff, push in batches, record progress after every batch."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hub.client import BatchRejected, BatchTooLarge, WorkerClient
from hub.notes import Rejection
from hub.plan import BATCH_ITEMS, Batch, Plan, batch_id, make_batches, plan_changes
from hub.state import Entry, State, load_state, save_state
from hub.walk import walk_vault

Progress = Callable[[int, int], None]


@dataclass
class Summary:
    sent: int = 0
    unchanged: int = 0
    deleted: int = 0
    stale: int = 0
    batches: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    elapsed_s: float = 0.0
    plan: Plan | None = None

    def line(self) -> str:
        return (f"sent {self.sent}, unchanged {self.unchanged}, deleted {self.deleted}, "
                f"rejected {len(self.rejected)}, elapsed {self.elapsed_s:.1f}s"
                + (f" ({self.stale} older than the Worker's copy, kept)" if self.stale else ""))


def _now_ms() -> int:
    return int(time.time() * 1000)


class Syncer:
    def __init__(self, vault: Path, client: WorkerClient, vault_name: str, state_dir: Path,
                 exclude: Sequence[str] = (), progress: Progress | None = None,
                 batch_items: int = BATCH_ITEMS) -> None:
        self.vault, self.client, self.vault_name = vault, client, vault_name
        self.state_dir, self.exclude, self.progress = state_dir, tuple(exclude), progress
        self.batch_items = batch_items

    def plan(self, state: State, full: bool) -> Plan:
        remote = self.client.manifest() if full else None
        return plan_changes(self.vault, walk_vault(self.vault, self.exclude), state, _now_ms(),
                            remote)

    def run(self, full: bool = False, dry_run: bool = False) -> Summary:
        started = time.monotonic()
        # A full reconcile trusts only the Worker's manifest, so it also repairs lost or
        # corrupt local state.
        state = State() if full else load_state(self.state_dir)
        plan = self.plan(state, full)
        summary = Summary(unchanged=plan.unchanged, rejected=list(plan.rejected), plan=plan)
        if dry_run:
            summary.elapsed_s = time.monotonic() - started
            return summary
        state.vault, state.url = self.vault_name, self.client.url
        for path, digest in plan.confirmed.items():
            self._record(state, path, digest)
        batches = make_batches(plan, self.vault_name, max_items=self.batch_items)
        total = sum(b.size for b in batches)
        done = 0
        for batch in batches:
            self._send(batch, state, summary)
            done += batch.size
            if self.progress:
                self.progress(done, total)
        state.last_sync_at = _now_ms()
        save_state(self.state_dir, state)
        summary.elapsed_s = time.monotonic() - started
        return summary

    def _record(self, state: State, path: str, digest: str) -> None:
        stat = self._stat(path)
        if stat:
            state.notes[path] = Entry(hash=digest, mtime_ns=stat[0], size=stat[1],
                                      pushed_at=_now_ms())

    def _stat(self, path: str) -> tuple[int, int] | None:
        try:
            st = (self.vault / path).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _send(self, batch: Batch, state: State, summary: Summary) -> None:
        try:
            result = self.client.push(batch.payload(self.vault_name))
        except BatchTooLarge:
            if batch.size == 1:
                item = (batch.upserts or batch.deletes)[0]
                summary.rejected.append(Rejection(item.path, "the Worker says it is too large"))
                return
            self._split_and_send(batch, state, summary)
            return
        except BatchRejected as exc:
            self._drop_rejected(batch, exc, state, summary)
            return
        summary.batches += 1
        if result.get("status") == "applied":
            summary.stale += int(result.get("skipped_stale", 0))
        for note in batch.upserts:
            self._record(state, note.path, note.content_hash)
        for gone in batch.deletes:
            state.notes.pop(gone.path, None)
        summary.sent += len(batch.upserts)
        summary.deleted += len(batch.deletes)
        save_state(self.state_dir, state)  # resume point: this batch is confirmed

    def _rebatch(self, ups: Sequence, dels: Sequence) -> Batch:
        return Batch(batch_id(self.vault_name, ups, dels), tuple(ups), tuple(dels))

    def _split_and_send(self, batch: Batch, state: State, summary: Summary) -> None:
        items = [*batch.upserts, *batch.deletes]
        half = len(items) // 2
        for part in (items[:half], items[half:]):
            ups = [i for i in part if i in batch.upserts]
            dels = [i for i in part if i in batch.deletes]
            self._send(self._rebatch(ups, dels), state, summary)

    def _drop_rejected(self, batch: Batch, exc: BatchRejected, state: State,
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
            summary.rejected += [Rejection(i.path, str(exc))
                                 for i in (*batch.upserts, *batch.deletes)]
            return
        summary.rejected += [Rejection(p, f"refused by the Worker: {m}") for p, m in bad.items()]
        ups = [u for u in batch.upserts if u.path not in bad]
        dels = [d for d in batch.deletes if d.path not in bad]
        if ups or dels:
            self._send(self._rebatch(ups, dels), state, summary)

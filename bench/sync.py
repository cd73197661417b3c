"""Vault sync benchmark on generated vaults (default 10,000 notes each).

    uv run python -m bench.sync [--notes N] [--profile N]

Reports, with the full parse of one vault (walk + read + frontmatter + validation of every
page) as the floor measured in the same run:
- one vault: the first full push into the local server over HTTP, and a no-op re-sync
  (which must send nothing);
- two vaults holding the same paths: the second vault's first push into a Worker that
  already holds the first, and a no-op re-sync of both.
Targets at 10,000 notes: first push ≤ 10 s, no-op ≤ 0.2 s with no batch (one
stat walk, the heartbeats, no manifest read). Wall and this process's CPU seconds are both
printed (the local server runs in a thread of this process, so its work is in the CPU
figure): on a shared machine, quote the ratios to the parse of the same run.

`--profile N` runs the first push under cProfile, on both sides: the hub (this process's
main thread) and the local Worker (the server's thread, every request it serves), and
prints the N functions with the most own time of each (the profiler slows Python several
times over, not SQLite: read the shares, not the seconds).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from bench.corpus import Generator
from hub.client import WorkerClient
from hub.reading import Page, read_page
from hub.sync import Summary, Syncer
from hub.walk import walk_vault
from local.thread_server import running_server

T = TypeVar("T")
FOLDERS = ["Daily", "Projects", "People", "Reading", "Work/Meetings", "Work/Design", "Home"]
NOOP_RUNS = 5


# The generated notes' modification time, this long ago: a real vault's notes were not all
# written in the last RACY_NS, and a note modified that recently is read again by the next
# run (hub/reading.py), which would make the first no-op round re-read the whole vault.
WRITTEN_AGO_S = 3600


def make_vault(root: Path, n: int, seed: int = 5) -> None:
    gen = Generator(seed=seed)
    written = time.time() - WRITTEN_AGO_S
    for i in range(n):
        folder = root / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        name = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} note {i}" if i % 7 == 0 else f"note {i}"
        frontmatter = (f"---\ntitle: {gen.text(4, 0.3)}\ntags: [t{i % 30}, area/{i % 5}]\n"
                       f"aliases: [alias {i}]\nstatus: active\n---\n")
        page = folder / f"{name}.md"
        page.write_text(frontmatter + gen.text(300) + f" #topic{i % 40}\n")
        os.utime(page, (written, written))


@dataclass(frozen=True)
class Took:
    wall: float
    cpu: float  # this process's CPU seconds

    def ratio(self, floor: Took) -> str:
        return f"{self.wall / floor.wall:5.2f} × parse wall, {self.cpu / floor.cpu:5.2f} × CPU"


@dataclass(frozen=True)
class Sent:
    """What a run sent. The run's Summary is not kept: it holds the run's plan, and a first
    push's plan holds every parsed page, which made each later collector pass of this
    process walk them (a no-op run 0.35 s against 0.12 s, every second run)."""
    notes: int
    batches: int


def sync(syncer: Syncer) -> Sent:
    summary: Summary = syncer.run()
    return Sent(summary.sent, summary.batches)


def timed(label: str, fn: Callable[[], T]) -> tuple[T, Took]:
    started, cpu = time.perf_counter(), time.process_time()
    result = fn()
    took = Took(time.perf_counter() - started, time.process_time() - cpu)
    print(f"{label:<44} {took.wall:8.2f} s wall {took.cpu:8.2f} s CPU", flush=True)
    return result, took


class Profiled:
    """ASGI middleware: the server thread under one profiler while it serves a request."""

    def __init__(self, app: Any) -> None:
        self.app, self.profile, self.on = app, cProfile.Profile(), False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not self.on:
            await self.app(scope, receive, send)
            return
        self.profile.enable()
        try:
            await self.app(scope, receive, send)
        finally:
            self.profile.disable()


def summary(label: str, profile: cProfile.Profile, top: int) -> None:
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    print(f"\n{label}, by own time:\n" + out.getvalue().strip().split("\n", 1)[1])


def noops(label: str, syncers: list[Syncer]) -> tuple[list[Sent], Took]:
    """The median of NOOP_RUNS no-op rounds (each round syncs every vault once). The notes
    were written an hour before (WRITTEN_AGO_S), so no round re-reads a racy file."""
    rounds = [timed(label, lambda: [sync(s) for s in syncers]) for _ in range(NOOP_RUNS)]
    return [r for results, _ in rounds for r in results], Took(
        statistics.median(t.wall for _, t in rounds), statistics.median(t.cpu for _, t in rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10_000, help="notes per vault")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the first push: the N costliest functions of each side")
    args = parser.parse_args(argv)
    profiled: list[Profiled] = []

    def wrap(app: Any) -> Profiled:
        profiled.append(Profiled(app))
        return profiled[0]

    with tempfile.TemporaryDirectory(prefix="mallory-sync-") as tmp:
        one, two = Path(tmp) / "Personal", Path(tmp) / "Work"
        timed(f"generate {args.notes:,} notes", lambda: make_vault(one, args.notes))

        def parse_all() -> int:
            now = int(time.time() * 1000)
            return sum(isinstance(read_page(one, f.path, now), Page) for f in walk_vault(one))

        parsed, parse_s = timed("full parse (walk+read+validate), the floor", parse_all)
        timed(f"generate a second vault, same {args.notes:,} paths",
              lambda: make_vault(two, args.notes, seed=6))
        with running_server(Path(tmp) / "worker.sqlite", wrap=wrap) as server:
            client = WorkerClient(server.url, server.token)
            first_vault = Syncer(one, client, "Personal", Path(tmp) / "state-1")
            second_vault = Syncer(two, client, "Work", Path(tmp) / "state-2")
            hub = cProfile.Profile()
            if args.profile:
                profiled[0].on = True
                hub.enable()
            first, push_s = timed("one vault: first full push over HTTP",
                                  lambda: sync(first_vault))
            hub.disable()
            profiled[0].on = False
            single, noop_s = noops("one vault: no-op re-sync", [first_vault])
            second, push2_s = timed("two vaults: second vault's first push",
                                    lambda: sync(second_vault))
            both, noop2_s = noops("two vaults: no-op re-sync of both",
                                  [first_vault, second_vault])
            client.close()
    print(f"\nnotes parsed {parsed:,}; first push sent {first.notes:,} in {first.batches} "
          f"batches; second vault sent {second.notes:,} in {second.batches} batches; no-op "
          f"runs sent {max(r.notes for r in single + both)} in "
          f"{max(r.batches for r in single + both)} batches")
    print(f"parse (the floor) {parse_s.wall:.2f} s wall, {parse_s.cpu:.2f} s CPU")
    for label, took, target in (("one vault: first push", push_s, 10),
                                ("one vault: no-op median", noop_s, 0.2),
                                ("two vaults: second push", push2_s, 10),
                                ("two vaults: no-op median (both)", noop2_s, 0.4)):
        print(f"{label:<34} {took.wall:7.2f} s = {took.ratio(parse_s)} "
              f"(target ≤ {target} s)")
    if args.profile:
        print("\n(figures of a run under the profiler: the first push's are inflated)")
        summary("first push, the hub (main thread)", hub, args.profile)
        summary("first push, the local Worker (server thread)", profiled[0].profile,
                args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())

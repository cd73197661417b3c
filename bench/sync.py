"""Vault sync benchmark on a generated vault (default 10,000 notes).

    uv run python -m bench.sync [--notes N]

Reports: the full parse (walk + read + frontmatter + validation of every page), the first
full push into the local server over HTTP, and a no-op re-sync (which must send nothing).
Targets at 10,000 notes: parse ≤ 10 s, first push ≤ 60 s, no-op ≤ 2 s with no batch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench.corpus import Generator
from hub.client import WorkerClient
from hub.notes import read_note
from hub.sync import Syncer
from hub.walk import walk_vault
from local.thread_server import running_server

T = TypeVar("T")
FOLDERS = ["Daily", "Projects", "People", "Reading", "Work/Meetings", "Work/Design", "Home"]


def make_vault(root: Path, n: int) -> None:
    gen = Generator(seed=5)
    for i in range(n):
        folder = root / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        name = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} note {i}" if i % 7 == 0 else f"note {i}"
        frontmatter = (f"---\ntitle: {gen.text(4, 0.3)}\ntags: [t{i % 30}, area/{i % 5}]\n"
                       f"aliases: [alias {i}]\nstatus: active\n---\n")
        (folder / f"{name}.md").write_text(frontmatter + gen.text(300) + f" #topic{i % 40}\n")


def timed(label: str, fn: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - started
    print(f"{label:<34} {elapsed:8.2f} s", flush=True)
    return result, elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mallory-sync-") as tmp:
        vault = Path(tmp) / "vault"
        timed(f"generate {args.notes:,} notes", lambda: make_vault(vault, args.notes))

        def parse_all() -> int:
            return sum(1 for f in walk_vault(vault) if not hasattr(read_note(vault, f.path),
                                                                  "reason"))

        parsed, parse_s = timed("full parse (walk+read+validate)", parse_all)
        with running_server(Path(tmp) / "worker.sqlite") as server:
            client = WorkerClient(server.url, server.token)
            syncer = Syncer(vault, client, "Bench", Path(tmp) / "state")
            first, push_s = timed("first full push over HTTP", syncer.run)
            noops = [timed("no-op re-sync", syncer.run) for _ in range(3)]
            client.close()
    noop_s = statistics.median(s for _, s in noops)
    print(f"\nnotes parsed {parsed:,}; first push sent {first.sent:,} in {first.batches} "
          f"batches; no-op sent {max(r.sent for r, _ in noops)} "
          f"in {max(r.batches for r, _ in noops)} batches")
    print(f"parse {parse_s:.2f} s (target ≤ 10) · first push {push_s:.2f} s (≤ 60) · "
          f"no-op median {noop_s:.2f} s (≤ 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

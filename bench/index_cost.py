"""The cost of vector indexing through the real path: the first full index of an
evaluation set, then re-embedding after one edited note.

    uv sync --group embed
    uv run python -m bench.index_cost [--set ../shared/eval/dev] [--threads N]
                                      [--max-run-tokens N] [--max-tokens N]

The set is loaded as bench.relevance loads it (the hub's parser and POST /vault/sync for
notes, the chat store for messages), then `mallory reindex --vectors`'s own code embeds
every unit with the local embedder (no cache). One note of median section count then gets
one paragraph edited in its vault file and the hub syncs it again; the second reindex
must embed exactly the sections whose text changed (their content hashes), which this
script checks against the sections the Worker holds. Floor, measured in the same run: the
bare model on the same texts in the same runs (bench.embed's BareModel), so the ratio is
what the indexer adds (D1 bookkeeping, upserts, the port); target: indexer/raw throughput
≥ 0.8. Also printed: the process's resident memory before the first index and its peak
during it (sampled every 20 ms; `--max-run-tokens 1000000` runs as the embedder did before
its runs were bounded by padded pieces), and the time a 10,000-note vault would take,
extrapolated from this set's units per note and the measured rate.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.embed import BareModel, rss_mb
from bench.evalset import load_set, sync_notes
from local.reindex import CHUNK_UNITS, opened_semantics, reindex_vectors
from local.semantic.embedder import MAX_BATCH, MAX_RUN_TOKENS, LocalEmbedder
from local.semantic.model_files import MINILM_L6_INT8
from local.sqlite_db import SqliteDatabase
from local.thread_server import running_server
from worker.corpora import registry
from worker.semantic.semantics import Semantics

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev"
EDIT = "\n\nEdited: the owner added this paragraph about the garden hose.\n\n"


VAULT_NOTES = 10_000  # the vault size the indexing time is extrapolated to
RSS_EVERY_S = 0.02


def unit_texts(db: SqliteDatabase, model: str) -> tuple[list[str], list[int]]:
    """The texts the indexer embeds (its own SQL), for the bare-model floor, and the texts
    of each embed call it makes of them: runs of CHUNK_UNITS per corpus, cut in max_batch."""
    texts: list[str] = []
    calls: list[int] = []
    for corpus in registry.vector_corpora():
        rows = db.connection.execute(corpus.units_sql, (model, -1)).fetchall()
        texts += [str(r["text"] or "") for r in rows]
        for run in range(0, len(rows), CHUNK_UNITS):
            size = min(CHUNK_UNITS, len(rows) - run)
            calls += [min(MAX_BATCH, size - i) for i in range(0, size, MAX_BATCH)]
    return texts, calls


class PeakRss:
    """The process's largest resident set while the block runs, sampled in a thread."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._done = threading.Event()

    def _sample(self) -> None:
        while not self._done.wait(RSS_EVERY_S):
            self.peak = max(self.peak, rss_mb())

    def __enter__(self) -> PeakRss:
        self.peak = rss_mb()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def sections_of(db: SqliteDatabase, path: str) -> set[str]:
    return {str(r["unit_id"]) for r in db.connection.execute(
        "SELECT s.unit_id FROM note_sections AS s JOIN vault_notes AS n ON n.rid = s.note_rid "
        "WHERE n.path = ?", (path,)).fetchall()}


def median_note(db: SqliteDatabase) -> tuple[str, int]:
    rows = db.connection.execute(
        "SELECT n.path, count(*) AS k FROM note_sections AS s JOIN vault_notes AS n "
        "ON n.rid = s.note_rid GROUP BY n.rid HAVING k >= 3 ORDER BY k, n.path").fetchall()
    row = rows[len(rows) // 2]
    return str(row["path"]), int(row["k"])


def edit_one_paragraph(vault: Path, path: str) -> None:
    file = vault / path
    text = file.read_text(encoding="utf-8")
    cut = text.find("\n\n", len(text) // 2)
    file.write_text(text[:cut] + EDIT + text[cut + 2:], encoding="utf-8")


def run(set_dir: Path, threads: int, max_run_tokens: int, max_tokens: int) -> None:
    with tempfile.TemporaryDirectory(prefix="mallory-index-cost-") as tmp, \
            running_server(Path(tmp) / "eval.sqlite") as server:
        _, now_ms = load_set(set_dir, Path(tmp), server.url, server.token, server.db)
        db = server.db
        sem, _ = opened_semantics(db, {})
        spec = dataclasses.replace(MINILM_L6_INT8, max_tokens=max_tokens)
        embedder = LocalEmbedder(spec, threads=threads, max_run_tokens=max_run_tokens)
        sem = Semantics(embedder, sem.index)
        embedder.load()
        texts, calls = unit_texts(db, embedder.model)
        notes = int(db.connection.execute("SELECT count(*) AS n FROM vault_notes").fetchone()["n"])
        with PeakRss() as memory:
            resident = memory.peak
            cpu = time.process_time()
            first = asyncio.run(reindex_vectors(db, sem, lambda _: None, now_ms))
            cpu = time.process_time() - cpu
        bare = BareModel(embedder)
        tokens = [len(e.ids) for e in bare.tokenizer.encode_batch(texts)]
        print(f"set {set_dir}: {notes} notes, {len(texts)} units, median "
              f"{statistics.median(tokens):.0f} word pieces "
              f"(p90 {sorted(tokens)[int(0.9 * len(tokens))]}), threads={threads}, "
              f"runs of ≤ {embedder.batch_size} texts and ≤ {max_run_tokens} padded pieces, "
              f"truncation {max_tokens}")
        feeds = bare.feeds(texts, calls)
        print(f"resident memory: {resident:.0f} MB before the first index (model loaded), "
              f"peak {memory.peak:.0f} MB during it (+{memory.peak - resident:.0f} MB)")
        floor_wall, floor_cpu = time.perf_counter(), time.process_time()
        bare.run(feeds)
        floor_s, floor_cpu = time.perf_counter() - floor_wall, time.process_time() - floor_cpu
        rate = first.embedded / first.seconds
        print(f"first full index: {first.embedded} units in {first.seconds:.1f} s wall, "
              f"{cpu:.1f} s CPU ({rate:.1f} units/s); bare model on the same texts and runs "
              f"{floor_s:.1f} s wall, {floor_cpu:.1f} s CPU ({len(texts) / floor_s:.1f} "
              f"units/s)")
        print(f"indexer/raw throughput ×{floor_s / first.seconds:.2f} wall, "
              f"×{floor_cpu / cpu:.2f} CPU (target ≥ 0.8)")
        per_note = len(texts) / max(notes, 1)
        print(f"a {VAULT_NOTES:,}-note vault (extrapolated: {per_note:.1f} units a note as "
              f"in this set, at {rate:.1f} units/s): about {VAULT_NOTES * per_note:,.0f} units "
              f"in {VAULT_NOTES * per_note / rate / 60:.0f} min")
        path, count = median_note(db)
        before = sections_of(db, path)
        edit_one_paragraph(Path(tmp) / "vault", path)
        sync_notes(Path(tmp) / "vault", server.url, server.token, Path(tmp) / "hub-state")
        after = sections_of(db, path)
        changed = len(after - before)
        again = asyncio.run(reindex_vectors(db, sem, lambda _: None, now_ms))
        print(f"one edited note ({path}, {count} sections, {changed} changed): "
              f"{again.embedded} units re-embedded and {again.removed} removed in "
              f"{again.seconds * 1000:.0f} ms")
        if again.embedded != changed or again.removed != len(before - after):
            sys.exit(f"re-embedding touched {again.embedded} units (removed {again.removed});"
                     f" only the {changed} changed sections should have been")
        sem.index.close()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=DEV)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-run-tokens", type=int, default=MAX_RUN_TOKENS,
                        help="padded word pieces per onnxruntime run (LocalEmbedder's)")
    parser.add_argument("--max-tokens", type=int, default=MINILM_L6_INT8.max_tokens,
                        help="truncation (LOCAL_EMBED_MAX_TOKENS)")
    args = parser.parse_args()
    run(args.set, args.threads, args.max_run_tokens, args.max_tokens)


if __name__ == "__main__":
    main()

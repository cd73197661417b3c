"""The cost of vector indexing through the real path: the first full index of an
evaluation set, then re-embedding after one edited note.

    uv sync --group embed
    uv run python -m bench.index_cost [--set ../shared/eval/dev] [--threads N]

The set is loaded as bench.relevance loads it (the hub's parser and POST /vault/sync for
notes, the chat store for messages), then `mallory reindex --vectors`'s own code embeds
every unit with the local embedder (no cache). One note of median section count then gets
one paragraph edited in its vault file and the hub syncs it again; the second reindex
must embed exactly the sections whose text changed (their content hashes), which this
script checks against the sections the Worker holds. Floor, measured in the same run: the
bare model on the same texts (bench.embed's BareModel), so the ratio is what the indexer
adds (D1 bookkeeping, upserts, the port).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.embed import BareModel
from bench.evalset import load_set, sync_notes
from local.reindex import opened_semantics, reindex_vectors
from local.semantic.embedder import LocalEmbedder
from local.sqlite_db import SqliteDatabase
from local.thread_server import running_server
from worker.corpora import registry
from worker.semantic.semantics import Semantics

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev"
EDIT = "\n\nEdited: the owner added this paragraph about the garden hose.\n\n"


def unit_texts(db: SqliteDatabase, model: str) -> list[str]:
    """The texts the indexer embeds (its own SQL), for the bare-model floor."""
    return [str(r["text"] or "") for c in registry.vector_corpora()
            for r in db.connection.execute(c.units_sql, (model, -1)).fetchall()]


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


def run(set_dir: Path, threads: int) -> None:
    with tempfile.TemporaryDirectory(prefix="mallory-index-cost-") as tmp, \
            running_server(Path(tmp) / "eval.sqlite") as server:
        _, now_ms = load_set(set_dir, Path(tmp), server.url, server.token, server.db)
        db = server.db
        sem, _ = opened_semantics(db, {})
        embedder = LocalEmbedder(threads=threads)
        sem = Semantics(embedder, sem.index)
        embedder.load()
        texts = unit_texts(db, embedder.model)
        bare = BareModel(embedder)
        started = time.perf_counter()
        bare.run(bare.feeds(texts))
        floor_s = time.perf_counter() - started
        tokens = [len(e.ids) for e in bare.tokenizer.encode_batch(texts)]
        print(f"set {set_dir}: {len(texts)} units, median "
              f"{statistics.median(tokens):.0f} word pieces "
              f"(p90 {sorted(tokens)[int(0.9 * len(tokens))]}), threads={threads}")
        first = asyncio.run(reindex_vectors(db, sem, lambda _: None, now_ms))
        print(f"first full index: {first.embedded} units in {first.seconds:.1f} s "
              f"({first.embedded / first.seconds:.1f} units/s); bare model on the same texts "
              f"{floor_s:.1f} s ({len(texts) / floor_s:.1f} units/s); ratio "
              f"×{first.seconds / floor_s:.2f}")
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
    args = parser.parse_args()
    run(args.set, args.threads)


if __name__ == "__main__":
    main()

"""LoCoMo's memories, built once: each sample's conversations loaded through the real path
(bench.evalset: the hub's sync over HTTP, the chat store) into a database kept under
bench-output/, with its vectors when a semantic mode asked for them.

A sample's database is keyed by a digest of its corpus and of the code that turns
messages into indexed units (migrations, the chat store, the text helpers): change either
and it is built again. Building one takes seconds lexically; embedding its ~600 turns
with the local MiniLM takes a minute or two on a loaded machine, once (the vectors stay in
the database file, and bench.system's embedding cache keeps them across rebuilds).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.evalset import Query, load_set, read_queries
from bench.provenance import ROOT
from local.sqlite_db import SqliteDatabase
from local.thread_server import running_server

# The converted benchmark lives beside the project, never inside it (its licence, CC BY-NC
# 4.0, allows evaluation only): see the README's "Figures".
DEFAULT_ROOT = ROOT.parent / "shared" / "eval" / "locomo"
CACHE = ROOT / "bench-output" / "locomo"
# What makes units and their index out of stored messages.
UNIT_CODE = ("migrations", "worker/store", "shared/text", "worker/indexing/indexer.py",
             "worker/recall/vector_corpora.py")
VIEWS = ("owner", "third")


def set_dir(root: Path, view: str, sample: int) -> Path:
    return root / (f"locomo-owner-{sample}" if view == "owner" else f"locomo-{sample}")


def samples_arg(text: str) -> list[int]:
    """"0-4" or "5,7,9" → the sample numbers (0…9)."""
    found: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"samples must look like 0-4 or 5,7: got {text!r}")
        found.extend(range(int(lo), int(hi or lo) + 1))
    if not found or any(s > 9 for s in found) or len(set(found)) != len(found):
        raise ValueError(f"samples are 0…9, each once: got {text!r}")
    return found


def _digest(corpus: Path) -> str:
    h = hashlib.sha256(corpus.read_bytes())
    for name in UNIT_CODE:
        path = ROOT / name
        files = sorted(path.rglob("*.py")) + sorted(path.rglob("*.sql")) if path.is_dir() \
            else [path] if path.exists() else []
        for f in files:
            h.update(f.relative_to(ROOT).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Memory:
    sample: int
    db: SqliteDatabase
    now_ms: int


def _build(source: Path, target: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="mallory-locomo-") as tmp:
        db_path = Path(tmp) / "eval.sqlite"
        with running_server(db_path) as server:
            _, now_ms = load_set(source, Path(tmp), server.url, server.token, server.db)
            server.db.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(db_path, target / "eval.sqlite")
    (target / "built.json").write_text(json.dumps({"now_ms": now_ms}), encoding="utf-8")
    return now_ms


@contextmanager
def memory(root: Path, sample: int, rebuild: bool = False, cache: Path = CACHE
           ) -> Iterator[Memory]:
    """Sample `sample`'s memory (the third-person set's corpus: both views share it),
    built under `cache` unless it is there already."""
    source = set_dir(root, "third", sample)
    corpus = source / "corpus" / "conversations.jsonl"
    if not corpus.is_file():
        raise FileNotFoundError(f"{corpus} is missing: is --root the LoCoMo folder?")
    target = cache / f"locomo-{sample}-{_digest(corpus)}"
    if rebuild or not (target / "built.json").is_file():
        if target.exists():
            shutil.rmtree(target)
        _build(source, target)
    now_ms = json.loads((target / "built.json").read_text(encoding="utf-8"))["now_ms"]
    db = SqliteDatabase(target / "eval.sqlite")
    try:
        yield Memory(sample, db, now_ms)
    finally:
        db.close()


def cross_partner(samples: list[int], sample: int) -> int:
    """Whose questions are asked of `sample`'s memory as no-answer questions: the next
    sample of the run, cyclically (every sample's questions are asked once elsewhere)."""
    return samples[(samples.index(sample) + 1) % len(samples)]


NO_ANSWER = "cross_sample"


def questions(root: Path, view: str, sample: int, samples: list[int]) -> list[Query]:
    """The sample's own questions, then another sample's as no-answer questions (their
    judgments emptied, category cross_sample). With a single sample, none of the latter."""
    own = read_queries(set_dir(root, view, sample))
    other = cross_partner(samples, sample)
    if other == sample:
        return own
    foreign = [Query(f"x{sample}-{q.id}", q.query, NO_ANSWER, {})
               for q in read_queries(set_dir(root, view, other))]
    return own + foreign

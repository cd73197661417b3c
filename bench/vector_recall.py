"""Recall@20 of the local index's quantised list (sign-bit candidates, exact re-scoring:
local/semantic/vector_matrix.py) against the exact float32 scan of the same rows.

    uv run python -m bench.vector_recall [--max-tokens 128] [--rows 50000]

Vectors: MiniLM (the local embedder, cached on disk as the relevance runs cache them) of
real texts the team may tune on — the messages and note paragraphs of the dev set,
bench/sets/mixed-vault and LoCoMo samples 0–4 — queried with those sets' own queries; and,
as the worst case, `--rows` random unit vectors (no structure for sign bits to keep). The
real texts are fewer than a large index holds, so each is also measured with the
candidate count cut to the share of rows the production setting re-scores at `--rows`
(the 1M + 50k corpus's message partition holds about 500,000): a proxy that errs low, since
a larger partition's top 20 lie closer to the query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from local.semantic.vector_matrix import VectorMatrix, candidates, partition_key

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "eval"
TEXT_SETS = [EVAL / "dev", ROOT / "bench" / "sets" / "mixed-vault",
             *(EVAL / "locomo" / f"locomo-{i}" for i in range(5))]  # LoCoMo 0-4 only
AT = 20
TOP_K = 40  # what recall asks the index for (worker/recall/vector.py)
MIN_CHARS = 20  # shorter paragraphs are headings and list stubs


def _paragraphs(text: str) -> list[str]:
    body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    return [p.strip() for p in re.split(r"\n\s*\n", body) if len(p.strip()) >= MIN_CHARS]


def texts_and_queries(sets: list[Path]) -> tuple[list[str], list[str]]:
    texts: list[str] = []
    queries: list[str] = []
    for folder in sets:
        corpus = folder / "corpus"
        conversations = corpus / "conversations.jsonl"
        if conversations.exists():
            texts += [json.loads(line)["content"] for line in
                      conversations.read_text().splitlines() if line.strip()]
        for note in sorted((corpus / "notes").rglob("*.md")) if (corpus / "notes").exists() \
                else []:
            texts += _paragraphs(note.read_text(errors="replace"))
        queries += [json.loads(line)["query"] for line in
                    (folder / "queries.jsonl").read_text().splitlines() if line.strip()]
    return [t for t in dict.fromkeys(texts) if len(t) >= MIN_CHARS], list(dict.fromkeys(queries))


def embedded(texts: list[str], queries: list[str], max_tokens: int
             ) -> tuple[np.ndarray, np.ndarray]:
    from bench.system import EMBEDDING_CACHE
    from local.semantic.cache import CachedEmbedder
    from local.semantic.embedder import LocalEmbedder
    from local.semantic.model_files import MINILM_L6_INT8

    embedder = CachedEmbedder(LocalEmbedder(replace(MINILM_L6_INT8, max_tokens=max_tokens),
                                            threads=os.cpu_count() or 1), EMBEDDING_CACHE)

    async def run(items: list[str], kind: str) -> np.ndarray:
        out = []
        for start in range(0, len(items), 256):
            out += await embedder.embed(items[start:start + 256], kind)  # type: ignore[arg-type]
        return np.asarray(out, dtype=np.float32)

    return asyncio.run(run(texts, "passage")), asyncio.run(run(queries, "query"))


def random_units(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, 384), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def recall_at(vectors: np.ndarray, queries: np.ndarray, pool: int) -> tuple[float, float]:
    """Mean and least Recall@AT of the quantised top TOP_K against the exact one, `pool`
    sign-bit candidates re-scored."""
    matrix = VectorMatrix(vectors.shape[1])
    metadata = {"kind": "message"}
    matrix.load(partition_key(metadata), [f"u{i}" for i in range(len(vectors))], vectors,
                [metadata] * len(vectors))
    recalls = []
    for q in queries:
        exact = {m.id for m in matrix.query(q, TOP_K, {}, exact=True)[:AT]}
        quantised = {m.id for m in matrix.query(q, TOP_K, {}, rescored=pool)[:AT]}
        recalls.append(len(exact & quantised) / len(exact))
    return float(np.mean(recalls)), float(np.min(recalls))


def report(label: str, vectors: np.ndarray, queries: np.ndarray, rows: int) -> None:
    n = len(vectors)
    setting = candidates(TOP_K, rows)
    share = max(TOP_K, round(setting * n / rows))
    print(f"{label}: {n:,} vectors, {len(queries):,} queries; at {rows:,} rows production "
          f"re-scores {setting:,} candidates ({setting / rows:.1%})", flush=True)
    for pool, what in ((candidates(TOP_K, n), f"production at {n:,} rows"),
                       (share, f"the share of {rows:,} rows"), (share // 2, "half that share")):
        mean, least = recall_at(vectors, queries, pool)
        print(f"    {pool:>6,} candidates ({what:<26}) Recall@{AT} mean {mean:.4f}, "
              f"least {least:.2f}  [target mean ≥ 0.98: {'met' if mean >= 0.98 else 'MISSED'}]",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-tokens", type=int, default=128,
                        help="the embedder's truncation for these texts")
    parser.add_argument("--rows", type=int, default=50_000,
                        help="the partition size the candidate share is scaled to")
    parser.add_argument("--queries", type=int, default=300, help="at most this many queries")
    args = parser.parse_args(argv)
    texts, queries = texts_and_queries([s for s in TEXT_SETS if s.exists()])
    queries = queries[::max(1, len(queries) // args.queries)][:args.queries]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; embedding "
          f"{len(texts):,} texts and {len(queries):,} queries (cached after the first run)",
          flush=True)
    vectors, query_vectors = embedded(texts, queries, args.max_tokens)
    report("MiniLM, real texts", vectors, query_vectors, args.rows)
    report("random unit vectors (worst case)", random_units(args.rows, 0),
           random_units(100, 1), args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

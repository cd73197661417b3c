"""Local embedding cost: units/s through the Embedder port against the bare model.

    uv sync --group embed
    uv run python -m bench.embed [--notes DIR] [--limit-notes N] [--threads 1 2]
                                 [--batch-sizes 16] [--max-tokens 256]

Floor, measured in the same run: the bare onnxruntime session on the same texts already
tokenized, sorted and padded into the same batches, so the ratio is what the port adds
(tokenizing, padding, pooling, checks, the hop to a worker thread). Wall time and this
process's CPU time are both printed: on a shared machine the two differ.

Batch sizes and thread counts can be swept (`--batch-sizes 1 4 16 64 --threads 1 2`).
Target: ≥ 200 units/s for section-sized texts. The cost of a first full index and of
re-embedding after an edit, through the real indexer: bench.index_cost.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from local.semantic.embedder import LocalEmbedder
from local.semantic.model_files import MINILM_L6_INT8

DEV = Path("/work/shared/eval/dev")
SECTION_CHARS = 1_000  # "section-sized" texts for the throughput figure
SECTION_UNITS = 200
QUERY_UNITS = 400
TARGET_UNITS_PER_S = 200


def chunks(text: str, size: int) -> list[str]:
    """Paragraphs packed greedily up to `size` characters; a longer paragraph is cut."""
    out: list[str] = []
    current = ""
    for paragraph in (p.strip() for p in text.split("\n\n")):
        if not paragraph:
            continue
        pieces = [paragraph[i:i + size] for i in range(0, len(paragraph), size)]
        for piece in pieces:
            if current and len(current) + 2 + len(piece) > size:
                out.append(current)
                current = ""
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        out.append(current)
    return out


def read_notes(folder: Path, limit: int | None) -> dict[str, str]:
    paths = sorted(folder.rglob("*.md"))[:limit]
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in paths}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


class BareModel:
    """The floor: onnxruntime alone, on texts tokenized and padded beforehand into the runs
    the embedder makes of the same calls (LocalEmbedder.runs), with its session options."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self.embedder = embedder
        spec = embedder.spec
        self.tokenizer = Tokenizer.from_file(str(spec.tokenizer.verified()))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=spec.max_tokens)
        options = ort.SessionOptions()
        options.intra_op_num_threads = embedder.threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.enable_mem_pattern = False
        self.session = ort.InferenceSession(str(spec.onnx.verified()), options,
                                            providers=["CPUExecutionProvider"])

    def feeds(self, texts: list[str], calls: list[int] | None = None
              ) -> list[dict[str, np.ndarray]]:
        """`calls`: how many texts each embed call takes, in order (default: max_batch
        each, as bench.embed's port sends them)."""
        step = self.embedder.max_batch
        calls = calls or [min(step, len(texts) - i) for i in range(0, len(texts), step)]
        encoded = [e.ids for e in self.tokenizer.encode_batch(texts)]
        batches, start = [], 0
        for size in calls:
            batches += self._padded(sorted(encoded[start:start + size], key=len))
            start += size
        return batches

    def _padded(self, ids: list[list[int]]) -> list[dict[str, np.ndarray]]:
        batches = []
        for run in self.embedder.runs([len(i) for i in ids]):
            rows = ids[run.start:run.stop]
            width = max(map(len, rows))
            padded = np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)
            mask = (np.arange(width)[None, :] < np.array([len(r) for r in rows])[:, None])
            batches.append({"input_ids": padded, "attention_mask": mask.astype(np.int64),
                            "token_type_ids": np.zeros_like(padded)})
        return batches

    def run(self, feeds: list[dict[str, np.ndarray]]) -> None:
        for feed in feeds:
            self.session.run(None, feed)


def throughput(embedder: LocalEmbedder, texts: list[str], label: str) -> dict[str, float]:
    bare = BareModel(embedder)
    feeds = bare.feeds(texts)
    tokens = sum(int(f["attention_mask"].sum()) for f in feeds)
    bare.run(feeds[:1])
    asyncio.run(embedder.embed(texts[:2], "passage"))  # warm both

    async def port() -> None:
        for start in range(0, len(texts), embedder.max_batch):
            await embedder.embed(texts[start:start + embedder.max_batch], "passage")

    floor_wall, floor_cpu = timed(lambda: bare.run(feeds))
    wall, cpu = timed(lambda: asyncio.run(port()))
    n = len(texts)
    print(f"  {label:<28} threads={embedder.threads}  {tokens / n:5.0f} tokens/unit  "
          f"port {n / wall:6.1f} units/s wall, {n / cpu:6.1f} per CPU-s  |  "
          f"bare model {n / floor_wall:6.1f} wall, {n / floor_cpu:6.1f} per CPU-s  |  "
          f"port/bare time ×{wall / floor_wall:.2f}")
    return {"units": n, "tokens_per_unit": tokens / n, "units_per_s": n / wall,
            "units_per_cpu_s": n / cpu, "floor_units_per_s": n / floor_wall,
            "ratio_to_floor": wall / floor_wall}


def section_texts(notes: dict[str, str]) -> list[str]:
    pieces = [c for text in notes.values() for c in chunks(text, SECTION_CHARS)
              if len(c) >= 0.8 * SECTION_CHARS]
    return pieces[:SECTION_UNITS]


def query_texts(path: Path) -> list[str]:
    queries = [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    return (queries * (QUERY_UNITS // max(len(queries), 1) + 1))[:QUERY_UNITS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=Path, default=DEV / "corpus" / "notes")
    parser.add_argument("--queries", type=Path, default=DEV / "queries.jsonl")
    parser.add_argument("--limit-notes", type=int, default=None)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[16],
                        help="texts per onnxruntime run (LocalEmbedder's batch_size)")
    parser.add_argument("--max-tokens", type=int, default=MINILM_L6_INT8.max_tokens,
                        help="truncation to try (the model was trained on 128)")
    args = parser.parse_args()
    spec = dataclasses.replace(MINILM_L6_INT8, max_tokens=args.max_tokens)
    notes = read_notes(args.notes, args.limit_notes)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(other work on the machine slows wall times, not CPU times)")
    before = rss_mb()
    embedder = LocalEmbedder(spec, threads=args.threads[0])
    wall, _ = timed(embedder.load)
    print(f"model {embedder.model}: loaded in {wall:.2f} s, "
          f"{rss_mb() - before:.0f} MB resident")
    results = []
    for threads in args.threads:
        for batch in args.batch_sizes:
            one = LocalEmbedder(spec, threads=threads, batch_size=batch)
            results.append(throughput(one, section_texts(notes),
                                      f"sections (~{SECTION_CHARS} ch) batch {batch}"))
            results.append(throughput(one, query_texts(args.queries), f"queries batch {batch}"))
    best = max(r["units_per_s"] for r in results[0::2])
    per_cpu = statistics.mean(r["units_per_cpu_s"] for r in results[0::2])
    print(f"  target ≥ {TARGET_UNITS_PER_S} units/s for sections: best {best:.1f} "
          f"(×{best / TARGET_UNITS_PER_S:.2f} of target; {per_cpu:.1f} per CPU-second)")


if __name__ == "__main__":
    main()

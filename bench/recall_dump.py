"""What chat-time recall injects for the latency benchmark's queries, as one JSON line per
query, so two versions of the code can be compared byte for byte (a speed-up must change
no block and no hit).

    uv run python -m bench.recall_dump --messages 10000 --notes 1000 [--cache DIR]
                                       [--mode lexical|hybrid|adaptive] --out PATH

The corpus and the queries are bench.latency's (the same seeds, warm-up queries
included). Each line: the query, the Recall block, and every injected hit with its score
fields, rounded to 12 digits (the merge's own rounding) so a line differs only when what
recall decides differs; and the gate's decision on every candidate of the merged list, in
its order (unit, ranks, cosine, fused and final scores, estimate, rule), so a change of
the fused list shows even where nothing is injected; and the explicit search's ranked hits
for the same text. Hybrid and adaptive use the local
MiniLM for the query and random unit vectors for the units, as bench.latency does,
without the chat-time latency guard (bench.system's budget): on a loaded machine a
timeout would turn a query lexical, and the dump would depend on the load. Set
OPENBLAS_NUM_THREADS=1 for a semantic mode: the vector scan's threaded BLAS does not sum in
the same order from run to run (at 10,000 messages two runs of the same code differed in the
8th digit of a cosine; single-threaded they were byte-identical).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.corpus import Generator
from bench.latency import QUERIES, WARMUP, semantics_for
from bench.latency_corpus import NOW_MS, build, cached
from bench.system import RELEVANCE_SEMANTIC_BUDGET_S
from shared.block.envelope import Injected
from shared.rank.candidate import Candidate
from shared.rank.policy import Decision
from worker.recall.automatic import automatic_recall
from worker.recall.explicit import search
from worker.recall.modes import RetrievalMode


def _number(value: float | None) -> float | None:
    return None if value is None else round(value, 12)


def _hit(hit: Injected) -> dict[str, Any]:
    c = hit.candidate
    i, s = c.identity, c.scores
    return {"n": hit.n, "excerpt": hit.excerpt, "standing_note": hit.standing,
            "kind": i.kind, "id": i.id, "group": i.group, "unit": i.unit,
            "label": i.label, "href": i.href, "terms": sorted(c.presentation.terms),
            "fuzzy": c.presentation.fuzzy,
            "relevance": _number(s.relevance), "boost": _number(s.boost),
            "standing": _number(s.standing), "cosine": _number(s.cosine),
            "fused": _number(s.fused), "score": _number(s.final),
            "links": [[x.type, x.direction, x.other] for x in c.note.links]}


def _decision(d: Decision) -> list[Any]:
    c = d.candidate
    s = c.scores
    return [c.identity.kind, c.identity.unit, c.identity.id, c.identity.group, d.rank,
            s.lexical_rank, s.vector_rank, _number(s.relevance), _number(s.cosine),
            _number(s.fused), _number(s.final), _number(s.confidence), d.verdict.rule,
            d.chosen]


def _ranked(c: Candidate) -> dict[str, Any]:
    s = c.scores
    return {"kind": c.identity.kind, "id": c.identity.id, "unit": c.identity.unit,
            "relevance": _number(s.relevance), "standing": _number(s.standing),
            "confidence": _number(s.confidence), "score": _number(s.final),
            "fuzzy": c.presentation.fuzzy}


async def dump(db: Any, queries: list[str], mode: RetrievalMode, sem: Any) -> list[str]:
    lines = []
    for text in queries:
        recall = await automatic_recall(db, text, NOW_MS, message_id="bench-q",
                                        conversation_id="bench-c", semantics=sem, mode=mode)
        explicit = await search(db, text, NOW_MS, semantics=sem, mode=mode)
        lines.append(json.dumps({"query": text, "mode": recall.ran.mode.value,
                                 "fallback": recall.ran.fallback, "error": recall.error,
                                 "block": recall.block,
                                 "injected": [_hit(h) for h in recall.injected],
                                 "decisions": [_decision(d) for d in (
                                     recall.gated.decisions if recall.gated else ())],
                                 "search": [_ranked(c) for c in explicit.hits]},
                                sort_keys=True, default=str))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--mode", default="lexical", choices=[m.value for m in RetrievalMode])
    parser.add_argument("--cache", type=Path, help="reuse bench.latency's cached corpora")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(args.queries + WARMUP)]
    mode = RetrievalMode(args.mode)
    with tempfile.TemporaryDirectory(prefix="mallory-dump-") as tmp:
        db = cached(args.cache, args.messages, args.notes) if args.cache else build(
            Path(tmp) / "bench.sqlite", args.messages, args.notes)
        sem = replace(semantics_for(db, "random")[0], budget_s=RELEVANCE_SEMANTIC_BUDGET_S) \
            if mode is not RetrievalMode.LEXICAL else None
        lines = asyncio.run(dump(db, queries, mode, sem))
        db.close()
    args.out.write_text("\n".join(lines) + "\n")
    injected = sum(bool(json.loads(line)["injected"]) for line in lines)
    print(f"{len(lines)} queries, {injected} with a Recall block → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

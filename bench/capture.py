"""Capture what each query's retrievers return, once, so fusion rules and gates can be
compared offline in seconds on exactly the candidates the live system would see (the
gate's own curve, after fusion, is bench.gate_curve, which re-runs retrieval itself).

    uv run python -m bench.capture --set DIR --split tune --out /tmp/tune.pickle

For every query: the explicit and the automatic query as searched, the lexical list
(relevance, recency, matched terms, per-term IDF) and the vector list (cosine), each
CAPTURE_DEPTH deep per corpus. The capture is a pickle of `Captured` records: a scratch
artefact for tuning, not a format anything else reads.
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.evalset import Query, loaded_set, read_queries
from bench.system import indexed_semantics
from local.sqlite_db import SqliteDatabase
from shared.rank.candidate import Candidate
from shared.rank.policy import AUTOMATIC
from shared.text.dialogue import dialogue_act
from shared.text.sanitiser import Mode, SearchQuery, build_query
from worker.corpora.filters import Filters
from worker.recall import lexical, vector
from worker.semantic.semantics import Semantics

CAPTURE_DEPTH = 40  # per corpus: the seed design's candidate pool


@dataclass(frozen=True)
class Lists:
    query: SearchQuery  # as searched
    lexical: list[Candidate] = field(default_factory=list)
    vector: list[Candidate] = field(default_factory=list)
    idf: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    docs: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Captured:
    query: Query
    explicit: Lists
    automatic: Lists
    act: str  # the automatic query's dialogue act (shared.text.dialogue)


async def _lists(db: SqliteDatabase, sem: Semantics, text: str, mode: Mode,
                 filters: Filters, now_ms: int) -> Lists:
    query = build_query(text, mode)
    if query.is_empty:
        return Lists(query)
    found = await lexical.retrieve(db, query, filters, now_ms)
    vec = await vector.retrieve(db, sem, query, filters, now_ms)
    return Lists(found.query, found.candidates, vec, found.idf, found.docs)


async def capture(db: SqliteDatabase, sem: Semantics, queries: Sequence[Query],
                  now_ms: int) -> list[Captured]:
    explicit = Filters(limit=CAPTURE_DEPTH)
    automatic = Filters(limit=max(CAPTURE_DEPTH, AUTOMATIC.candidates))
    out = []
    for q in queries:
        auto_query = build_query(q.query, Mode.AUTOMATIC)
        out.append(Captured(
            q, await _lists(db, sem, q.query, Mode.EXPLICIT, explicit, now_ms),
            await _lists(db, sem, q.query, Mode.AUTOMATIC, automatic, now_ms),
            dialogue_act(auto_query.text)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--split", choices=("all", "tune", "heldout"), default="tune")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    queries = read_queries(args.set, args.split)
    if not queries:
        print(f"error: no queries in {args.set} split {args.split}", file=sys.stderr)
        return 2
    with loaded_set(args.set) as loaded:
        sem = indexed_semantics(loaded.db, loaded.now_ms)
        captured = asyncio.run(capture(loaded.db, sem, queries, loaded.now_ms))
    args.out.write_bytes(pickle.dumps(captured))
    print(f"{len(captured)} queries captured to {args.out}")
    return 0


if __name__ == "__main__":
    # Run the imported module, not __main__, so the pickle names bench.capture's classes.
    from bench.capture import main as module_main

    sys.exit(module_main())

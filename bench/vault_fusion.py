"""Layered ranking across vaults: one ranked list, or per-vault reciprocal rank fusion?

    uv run python -m bench.vault_fusion --set bench/sets/mixed-vault [--vaults 3] [--json P]

The set's notes are split into K vaults (its top-level folders dealt out in name order;
each note keeps its path, so its document id and its indexed text are unchanged) and
every vault is pushed by its own hub run over HTTP. Two rankings of the explicit search
are then scored on the set's judged queries:
- `one list`: what /api/search does: all vaults share one FTS index, so every hit's
  relevance is on one calibrated scale and one list is ranked by score;
- `per-vault RRF`: each vault's notes and the messages searched as separate layers, each
  ranked alone, fused by Σ 1/(RRF_K + rank) (RRF_K = 60, the usual constant).
Both run in the same process on the same database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.evalset import Query, doc_id, load_conversations, read_queries, stage_notes
from bench.metrics import hit_at, mean, ndcg_at, recall_at, reciprocal_rank
from hub.client import WorkerClient
from hub.sync import Syncer
from local.thread_server import running_server
from shared.time.durations import MS_PER_DAY
from worker.recall.explicit import search

RRF_K = 60
DEPTH = 20  # hits per layer and in the fused list (as bench.relevance's SEARCH_DEPTH)


def split_vault(vault: Path, root: Path, k: int) -> list[Path]:
    """Deal the top-level folders of `vault` into k vault folders under `root`, keeping
    every note's relative path (top-level files go to the first vault)."""
    vaults = [root / f"Vault {i + 1}" for i in range(k)]
    for v in vaults:
        v.mkdir(parents=True)
    folders = sorted(p for p in vault.iterdir() if p.is_dir() and not p.name.startswith("."))
    for i, folder in enumerate(folders):
        shutil.move(str(folder), str(vaults[i % k] / folder.name))
    for file in sorted(p for p in vault.iterdir() if p.is_file()):
        shutil.move(str(file), str(vaults[0] / file.name))
    return vaults


def fuse(layers: Sequence[Sequence[str]], depth: int = DEPTH) -> list[str]:
    """Reciprocal rank fusion: Σ over layers of 1/(RRF_K + rank), rank from 1."""
    scores: dict[str, float] = defaultdict(float)
    for layer in layers:
        for rank, doc in enumerate(layer, start=1):
            scores[doc] += 1.0 / (RRF_K + rank)
    return sorted(scores, key=lambda d: (-scores[d], d))[:depth]


def figures(queries: Sequence[Query], ranked: Callable[[Query], list[str]]) -> dict[str, Any]:
    judged = [q for q in queries if q.judgments]
    runs = {q.id: ranked(q) for q in judged}
    per_category: dict[str, list[Query]] = defaultdict(list)
    for q in judged:
        per_category[q.category].append(q)

    def score(qs: list[Query]) -> dict[str, Any]:
        return {"ndcg@10": mean([ndcg_at(runs[q.id], q.judgments, 10) for q in qs]),
                "mrr": mean([reciprocal_rank(runs[q.id], q.judgments, DEPTH) for q in qs]),
                "recall@20": mean([recall_at(runs[q.id], q.judgments, DEPTH) for q in qs]),
                "hit@3": mean([hit_at(runs[q.id], q.judgments, 3) for q in qs]),
                "n_queries": len(qs)}

    return {**score(judged), "per_category": {c: score(qs) for c, qs in
                                              sorted(per_category.items())}}


def run(set_dir: Path, k: int) -> dict[str, Any]:
    queries = read_queries(set_dir)
    with tempfile.TemporaryDirectory(prefix="mallory-fusion-") as tmp, \
            running_server(Path(tmp) / "eval.sqlite") as server:
        staged, note_stamps = stage_notes(set_dir, Path(tmp))
        vaults = split_vault(staged, Path(tmp) / "vaults", k)
        client = WorkerClient(server.url, server.token)
        try:
            sent = [Syncer(v, client, v.name, Path(tmp) / f"state-{v.name}").run().sent
                    for v in vaults]
        finally:
            client.close()
        stamps = asyncio.run(load_conversations(server.db, set_dir))
        now = max([*note_stamps, *stamps, 0]) + MS_PER_DAY
        db = server.db

        def ids(text: str, **filters: Any) -> list[str]:
            found = asyncio.run(search(db, text, now, limit=DEPTH, **filters))
            return [doc_id(h.identity.kind, h.identity.id) for h in found.hits]

        def one_list(q: Query) -> list[str]:
            return ids(q.query)

        def per_vault_rrf(q: Query) -> list[str]:
            layers = [ids(q.query, source="notes", vault=v.name) for v in vaults]
            return fuse([*layers, ids(q.query, source="messages")])

        return {"set": str(set_dir), "vaults": {v.name: n for v, n in zip(vaults, sent,
                                                                       strict=True)},
                "rrf_k": RRF_K, "one list": figures(queries, one_list),
                "per-vault RRF": figures(queries, per_vault_rrf)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path, help="evaluation set folder")
    parser.add_argument("--vaults", type=int, default=3, help="split the notes into K vaults")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not (args.set / "queries.jsonl").is_file() or args.vaults < 2:
        print(f"error: {args.set} needs queries.jsonl (docs/design.md, Evaluation sets) "
              "and --vaults ≥ 2",
              file=sys.stderr)
        return 2
    result = run(args.set, args.vaults)
    print(f"set {result['set']}; notes per vault {result['vaults']}")
    keys = ("ndcg@10", "mrr", "recall@20", "hit@3", "n_queries")
    print(f"{'':16}" + "".join(f"{k:>11}" for k in keys))
    for name in ("one list", "per-vault RRF"):
        m = result[name]
        print(f"{name:16}" + "".join(f"{m[k]:>11.3f}" if isinstance(m[k], float)
                                     else f"{m[k]:>11}" for k in keys))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

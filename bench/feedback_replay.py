"""Feedback replay: what one round of the owner's 👍/👎 does to later recall, on a judged
set (worker/recall/feedback.py, shared/rank/feedback.py).

    uv run python -m bench.feedback_replay --set bench/sets/mixed-vault [--judge tune]
        [--mode lexical] [--json PATH]

The set is loaded through the real path (bench.evalset) and measured. Then every query of
the `--judge` split is asked once as automatic recall; its injected hits are stored as an
answer that cites them all, as a chat turn stores one (written to the tables directly, so
the set's message corpus does not grow), and each source is judged as the set judges it —
👍 when a document it holds is graded, 👎 otherwise — through the feedback store. The set is
measured again at the same "now". Reported for the judged split (what the owner taught
it: 👎 keeps a false positive out of the same question) and for the other split (whether a
document's ±2% reaches other questions).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.evalset import LoadedSet, Query, doc_id, loaded_set, read_queries
from bench.scoring import run_queries, summarise
from bench.system import build as build_system
from shared.api.wire import Source
from shared.rank.candidate import Candidate
from worker.recall.automatic import gated
from worker.store import citations, feedback
from worker.store.citations import Citation

KEYS = ("ndcg@10", "mrr", "recall@20", "auto_hit_rate", "auto_fpr", "auto_precision")
INSERT_CONVERSATION = ("INSERT INTO conversations (id, title, created_at, updated_at) "
                       "VALUES (?1, 'feedback replay', ?2, ?2)")
INSERT_MESSAGE = ("INSERT INTO messages (id, conversation_id, seq, role, content, sources, "
                  "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")


def judgment(cand: Candidate, q: Query) -> str:
    docs = [doc_id(cand.identity.kind, d) for d in cand.identity.covers or (cand.identity.id,)]
    return "relevant" if any(q.judgments.get(d, 0) >= 1 for d in docs) else "irrelevant"


async def judge(loaded: LoadedSet, queries: Sequence[Query]) -> dict[str, int]:
    """One round of feedback on every injected hit of these queries."""
    db, now, counts = loaded.db, loaded.now_ms, {"relevant": 0, "irrelevant": 0}
    for i, q in enumerate(queries):
        hits = (await gated(db, q.query, now)).hits
        if not hits:
            continue
        conversation, answer = f"replay-{i}", f"replay-{i}-answer"
        sources = [Source(n=n, kind=c.identity.kind, id=c.identity.id, label=c.identity.label,
                          snippet="", href=c.identity.href)
                   for n, c in enumerate(hits, start=1)]
        await db.batch([
            db.prepare(INSERT_CONVERSATION).bind(conversation, now),
            db.prepare(INSERT_MESSAGE).bind(f"replay-{i}-question", conversation, 1, "user",
                                            q.query, "[]", now),
            db.prepare(INSERT_MESSAGE).bind(answer, conversation, 2, "assistant", "replay",
                                            json.dumps([s.model_dump() for s in sources]), now),
            *citations.record_statements(db, answer, [
                Citation(c.identity.vid, c.identity.id, "") for c in hits
                if c.identity.kind == "note" and c.identity.vid], now)])
        for n, cand in enumerate(hits, start=1):
            verdict = judgment(cand, q)
            await feedback.record(db, answer, n, verdict, now)  # type: ignore[arg-type]
            counts[verdict] += 1
    return counts


def measure(loaded: LoadedSet, queries: Sequence[Query], mode: str) -> dict[str, Any]:
    system = build_system(loaded.db, loaded.now_ms, mode)
    return summarise(run_queries(queries, system.ranked, system.injected))


def run(set_dir: Path, judged_split: str, mode: str) -> dict[str, Any]:
    queries = read_queries(set_dir)
    splits = {s: [q for q in queries if q.split == s] for s in ("tune", "heldout")}
    other = "heldout" if judged_split == "tune" else "tune"
    with loaded_set(set_dir) as loaded:
        before = {s: measure(loaded, splits[s], mode) for s in (judged_split, other)}
        counts = asyncio.run(judge(loaded, splits[judged_split]))
        after = {s: measure(loaded, splits[s], mode) for s in (judged_split, other)}
    return {"set": set_dir.resolve().name, "mode": mode, "judged_split": judged_split,
            "judgments": counts, "before": before, "after": after}


def _cell(value: float | None) -> str:
    return "  –  " if value is None else f"{value:.3f}"


def print_result(result: dict[str, Any]) -> None:
    print(f"{result['set']} ({result['mode']}): judged the {result['judged_split']} split "
          f"once: {result['judgments']['relevant']} 👍, {result['judgments']['irrelevant']} 👎")
    print(f"{'split / category':<28}" + "".join(f"{k:>18}" for k in KEYS))
    for split, before in result["before"].items():
        after = result["after"][split]
        rows = [(split, before, after)] + [
            (f"  {c}", before["per_category"][c], after["per_category"][c])
            for c in sorted(before["per_category"])]
        for name, b, a in rows:
            if name.startswith("  ") and all(b.get(k) == a.get(k) for k in KEYS):
                continue  # an unchanged category
            print(f"{name:<28}" + "".join(f"{_cell(b.get(k))}→{_cell(a.get(k))}".rjust(18)
                                          for k in KEYS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path, help="evaluation set folder")
    parser.add_argument("--judge", choices=("tune", "heldout"), default="tune",
                        help="the split whose recall the owner judges (default: tune)")
    parser.add_argument("--mode", default="lexical", help="retrieval mode (default: lexical)")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not any(q.split in ("tune", "heldout") for q in read_queries(args.set)):
        print(f"error: {args.set} has no tune/heldout split", file=sys.stderr)
        return 2
    result = run(args.set, args.judge, args.mode)
    print_result(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

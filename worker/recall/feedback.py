"""The owner's feedback applied to retrieved candidates (shared/rank/feedback.py): one D1 read
for the judgments of every candidate document, after retrieval and before the gate.

- Each candidate gets its document's bounded, decaying delta (`Candidate.feedback`,
  multiplied into its score). Feedback only reorders what retrieval found: it never adds a
  candidate, and a deleted note or forgotten message has no judgments left
  (migrations/0007 deletes them with it), so it can never be boosted.
- With `suppress_for` (automatic recall, the message's query hash) a document judged
  irrelevant for that query is dropped: it is not injected again for it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from shared.rank.candidate import Candidate
from shared.rank.feedback import Vote, delta
from worker.db import Database
from worker.recall.corpora import BY_KIND, CORPORA
from worker.store import feedback as store


def documents(cand: Candidate) -> tuple[str, ...]:
    """The keys of the documents a candidate holds (a conversation unit: its messages)."""
    return BY_KIND[cand.identity.kind].documents(cand)


async def apply_feedback(db: Database, candidates: Sequence[Candidate], now_ms: int,
                         suppress_for: str | None = None) -> list[Candidate]:
    if not candidates:
        return list(candidates)
    judged = {corpus.name: sorted({key for c in candidates if c.identity.kind == corpus.kind
                                   for key in corpus.judged(c)}) for corpus in CORPORA}
    rows = await store.judgments(db, judged["notes"], judged["messages"])
    if not rows:
        return list(candidates)
    votes: dict[str, list[Vote]] = defaultdict(list)
    refused: set[str] = set()
    for row in rows:
        votes[row["doc"]].append(Vote(row["judgment"], int(row["created_at"])))
        if suppress_for and row["query_hash"] == suppress_for \
                and row["judgment"] == "irrelevant":
            refused.add(row["doc"])
    kept = []
    for cand in candidates:
        docs = documents(cand)
        if refused.intersection(docs):
            continue
        found = [v for d in docs for v in votes.get(d, ())]
        kept.append(replace(cand, scores=replace(cand.scores, feedback=delta(found, now_ms)))
                    if found else cand)
    return kept

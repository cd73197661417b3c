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
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from shared.rank.candidate import Candidate
from shared.rank.feedback import Vote, delta
from worker.corpora import registry
from worker.db import Database
from worker.db.planned import Planned, Rows, run
from worker.db.port import Row


def documents(cand: Candidate) -> tuple[str, ...]:
    """The keys of the documents a candidate holds (a conversation unit: its messages)."""
    return registry.by_kind(cand.identity.kind).judgments.documents(cand)


def _plan(judged: Mapping[str, Sequence[Any]]) -> list[Planned]:
    return [Planned(("judgments", corpus.name, 0), corpus.judgments.sql,
                    corpus.judgments.params(judged[corpus.name]))
            for corpus in registry.corpora() if judged.get(corpus.name)]


def judged_rows(found: Rows) -> list[Row]:
    """The judgments a plan's statements read (`plan`, `judgments`), whatever else it ran."""
    return [row for key, rows in found.items() if key[0] == "judgments" for row in rows]


async def judgments(db: Database, judged: Mapping[str, Sequence[Any]]) -> list[Row]:
    """Every judgment of these documents (corpus name → the keys its `judged` gives), in
    one D1 batch: rows of (doc, judgment, created_at, query_hash)."""
    return judged_rows(await run(db, _plan(judged)))


def plan(candidates: Sequence[Candidate]) -> list[Planned]:
    """The statements reading every judgment of the candidates' documents."""
    return _plan({corpus.name: sorted({key for c in candidates
                                       if c.identity.kind == corpus.kind
                                       for key in corpus.judgments.judged(c)})
                  for corpus in registry.corpora()})


async def apply_feedback(db: Database, candidates: Sequence[Candidate], now_ms: int,
                         suppress_for: str | None = None,
                         rows: Sequence[Row] | None = None) -> list[Candidate]:
    """`rows`: the judgments `plan`'s statements read for these candidates or more of
    them (a document no candidate holds is never looked at), or None to read them here."""
    if not candidates:
        return list(candidates)
    if rows is None:
        rows = judged_rows(await run(db, plan(candidates)))
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

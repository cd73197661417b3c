"""Contradictions together, the D1 side: for the notes automatic recall chose, their
effective conflict relations (shared.knowledge.relations CONFLICT_TYPES, declared by either note,
body-linked, target present) and each note at either end as a candidate, in one D1 batch
(one round trip). shared/knowledge/bundles.py then places the partners beside their seeds.

A partner that retrieval already found keeps its own candidate (its best section);
another is read here: its section that best matches the query (else its first), scored
like a retrieved note so far as recency and standing go, with relevance 0 — it is shown
because its competitor was recalled, not because it matched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from shared.knowledge.bundles import Edge, together
from shared.knowledge.relations import CONFLICT_TYPES
from shared.knowledge.standing import stand
from shared.rank.candidate import Candidate
from shared.rank.policy import RecallPolicy
from shared.rank.scoring import recency_boost
from shared.text.sanitiser import SearchQuery
from worker.db import Database
from worker.recall.corpora import NOTES, Scoring
from worker.store.relations_sql import EDGES_SQL, partners_sql

# Edges read per recall: three seeds with a dozen competing claims each is already more
# than a three-hit block can show.
MAX_EDGES = 40

# The notes' bm25 weights are the corpus record's (worker/recall/corpora.py).
PARTNERS_SQL = partners_sql(NOTES.columns)


@dataclass(frozen=True)
class Neighbourhood:
    edges: list[Edge]
    notes: dict[str, Candidate]  # group → candidate, every note at an end of an edge


def _group(vid: object, path: object) -> str:
    """A note's group key, as NOTE_ROW_SELECT (worker/store/search_sql.py) makes it."""
    return f"{vid}:{path}"


async def neighbourhood(db: Database, seeds: Sequence[Candidate], query: SearchQuery,
                        now_ms: int) -> Neighbourhood:
    # Only a note with an effective relation (`related`, read with its row) has edges.
    notes = [c for c in seeds if c.note.related and c.identity.vid is not None]
    if not notes or query.is_empty:
        return Neighbourhood([], {})
    params = (json.dumps([[c.identity.vid, c.identity.id] for c in notes]),
              json.dumps(CONFLICT_TYPES), MAX_EDGES)
    edge_rows, note_rows = await db.batch([
        db.prepare(EDGES_SQL).bind(*params),
        db.prepare(PARTNERS_SQL).bind(*params, query.match)])
    edges = [Edge(_group(r["vid"], r["source"]), _group(r["vid"], r["target"]), str(r["type"]))
             for r in edge_rows.results]
    found = {}
    for row in note_rows.results:
        ts = int(row["note_date"])
        found[str(row["note_key"])] = NOTES.to_candidate(row, Scoring(
            0.0, recency_boost(ts, now_ms), ts, str(row["note_key"]), query.terms))
    return Neighbourhood(edges, found)


async def with_competitors(db: Database, chosen: list[Candidate],
                           retrieved: Sequence[Candidate], query: SearchQuery,
                           policy: RecallPolicy, now_ms: int) -> list[Candidate]:
    """The chosen hits with their conflict partners beside them (shared/knowledge/bundles.py)."""
    if not policy.together or not any(c.note.related for c in chosen):
        return chosen
    found = await neighbourhood(db, chosen, query, now_ms)
    if not found.edges:
        return chosen
    pool = {g: c for g, c in zip(found.notes, stand(list(found.notes.values()), query,
                                                    policy.standing), strict=True)}
    # A partner retrieval found keeps its best section (the last one written wins).
    pool.update({c.identity.group: c for c in sorted(retrieved, key=lambda c: c.scores.final)
                 if c.identity.group in pool})
    pool.update({c.identity.group: c for c in chosen})
    return together(chosen, found.edges, pool, policy.max_hits)

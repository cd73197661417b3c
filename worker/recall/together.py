"""Contradictions together, the D1 side: for the notes automatic recall chose, their
effective conflict relations (shared.relations CONFLICT_TYPES, declared by either note,
body-linked, target present) and each note at either end as a candidate, in one D1 batch
(one round trip). shared/bundles.py then places the partners beside their seeds.

A partner that retrieval already found keeps its own candidate (its best section);
another is read here: its section that best matches the query (else its first), scored
like a retrieved note so far as recency and standing go, with relevance 0 — it is shown
because its competitor was recalled, not because it matched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from shared.bundles import Edge, together
from shared.candidate import Candidate
from shared.query import SearchQuery
from shared.ranking import recency_boost
from shared.recall_policy import RecallPolicy
from shared.relations import CONFLICT_TYPES
from shared.standing import stand
from worker.db import Database
from worker.recall.corpora import NOTE_COLUMNS, NOTE_ROW_SELECT, NOTES, Scoring, weights_sql

# Edges read per recall: three seeds with a dozen competing claims each is already more
# than a three-hit block can show.
MAX_EDGES = 40

# ?1 the seeds as a JSON array of [vid, path]; ?2 the conflict types as a JSON array. An
# edge is read from the declaring note's side and from the target's (the index on
# note_relations (vid, target_path)), and kept only when the body links the target.
SEEDS_AND_EDGES = """
WITH seeds AS (
    SELECT json_extract(j.value, '$[0]') AS vid, json_extract(j.value, '$[1]') AS path
    FROM json_each(?1) AS j
),
edges AS (
    SELECT r.vid, s.path AS source, r.target_path AS target, r.type
    FROM seeds JOIN vault_notes AS s ON s.vid = seeds.vid AND s.path = seeds.path
    JOIN note_relations AS r ON r.note_rid = s.rid
    WHERE r.linked = 1 AND r.type IN (SELECT value FROM json_each(?2))
    UNION
    SELECT r.vid, s.path, r.target_path, r.type
    FROM seeds JOIN note_relations AS r ON r.vid = seeds.vid AND r.target_path = seeds.path
    JOIN vault_notes AS s ON s.rid = r.note_rid
    WHERE r.linked = 1 AND r.type IN (SELECT value FROM json_each(?2))
),
present AS (
    SELECT e.* FROM edges AS e
    WHERE EXISTS (SELECT 1 FROM vault_notes AS t WHERE t.vid = e.vid AND t.path = e.target)
    ORDER BY e.vid, e.source, e.target, e.type LIMIT ?3
)"""

EDGES_SQL = f"""{SEEDS_AND_EDGES}
SELECT vid, source, target, type FROM present
"""


def partners_sql() -> str:
    """Every note at either end of a present edge, as its section that best matches ?4
    (the query's MATCH expression; bm25 with the notes' column weights), else its first
    section, in the row shape of retrieved notes (corpora.NOTE_ROW_SELECT)."""
    return f"""{SEEDS_AND_EDGES},
ends AS (SELECT vid, source AS path FROM present UNION SELECT vid, target FROM present),
sections AS (
    SELECT s.rid, s.note_rid, s.ord FROM ends
    JOIN vault_notes AS n ON n.vid = ends.vid AND n.path = ends.path
    JOIN note_sections AS s ON s.note_rid = n.rid
),
matched AS (
    SELECT rowid AS rid, bm25(note_sections_fts, {weights_sql(NOTE_COLUMNS)}) AS bm25
    FROM note_sections_fts
    WHERE note_sections_fts MATCH ?4 AND rowid IN (SELECT rid FROM sections)
),
best AS (
    SELECT sections.rid, row_number() OVER (
        PARTITION BY sections.note_rid
        ORDER BY coalesce(matched.bm25, 0), sections.ord) AS pick
    FROM sections LEFT JOIN matched ON matched.rid = sections.rid
)
{NOTE_ROW_SELECT}
FROM best
JOIN note_sections AS s ON s.rid = best.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
WHERE best.pick = 1
"""


PARTNERS_SQL = partners_sql()


@dataclass(frozen=True)
class Neighbourhood:
    edges: list[Edge]
    notes: dict[str, Candidate]  # group → candidate, every note at an end of an edge


def _group(vid: object, path: object) -> str:
    """A note's group key, as corpora.NOTE_ROW_SELECT makes it (`note_key`)."""
    return f"{vid}:{path}"


async def neighbourhood(db: Database, seeds: Sequence[Candidate], query: SearchQuery,
                        now_ms: int) -> Neighbourhood:
    notes = [c for c in seeds if c.kind == "note" and c.vid is not None]
    if not notes or query.is_empty:
        return Neighbourhood([], {})
    params = (json.dumps([[c.vid, c.id] for c in notes]), json.dumps(CONFLICT_TYPES),
              MAX_EDGES)
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
    """The chosen hits with their conflict partners beside them (shared/bundles.py)."""
    if not policy.together or not any(c.related for c in chosen):
        return chosen
    found = await neighbourhood(db, chosen, query, now_ms)
    if not found.edges:
        return chosen
    pool = {g: c for g, c in zip(found.notes, stand(list(found.notes.values()), query,
                                                    policy.standing), strict=True)}
    # A partner retrieval found keeps its best section (the last one written wins).
    pool.update({c.group: c for c in sorted(retrieved, key=lambda c: c.score)
                 if c.group in pool})
    pool.update({c.group: c for c in chosen})
    return together(chosen, found.edges, pool, policy.max_hits)

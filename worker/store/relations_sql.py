"""The SQL of typed relations as recall reads them (migrations/0006): the effective
conflict edges around the notes automatic recall chose, and every note at either end of
one as a candidate row. worker/recall/together.py runs both in one D1 batch.
"""

from __future__ import annotations

from collections.abc import Mapping

from worker.corpora.base import weights_sql
from worker.corpora.notes import NOTE_ROW_SELECT

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


def partners_sql(columns: Mapping[str, float]) -> str:
    """Every note at either end of a present edge, as its section that best matches ?4
    (the query's MATCH expression; bm25 with the notes' column weights `columns`), else
    its first section, in the row shape of retrieved notes (NOTE_ROW_SELECT)."""
    return f"""{SEEDS_AND_EDGES},
ends AS (SELECT vid, source AS path FROM present UNION SELECT vid, target FROM present),
sections AS (
    SELECT s.rid, s.note_rid, s.ord FROM ends
    JOIN vault_notes AS n ON n.vid = ends.vid AND n.path = ends.path
    JOIN note_sections AS s ON s.note_rid = n.rid
),
matched AS (
    SELECT rowid AS rid, bm25(note_sections_fts, {weights_sql(columns)}) AS bm25
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

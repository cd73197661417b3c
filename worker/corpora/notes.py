"""The notes corpus: the sections of the owner's Obsidian notes (migrations/0005), every
vault in one index. Its row shape (NOTE_ROW_SELECT, which every note query selects so one
row → candidate applies), its searches, timeline and vectors, and its feedback keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from shared.api.sync_payload import PATH_SEPARATOR
from shared.block.citations import note_href, shorten
from shared.knowledge import names
from shared.knowledge.roles import normal_status, role_of
from shared.knowledge.standing import Signals, named, query_key
from shared.rank import kinds
from shared.rank.candidate import Candidate, Identity, NoteFacts, Presentation, Scores
from shared.text.block_ids import best_block
from shared.text.sanitiser import SearchQuery, Term
from worker.corpora.base import (
    EMBED_CHARS,
    MAX_LABEL_CHARS,
    TEXT_CHARS,
    Corpus,
    Judgments,
    Row,
    Scoring,
    VectorCorpus,
    embedded_sql,
    weights_sql,
)
from worker.corpora.filters import Filters
from worker.db.port import Value

# A title or file-name hit says "this note is about that"; tags, folder and other
# frontmatter properties say it less precisely; the body carries the evidence. On the dev
# set flat weights and 3×-steeper ones moved nDCG@10 by < 0.002, so these follow the
# reasoning rather than a fit.
NOTE_COLUMNS: Mapping[str, float] = {
    "title": 8.0, "name": 6.0, "aliases": 6.0, "tags": 3.0, "folder": 2.0,
    "properties": 2.0, "heading": 4.0, "body": 1.0,
}

# A note section's row, as every query that yields one selects it (here and in
# worker/store/relations_sql.py), over note_sections s, vault_notes n and vaults v.
# `related`: the note declares an effective relation or is the target of one (two index
# lookups, migrations/0006), so automatic recall reads relations only for notes that have
# some and a vault without relations pays no extra round trip.
NOTE_ROW_SELECT = f"""SELECT n.path, n.vid, n.vid || ':' || n.path AS note_key, v.name AS vault,
       n.title, n.name, n.aliases, n.tags, n.properties, n.note_date, n.note_type, n.status,
       n.role, n.name_keys, s.ord, s.heading, s.heading_path, s.unit_id,
       substr(s.body, 1, {TEXT_CHARS}) AS text,
       (EXISTS (SELECT 1 FROM note_relations AS r WHERE r.note_rid = n.rid AND r.linked = 1)
        OR EXISTS (SELECT 1 FROM note_relations AS r
                   WHERE r.vid = n.vid AND r.target_path = n.path AND r.linked = 1)) AS related"""


# Notes dated within a window of days (migrations/0007): ?{0} and ?{1} the first and last
# day number, ?{2} and ?{3} the UTC start and end (exclusive). One indexed range per kind.
NOTES_IN_WINDOW_SQL = """SELECT note_rid FROM note_dates WHERE day BETWEEN ?{0} AND ?{1}
            UNION SELECT note_rid FROM note_dates WHERE at >= ?{2} AND at < ?{3}"""


def _ranked(columns: Mapping[str, float]) -> str:
    return f"""
    SELECT rowid AS rid, bm25(note_sections_fts, {weights_sql(columns)}) AS bm25
    FROM note_sections_fts WHERE note_sections_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s
            JOIN vault_notes AS n ON n.rid = s.note_rid
            JOIN vaults AS v ON v.vid = n.vid WHERE v.name = ?3))
      AND (?4 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s WHERE s.note_rid IN (
            {NOTES_IN_WINDOW_SQL.format(4, 5, 6, 7)})))
    ORDER BY bm25 LIMIT ?2"""


def search_sql(columns: Mapping[str, float]) -> str:
    """Note sections (migrations/0005). ?1 the MATCH expression, ?2 how many rows, ?3 a
    vault name or NULL for every vault, ?4–?7 a window of days (NOTES_IN_WINDOW_SQL) or
    NULL. The window, like the vault, is applied before the LIMIT. The CTE ranks on the FTS
    index alone and keeps ?2
    rows; only those are joined to the content tables. All vaults share one index, so one
    bm25() scale ranks them together; the vault filter is applied before the LIMIT, so a
    vault's hits are never crowded out by another's. No snippet() here: it re-runs the
    MATCH per row and tokenizes the whole column, which cost more than the ranking itself
    (bench.latency); shared.text.snippets cuts snippets for the final hits."""
    return _over_ranked(columns, f"{NOTE_ROW_SELECT}, ranked.bm25")


def _over_ranked(columns: Mapping[str, float], select: str) -> str:
    """`select` over the ranked sections (search_sql's CTE), joined to their notes."""
    return f"""
WITH ranked AS ({_ranked(columns)}
)
{select}
FROM ranked
JOIN note_sections AS s ON s.rid = ranked.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY ranked.bm25
"""


# Whether the owner ever judged the note (NOTE_BOUND_SELECT's `judged`).
NOTE_JUDGED = "EXISTS (SELECT 1 FROM recall_feedback AS f WHERE f.note_rid = n.rid) AS judged"


# What bounds a section's score before it is built (worker/recall/lexical.py): its group,
# its unit (the semantic modes' bound, worker/recall/fused_depth.py), its date, what
# `_signals` reads (role, status, name keys, and the names they are made of when a note
# has none stored), `related`, and `judged`: the owner has judged the note
# (one lookup in a partial index, migrations/0007), so a note never judged has no
# feedback to bound.
NOTE_BOUND_SELECT = """SELECT ranked.rid, ranked.bm25, n.vid || ':' || n.path AS note_key,
       s.unit_id, n.note_date, n.note_type, n.status, n.role, n.name_keys, n.title, n.name,
       n.aliases,
       (EXISTS (SELECT 1 FROM note_relations AS r WHERE r.note_rid = n.rid AND r.linked = 1)
        OR EXISTS (SELECT 1 FROM note_relations AS r
                   WHERE r.vid = n.vid AND r.target_path = n.path AND r.linked = 1)) AS related,
       """ + NOTE_JUDGED


def whole_ranked_sql(columns: Mapping[str, float]) -> str:
    """ranked_sql's rows, each whole (NOTE_ROW_SELECT) with its rowid, bm25(), `judged`
    and `embedded` (?8, after `_params`' seven, the model): a semantic mode's first pass
    (Corpus.whole_ranked_sql)."""
    return _over_ranked(columns, f"""{NOTE_ROW_SELECT}, ranked.rid, ranked.bm25,
       {NOTE_JUDGED}, {embedded_sql("s.unit_id", 8)}""")


def ranked_sql(columns: Mapping[str, float]) -> str:
    """The first pass of a gated search (worker/recall/lexical.py): search_sql's ranking,
    with its parameters and the same rows, each with what bounds its score
    (NOTE_BOUND_SELECT) and not its text."""
    return _over_ranked(columns, NOTE_BOUND_SELECT)


# The second pass: the rows of the sections the first pass keeps, in its order (?1 a JSON
# array of their rowids). The bm25() values stay with the caller.
ROWS_SQL = f"""
WITH kept AS (SELECT value AS rid, key AS pos FROM json_each(?1))
{NOTE_ROW_SELECT}, kept.rid
FROM kept
JOIN note_sections AS s ON s.rid = kept.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY kept.pos
"""

# The timeline: notes dated within a window, newest first, a note's start standing for
# it. ?1–?4 the window (day numbers, then UTC ms), ?5 a vault name or NULL, ?6 rows.
TIMELINE_SQL = f"""
WITH dated AS (
    SELECT note_rid, 1 AS by_day FROM note_dates WHERE day BETWEEN ?1 AND ?2
    UNION ALL SELECT note_rid, 0 FROM note_dates WHERE at >= ?3 AND at < ?4
), notes AS (SELECT note_rid, max(by_day) AS by_day FROM dated GROUP BY note_rid)
{NOTE_ROW_SELECT}, notes.by_day
FROM notes
JOIN vault_notes AS n ON n.rid = notes.note_rid
JOIN note_sections AS s ON s.note_rid = n.rid AND s.ord = 0
JOIN vaults AS v ON v.vid = n.vid
WHERE ?5 IS NULL OR v.name = ?5
ORDER BY notes.by_day DESC, n.note_date DESC, n.path
LIMIT ?6
"""

# Every judgment of the given notes (?1 [[vid, path], ...]), keyed as `_documents` names
# them.
JUDGMENTS_SQL = """
SELECT 'note:' || n.vid || ':' || n.path AS doc, f.judgment, f.created_at, f.query_hash
FROM json_each(?1) AS j
JOIN vault_notes AS n ON n.vid = json_extract(j.value, '$[0]')
                     AND n.path = json_extract(j.value, '$[1]')
JOIN recall_feedback AS f ON f.note_rid = n.rid
"""

# A section is embedded with its note's title and heading path: "Kitchen renovation ›
# Budget. <text>" places the text the way a reader of the note sees it.
VECTOR_UNITS_SQL = f"""
SELECT DISTINCT s.unit_id, v.name AS vault,
       n.title || CASE WHEN s.heading_path = '' THEN '' ELSE ' › ' || s.heading_path END
           || '. ' || substr(s.body, 1, {EMBED_CHARS}) AS text
FROM note_sections AS s
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
LEFT JOIN vector_units AS u ON u.unit_id = s.unit_id AND u.model = ?1
WHERE u.vector_id IS NULL
ORDER BY s.unit_id LIMIT ?2
"""
VECTOR_ORPHANS_SQL = """
SELECT u.vector_id FROM vector_units AS u
WHERE u.corpus = 'notes'
  AND NOT EXISTS (SELECT 1 FROM note_sections AS s WHERE s.unit_id = u.unit_id)
LIMIT ?1
"""
VECTOR_RESOLVE_SQL = f"""
{NOTE_ROW_SELECT}, u.vector_id, NULL AS bm25
FROM vector_units AS u
JOIN note_sections AS s ON s.unit_id = u.unit_id
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
WHERE u.vector_id IN (SELECT value FROM json_each(?1)) AND u.model = ?2
  AND (?3 IS NULL OR v.name = ?3)
"""


def _fields(row: Row) -> tuple[tuple[str, str], ...]:
    return (("title", str(row["title"])), ("file name", str(row["name"])),
            ("aliases", str(row["aliases"])), ("tags", str(row["tags"])),
            ("properties", str(row["properties"])),
            ("heading", str(row["heading_path"] or "")))


def _texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["text"] or ""), *(v for _, v in _fields(row)))


def _facts(row: Row, identity: bool = False) -> Signals:
    """Its role and status, as its candidate holds them."""
    return _facts_of(row["note_type"], row["role"], row["status"], identity)


# Cached: a few combinations recur in every recall's rows, and one Signals per
# combination makes the depth bound's lookup of its span an identity match
# (worker/recall/lexical.py; bench.latency --profile at 100k messages + 10k notes).
@lru_cache(maxsize=1_024)
def _facts_of(note_type: object, role: object, status: object, identity: bool) -> Signals:
    return Signals(identity=identity, role=role_of(note_type, role),
                   status=normal_status(status), conversation=kinds.NOTE.conversation)


def _names(row: Row) -> tuple[tuple[str, str], ...]:
    """The fields a note is named by (shared/knowledge/standing.NAME_FIELDS)."""
    return (("title", str(row["title"])), ("file name", str(row["name"])),
            ("aliases", str(row["aliases"])))


def _signals(row: Row, query: SearchQuery) -> Signals:
    """Of a ranked row (NOTE_BOUND_SELECT) as of a whole one."""
    held = names.holds(row.get("name_keys"), query_key(query))
    return _facts(row, named(query, None, _names(row)) if held is None else held)


def _candidate(row: Row, s: Scoring) -> Candidate:
    """A note section: one hit per note (its group), labelled "Note › Heading" and linked
    to that heading, or to the block its best-matching paragraph carries."""
    path, vault, vid = str(row["path"]), str(row["vault"]), int(row["vid"])
    heading, title = str(row["heading"] or ""), str(row["title"])
    if heading == title:
        heading = ""  # an H1 that restates the title: the note's start, not a section
    label = f"{title}{PATH_SEPARATOR}{heading}" if heading else title
    text = str(row["text"] or "")
    signals = _facts(row)
    return Candidate(
        identity=Identity(
            kind="note", id=path, group=s.group, unit=str(row["unit_id"]),
            label=shorten(label, MAX_LABEL_CHARS),
            href=note_href(vault, path, heading, best_block(text, s.terms)),
            timestamp_ms=s.timestamp_ms, covers=(path,), vault=vault, vid=vid,
            heading=heading, knowledge_role=signals.role),
        scores=Scores(relevance=s.relevance, boost=s.boost, cosine=s.cosine),
        presentation=Presentation(text=text, fields=_fields(row)),
        note=NoteFacts(status=signals.status, related=bool(row["related"]),
                       name_keys=names.read(row.get("name_keys"))))


def _params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, rows, filters.vault, *filters.window_params(days=True))


def _timeline_params(filters: Filters, rows: int) -> tuple[Value, ...]:
    return (*filters.window_params(days=True), filters.vault, rows)


def _documents(cand: Candidate) -> tuple[str, ...]:
    return (f"note:{cand.identity.vid}:{cand.identity.id}",)


def _judged(cand: Candidate) -> tuple[Any, ...]:
    return ((cand.identity.vid, cand.identity.id),) if cand.identity.vid is not None else ()


def _judgments_params(keys: Sequence[Any]) -> tuple[Value, ...]:
    return (json.dumps([list(k) for k in keys]),)


VECTORS = VectorCorpus(
    name="notes", kind="note", by_vault=True, units_sql=VECTOR_UNITS_SQL,
    orphans_sql=VECTOR_ORPHANS_SQL, resolve_sql=VECTOR_RESOLVE_SQL,
    resolve_params=lambda ids, model, filters: (json.dumps(ids), model, filters.vault))

NOTES = Corpus(
    name="notes", kind="note", fts_table="note_sections_fts",
    df_table="note_sections_df",
    # A note is (vault, path): two vaults may both hold Home/Plants.md.
    columns=NOTE_COLUMNS, group_column="note_key", timestamp_column="note_date",
    # A note often has several matching sections: fetch more, keep the best.
    fetch_per_hit=3, search_sql=search_sql(NOTE_COLUMNS), params=_params,
    ranked_sql=ranked_sql(NOTE_COLUMNS), rows_sql=ROWS_SQL,
    whole_ranked_sql=whole_ranked_sql(NOTE_COLUMNS),
    timeline_sql=TIMELINE_SQL, timeline_params=_timeline_params,
    to_candidate=_candidate, match_texts=_texts,
    judgments=Judgments(sql=JUDGMENTS_SQL, params=_judgments_params, documents=_documents,
                        judged=_judged),
    hit=kinds.NOTE, vector=VECTORS, signals=_signals)

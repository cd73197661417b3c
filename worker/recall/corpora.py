"""Searchable corpora, each described once as a record: its FTS table and vocabulary, its
column weights, how its rows group and date, and how a row becomes a candidate.

Adding a corpus means one new record here plus its name in CORPORA; nothing else in the
recall pipeline branches on the kind of unit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from shared.candidate import Candidate, Kind
from shared.knowledge import MESSAGE_ROLE, normal_status, role_of
from shared.matching import matched_terms
from shared.query import Term
from shared.schemas import PATH_SEPARATOR
from shared.sources import message_href, note_href, shorten
from worker.db.port import Value
from worker.recall.filters import Filters

CorpusName = Literal["notes", "messages"]
Row = Mapping[str, Any]
MAX_LABEL_CHARS = 120
# Candidates are cut from this much of a unit's text (a match deeper in a long note still
# ranks it; its snippet then shows the note's start).
TEXT_CHARS = 8_000


@dataclass(frozen=True)
class Corpus:
    name: CorpusName  # its key in corpus_stats
    kind: Kind
    fts_table: str
    vocab_table: str  # fts5vocab 'row' table over fts_table: term → document count
    # FTS column → bm25() weight, in the FTS table's column order (bm25() takes the weights
    # positionally; tests/worker/recall/test_corpora.py pins the order to the migration).
    columns: Mapping[str, float]
    group_column: str  # hits are de-duplicated per value of this column
    timestamp_column: str  # what recency is measured from
    # Rows fetched per requested hit: room for one-per-group de-duplication.
    fetch_per_hit: int
    search_sql: str
    # The search statement's parameters: (MATCH expression, rows wanted, filters).
    params: Callable[[str, int, Filters], tuple[Value, ...]]
    to_candidate: Callable[[Row, Scoring], Candidate]
    # What a row's candidate matches the query's terms on: its text, then its fields'
    # values (the candidate's `text` and `fields`), read before the candidate is made.
    match_texts: Callable[[Row, Sequence[Term]], tuple[str, ...]]


# A title or file-name hit says "this note is about that"; tags, folder and other
# frontmatter properties say it less precisely; the body carries the evidence. On the dev
# set flat weights and 3×-steeper ones moved nDCG@10 by < 0.002, so these follow the
# reasoning rather than a fit.
NOTE_COLUMNS: Mapping[str, float] = {
    "title": 8.0, "name": 6.0, "aliases": 6.0, "tags": 3.0, "folder": 2.0,
    "properties": 2.0, "heading": 4.0, "body": 1.0,
}
# The owner's question and Mallory's answer weigh the same: either can hold what is asked.
MESSAGE_COLUMNS: Mapping[str, float] = {"question": 1.0, "answer": 1.0}


def weights_sql(columns: Mapping[str, float]) -> str:
    return ", ".join(f"{w:.3f}" for w in columns.values())


# A note section's row, as every query that yields one selects it (here and in
# worker/semantic/units.py), over note_sections s, vault_notes n and vaults v.
# `related`: the note declares an effective relation or is the target of one (two index
# lookups, migrations/0006), so automatic recall reads relations only for notes that have
# some and a vault without relations pays no extra round trip.
NOTE_ROW_SELECT = f"""SELECT n.path, n.vid, n.vid || ':' || n.path AS note_key, v.name AS vault,
       n.title, n.name, n.aliases, n.tags, n.properties, n.note_date, n.note_type, n.status,
       n.role, s.ord, s.heading, s.heading_path, s.unit_id,
       substr(s.body, 1, {TEXT_CHARS}) AS text,
       (EXISTS (SELECT 1 FROM note_relations AS r WHERE r.note_rid = n.rid AND r.linked = 1)
        OR EXISTS (SELECT 1 FROM note_relations AS r
                   WHERE r.vid = n.vid AND r.target_path = n.path AND r.linked = 1)) AS related"""


# Notes dated within a window of days (migrations/0007): ?{0} and ?{1} the first and last
# day number, ?{2} and ?{3} the UTC start and end (exclusive). One indexed range per kind.
NOTES_IN_WINDOW_SQL = """SELECT note_rid FROM note_dates WHERE day BETWEEN ?{0} AND ?{1}
            UNION SELECT note_rid FROM note_dates WHERE at >= ?{2} AND at < ?{3}"""


def notes_search_sql(columns: Mapping[str, float]) -> str:
    """Note sections (migrations/0005). ?1 the MATCH expression, ?2 how many rows, ?3 a
    vault name or NULL for every vault, ?4–?7 a window of days (NOTES_IN_WINDOW_SQL) or
    NULL. The window, like the vault, is applied before the LIMIT. The CTE ranks on the FTS
    index alone and keeps ?2
    rows; only those are joined to the content tables. All vaults share one index, so one
    bm25() scale ranks them together; the vault filter is applied before the LIMIT, so a
    vault's hits are never crowded out by another's. No snippet() here: it re-runs the
    MATCH per row and tokenizes the whole column, which cost more than the ranking itself
    (bench.latency); shared.snippets cuts snippets for the final hits."""
    return f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(note_sections_fts, {weights_sql(columns)}) AS bm25
    FROM note_sections_fts WHERE note_sections_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s
            JOIN vault_notes AS n ON n.rid = s.note_rid
            JOIN vaults AS v ON v.vid = n.vid WHERE v.name = ?3))
      AND (?4 IS NULL OR rowid IN (
            SELECT s.rid FROM note_sections AS s WHERE s.note_rid IN (
            {NOTES_IN_WINDOW_SQL.format(4, 5, 6, 7)})))
    ORDER BY bm25 LIMIT ?2
)
{NOTE_ROW_SELECT}, ranked.bm25
FROM ranked
JOIN note_sections AS s ON s.rid = ranked.rid
JOIN vault_notes AS n ON n.rid = s.note_rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY ranked.bm25
"""


def messages_search_sql(columns: Mapping[str, float]) -> str:
    """Conversation units (migrations/0003). ?1 MATCH, ?2 rows; ?6 and ?7 a window (UTC
    start, exclusive end; NULL: any time), applied before the LIMIT; excluded: units
    holding a message whose id is in ?3 (a JSON array) and, in conversation ?4, units
    among its last ?5 turns (already in the model's context). A withdrawn reply (it quoted
    a note since deleted or changed) has no unit: worker/store/units.py takes it out of
    the index."""
    return f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(conversation_units_fts, {weights_sql(columns)}) AS bm25
    FROM conversation_units_fts WHERE conversation_units_fts MATCH ?1
      AND (?6 IS NULL OR rowid IN (
            SELECT rid FROM conversation_units WHERE created_at >= ?6 AND created_at < ?7))
    ORDER BY bm25 LIMIT ?2
)
SELECT u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       c.title AS conversation_title, ranked.bm25,
       substr(u.question, 1, {TEXT_CHARS}) AS question,
       substr(u.answer, 1, {TEXT_CHARS}) AS answer
FROM ranked
JOIN conversation_units AS u ON u.rid = ranked.rid
JOIN conversations AS c ON c.id = u.conversation_id
WHERE coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each(?3))
  AND NOT (u.conversation_id = ?4 AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
ORDER BY ranked.bm25
"""


@dataclass(frozen=True)
class Scoring:
    """What the retriever measured for a row."""

    relevance: float
    boost: float
    timestamp_ms: int
    group: str  # the row's value of its corpus's group column
    terms: Sequence[Term]  # the query's terms, as searched


def _note_fields(row: Row) -> tuple[tuple[str, str], ...]:
    return (("title", str(row["title"])), ("file name", str(row["name"])),
            ("aliases", str(row["aliases"])), ("tags", str(row["tags"])),
            ("properties", str(row["properties"])),
            ("heading", str(row["heading_path"] or "")))


def _note_texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["text"] or ""), *(v for _, v in _note_fields(row)))


def _note(row: Row, s: Scoring) -> Candidate:
    """A note section: one hit per note (its group), labelled "Note › Heading" and linked
    to that heading."""
    path, vault, vid = str(row["path"]), str(row["vault"]), int(row["vid"])
    heading, title = str(row["heading"] or ""), str(row["title"])
    if heading == title:
        heading = ""  # an H1 that restates the title: the note's start, not a section
    label = f"{title}{PATH_SEPARATOR}{heading}" if heading else title
    return Candidate(
        kind="note", id=path, group=s.group, relevance=s.relevance, boost=s.boost,
        timestamp_ms=s.timestamp_ms, label=shorten(label, MAX_LABEL_CHARS),
        href=note_href(vault, path, heading), text=str(row["text"] or ""), vault=vault,
        vid=vid, covers=(path,), unit=str(row["unit_id"]), heading=heading,
        fields=_note_fields(row), knowledge_role=role_of(row["note_type"], row["role"]),
        status=normal_status(row["status"]), related=bool(row["related"]))


def _on_answer(row: Row, terms: Sequence[Term]) -> bool:
    """A unit is Mallory's reply whenever the reply matches any query term ("how did you
    say I should clean X" wants the method, not the old question)."""
    return bool(row["answer_id"]) and (
        not row["question_id"] or bool(matched_terms(terms, [str(row["answer"] or "")])))


def _unit_texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["answer" if _on_answer(row, terms) else "question"] or ""),)


def _unit(row: Row, s: Scoring) -> Candidate:
    """A conversation unit as the message the owner wants back: Mallory's reply when it
    matches (`_on_answer`), else the owner's question with the reply attached."""
    question, answer = str(row["question"] or ""), str(row["answer"] or "")
    on_answer = _on_answer(row, s.terms)
    focus = str(row["answer_id"] if on_answer else row["question_id"])
    other = row["question_id"] if on_answer else row["answer_id"]
    return Candidate(
        kind="message", id=focus, group=s.group, relevance=s.relevance,
        boost=s.boost, timestamp_ms=s.timestamp_ms,
        label=shorten(str(row["conversation_title"] or "Conversation"), MAX_LABEL_CHARS),
        href=message_href(focus), text=answer if on_answer else question,
        conversation_id=str(row["conversation_id"]), role="assistant" if on_answer else "user",
        reply=None if on_answer else (answer or None),
        asked=(question or None) if on_answer else None,
        covers=(focus, str(other)) if other else (focus,), unit=str(row["id"]),
        knowledge_role=MESSAGE_ROLE)


def _note_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, rows, filters.vault, *filters.window_params(days=True))


def _message_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    excluded = filters.exclude_message_ids
    return (match, rows + len(excluded) + filters.exclude_recent_turns,
            json.dumps(list(excluded)), filters.conversation_id or "",
            filters.exclude_recent_turns, *filters.window_params(days=False))


NOTES = Corpus(
    name="notes", kind="note", fts_table="note_sections_fts",
    vocab_table="note_sections_vocab",
    # A note is (vault, path): two vaults may both hold Home/Plants.md.
    columns=NOTE_COLUMNS, group_column="note_key", timestamp_column="note_date",
    # A note often has several matching sections: fetch more, keep the best.
    fetch_per_hit=3, search_sql=notes_search_sql(NOTE_COLUMNS), params=_note_params,
    to_candidate=_note, match_texts=_note_texts)

MESSAGES = Corpus(
    name="messages", kind="message", fts_table="conversation_units_fts",
    vocab_table="conversation_units_vocab", columns=MESSAGE_COLUMNS,
    group_column="conversation_id", timestamp_column="created_at",
    # A conversation often has several matching units: fetch more, keep the best.
    fetch_per_hit=3, search_sql=messages_search_sql(MESSAGE_COLUMNS), params=_message_params,
    to_candidate=_unit, match_texts=_unit_texts)

CORPORA: tuple[Corpus, ...] = (NOTES, MESSAGES)
BY_NAME: Mapping[str, Corpus] = {c.name: c for c in CORPORA}

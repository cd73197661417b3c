"""Searchable corpora, each described once as a record: its FTS table and vocabulary, its
column weights, how its rows group and date, and how a row becomes a candidate.

Adding a corpus means one new record here plus its name in CORPORA; nothing else in the
recall pipeline branches on the kind of unit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from shared.candidate import Candidate, Kind
from shared.sources import message_href, note_href, shorten, strip_citations
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
    to_candidate: Callable[[Row, float, float, int], Candidate]


# A title or file-name hit says "this note is about that"; tags, folder and other
# frontmatter properties say it less precisely; the body carries the evidence. On the dev
# set flat weights and 3×-steeper ones moved nDCG@10 by < 0.002, so these follow the
# reasoning rather than a fit.
NOTE_COLUMNS: Mapping[str, float] = {
    "title": 8.0, "name": 6.0, "aliases": 6.0, "tags": 3.0, "folder": 2.0,
    "properties": 2.0, "body": 1.0,
}
MESSAGE_COLUMNS: Mapping[str, float] = {"content": 1.0}


def _weights(columns: Mapping[str, float]) -> str:
    return ", ".join(f"{w:.3f}" for w in columns.values())


def notes_search_sql(columns: Mapping[str, float]) -> str:
    """?1 the MATCH expression, ?2 how many rows, ?3 a vault name or NULL for every vault.
    The CTE ranks on the FTS index alone and keeps ?2 rows; only those are joined to the
    content table. All vaults share one index, so one bm25() scale ranks them together;
    the vault filter is applied before the LIMIT, so a vault's hits are never crowded out
    by another's. No snippet() here: it re-runs the MATCH per row and tokenizes the whole
    column, which cost more than the ranking itself (bench.latency); shared.snippets cuts
    snippets for the final hits."""
    return f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(vault_notes_fts, {_weights(columns)}) AS bm25
    FROM vault_notes_fts WHERE vault_notes_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT n.rid FROM vault_notes AS n JOIN vaults AS v ON v.vid = n.vid
            WHERE v.name = ?3))
    ORDER BY bm25 LIMIT ?2
)
SELECT n.path, n.vid, v.name AS vault, n.title, n.name, n.aliases, n.tags, n.properties,
       n.note_date, ranked.bm25, substr(n.body, 1, {TEXT_CHARS}) AS text
FROM ranked
JOIN vault_notes AS n ON n.rid = ranked.rid
JOIN vaults AS v ON v.vid = n.vid
ORDER BY ranked.bm25
"""


def messages_search_sql(columns: Mapping[str, float]) -> str:
    """?1 MATCH, ?2 rows; excluded: withdrawn answers (they quoted a note since deleted or
    changed; worker/store/citations.py), before the LIMIT, the ids in ?3 (a JSON array)
    and, in conversation ?4, the last ?5 turns (already in the model's context)."""
    return f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(messages_fts, {_weights(columns)}) AS bm25
    FROM messages_fts WHERE messages_fts MATCH ?1
      AND rowid NOT IN (SELECT rid FROM messages WHERE withdrawn_at IS NOT NULL)
    ORDER BY bm25 LIMIT ?2
)
SELECT m.id, m.conversation_id, m.role, m.created_at, c.title AS conversation_title,
       ranked.bm25, substr(m.content, 1, {TEXT_CHARS}) AS text
FROM ranked
JOIN messages AS m ON m.rid = ranked.rid
JOIN conversations AS c ON c.id = m.conversation_id
WHERE m.id NOT IN (SELECT value FROM json_each(?3))
  AND NOT (m.conversation_id = ?4 AND m.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
ORDER BY ranked.bm25
"""


def _note(row: Row, relevance: float, boost: float, timestamp_ms: int) -> Candidate:
    path, vault, vid = str(row["path"]), str(row["vault"]), int(row["vid"])
    return Candidate(
        kind="note", id=path, group=f"{vid}:{path}", relevance=relevance, boost=boost,
        timestamp_ms=timestamp_ms, label=shorten(str(row["title"]), MAX_LABEL_CHARS),
        href=note_href(vault, path), text=str(row["text"] or ""), vault=vault, vid=vid,
        fields=(("title", str(row["title"])), ("file name", str(row["name"])),
                ("aliases", str(row["aliases"])), ("tags", str(row["tags"])),
                ("properties", str(row["properties"]))))


def _message(row: Row, relevance: float, boost: float, timestamp_ms: int) -> Candidate:
    role = "user" if row["role"] == "user" else "assistant"
    text = str(row["text"] or "")
    return Candidate(
        kind="message", id=str(row["id"]), group=str(row["conversation_id"]),
        relevance=relevance, boost=boost, timestamp_ms=timestamp_ms,
        label=shorten(str(row["conversation_title"] or "Conversation"), MAX_LABEL_CHARS),
        href=message_href(str(row["id"])),
        # A past answer's [n] markers numbered another turn's hits (shared.sources).
        text=strip_citations(text) if role == "assistant" else text,
        conversation_id=str(row["conversation_id"]), role=role)


def _note_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, rows, filters.vault)


def _message_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    excluded = filters.exclude_message_ids
    return (match, rows + len(excluded) + filters.exclude_recent_turns,
            json.dumps(list(excluded)), filters.conversation_id or "",
            filters.exclude_recent_turns)


NOTES = Corpus(
    name="notes", kind="note", fts_table="vault_notes_fts", vocab_table="vault_notes_vocab",
    columns=NOTE_COLUMNS, group_column="path", timestamp_column="note_date",
    fetch_per_hit=1, search_sql=notes_search_sql(NOTE_COLUMNS), params=_note_params,
    to_candidate=_note)

MESSAGES = Corpus(
    name="messages", kind="message", fts_table="messages_fts",
    vocab_table="messages_vocab", columns=MESSAGE_COLUMNS, group_column="conversation_id",
    timestamp_column="created_at",
    # A conversation often has several matching messages: fetch more, keep the best.
    fetch_per_hit=3, search_sql=messages_search_sql(MESSAGE_COLUMNS), params=_message_params,
    to_candidate=_message)

CORPORA: tuple[Corpus, ...] = (NOTES, MESSAGES)
BY_NAME: Mapping[str, Corpus] = {c.name: c for c in CORPORA}

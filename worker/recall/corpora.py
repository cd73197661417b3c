"""Searchable corpora, each described once as a record: its FTS table and vocabulary, its
column weights, how its rows group and date, and how a row becomes a candidate.

Adding a corpus means one new record here plus its name in CORPORA; nothing else in the
recall pipeline branches on the kind of unit. Its SQL lives in worker/store/search_sql.py,
its vector side (if any) in worker/recall/vector_corpora.py, named by the record's `vector`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from shared.api.sync_payload import PATH_SEPARATOR
from shared.block.citations import message_href, note_href, shorten
from shared.knowledge.roles import (
    MESSAGE_ROLE,
    SAVED_MEMORY_ROLE,
    SAVED_MEMORY_STATUS,
    normal_status,
    role_of,
)
from shared.rank.candidate import (
    Candidate,
    Identity,
    Kind,
    MessageFacts,
    NoteFacts,
    Presentation,
    Scores,
)
from shared.text.block_ids import best_block
from shared.text.sanitiser import Term
from shared.text.turns import Speaker, points_at_reply
from worker.db.port import Value
from worker.recall import vector_corpora as vectors
from worker.recall.filters import Filters
from worker.recall.vector_corpora import VectorCorpus
from worker.store.chats import SAVED_MEMORIES_ID
from worker.store.search_sql import (
    MESSAGES_ROWS_SQL,
    NOTES_ROWS_SQL,
    messages_ranked_sql,
    messages_search_sql,
    notes_ranked_sql,
    notes_search_sql,
)

CorpusName = Literal["notes", "messages"]
Row = Mapping[str, Any]
MAX_LABEL_CHARS = 120


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
    # A gated search in two passes (worker/recall/lexical.py): `ranked_sql` (same
    # parameters) ranks without reading a row; `rows_sql` reads the rows it keeps, bound
    # by `rows_params` from the ranked rowids in order, each with whether it is kept.
    ranked_sql: str
    rows_sql: str
    rows_params: Callable[[Sequence[tuple[int, bool]], Filters], tuple[Value, ...] | None]
    to_candidate: Callable[[Row, Scoring], Candidate]
    # What a row's candidate matches the query's terms on: its text, then its fields'
    # values (the candidate's `text` and `fields`; a conversation unit's two turns), read
    # before the candidate is made.
    match_texts: Callable[[Row, Sequence[Term]], tuple[str, ...]]
    # The keys of the documents a candidate holds, as the feedback store names them
    # (worker/store/feedback.py JUDGMENTS_SQL `doc`), and what that store binds to find them.
    documents: Callable[[Candidate], tuple[str, ...]]
    judged: Callable[[Candidate], tuple[Any, ...]]
    # How its units are embedded and resolved for semantic recall; None: lexical only.
    vector: VectorCorpus | None = None


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


@dataclass(frozen=True)
class Scoring:
    """What the retriever measured for a row."""

    relevance: float
    boost: float
    timestamp_ms: int
    group: str  # the row's value of its corpus's group column
    terms: Sequence[Term]  # the query's terms, as searched
    # Each query term's IDF in this corpus (FTS form → IDF); a term absent weighs 1.
    idf: Mapping[str, float] = field(default_factory=dict)
    asks: Speaker | None = None  # the speaker the query asks about (shared/text/turns.py)


def _note_fields(row: Row) -> tuple[tuple[str, str], ...]:
    return (("title", str(row["title"])), ("file name", str(row["name"])),
            ("aliases", str(row["aliases"])), ("tags", str(row["tags"])),
            ("properties", str(row["properties"])),
            ("heading", str(row["heading_path"] or "")))


def _note_texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["text"] or ""), *(v for _, v in _note_fields(row)))


def _note(row: Row, s: Scoring) -> Candidate:
    """A note section: one hit per note (its group), labelled "Note › Heading" and linked
    to that heading, or to the block its best-matching paragraph carries."""
    path, vault, vid = str(row["path"]), str(row["vault"]), int(row["vid"])
    heading, title = str(row["heading"] or ""), str(row["title"])
    if heading == title:
        heading = ""  # an H1 that restates the title: the note's start, not a section
    label = f"{title}{PATH_SEPARATOR}{heading}" if heading else title
    text = str(row["text"] or "")
    return Candidate(
        identity=Identity(
            kind="note", id=path, group=s.group, unit=str(row["unit_id"]),
            label=shorten(label, MAX_LABEL_CHARS),
            href=note_href(vault, path, heading, best_block(text, s.terms)),
            timestamp_ms=s.timestamp_ms, covers=(path,), vault=vault, vid=vid,
            heading=heading, knowledge_role=role_of(row["note_type"], row["role"])),
        scores=Scores(relevance=s.relevance, boost=s.boost),
        presentation=Presentation(text=text, fields=_note_fields(row)),
        note=NoteFacts(status=normal_status(row["status"]), related=bool(row["related"])))


def _on_answer(row: Row, s: Scoring) -> bool:
    """Whether a unit points at Mallory's reply (shared/text/turns.py), or at the owner's
    message."""
    if not row["answer_id"]:
        return False
    if not row["question_id"]:
        return True
    return points_at_reply(str(row["question"] or ""), str(row["answer"] or ""), s.terms,
                           s.idf, s.asks)


def _unit_texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["question"] or ""), str(row["answer"] or ""))


def _unit(row: Row, s: Scoring) -> Candidate:
    """A conversation unit as the message the owner wants back: the turn that best
    matches the query (`_on_answer`), with its partner attached."""
    question, answer = str(row["question"] or ""), str(row["answer"] or "")
    on_answer = _on_answer(row, s)
    focus = str(row["answer_id"] if on_answer else row["question_id"])
    other = row["question_id"] if on_answer else row["answer_id"]
    # A saved memory ranks as a stable canonical note, and each is its own group (one hit
    # per conversation would let only one of them through).
    saved = str(row["conversation_id"]) == SAVED_MEMORIES_ID
    return Candidate(
        identity=Identity(
            kind="message", id=focus, group=f"saved:{focus}" if saved else s.group,
            unit=str(row["id"]),
            label=shorten(str(row["conversation_title"] or "Conversation"), MAX_LABEL_CHARS),
            href=message_href(focus), timestamp_ms=s.timestamp_ms,
            covers=(focus, str(other)) if other else (focus,),
            conversation_id=str(row["conversation_id"]),
            role="assistant" if on_answer else "user",
            knowledge_role=SAVED_MEMORY_ROLE if saved else MESSAGE_ROLE),
        scores=Scores(relevance=s.relevance, boost=s.boost),
        presentation=Presentation(text=answer if on_answer else question),
        message=MessageFacts(reply=None if on_answer else (answer or None),
                             asked=(question or None) if on_answer else None),
        # The standing reads a status from the note facts; a saved memory's is stable.
        note=NoteFacts(status=SAVED_MEMORY_STATUS if saved else None))


def _note_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, rows, filters.vault, *filters.window_params(days=True))


def _message_params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    excluded = filters.exclude_message_ids
    return (match, rows + len(excluded) + filters.exclude_recent_turns,
            json.dumps(list(excluded)), filters.conversation_id or "",
            filters.exclude_recent_turns, *filters.window_params(days=False))


def _note_rows_params(ranked: Sequence[tuple[int, bool]], filters: Filters
                      ) -> tuple[Value, ...] | None:
    """Every ranked section, marked kept or not: one not kept is still read when its note
    has relations (NOTES_ROWS_SQL)."""
    return (json.dumps([[rid, int(keep)] for rid, keep in ranked]),) if ranked else None


def _message_rows_params(ranked: Sequence[tuple[int, bool]], filters: Filters
                         ) -> tuple[Value, ...] | None:
    kept = [rid for rid, keep in ranked if keep]
    if not kept:
        return None  # nothing to read: no statement
    return (json.dumps(kept), json.dumps(list(filters.exclude_message_ids)),
            filters.conversation_id or "", filters.exclude_recent_turns)


def _note_documents(cand: Candidate) -> tuple[str, ...]:
    return (f"note:{cand.identity.vid}:{cand.identity.id}",)


def _note_judged(cand: Candidate) -> tuple[Any, ...]:
    return ((cand.identity.vid, cand.identity.id),) if cand.identity.vid is not None else ()


def _message_documents(cand: Candidate) -> tuple[str, ...]:
    """A conversation unit holds its messages: the question and the reply."""
    return tuple(f"message:{m}" for m in _message_judged(cand))


def _message_judged(cand: Candidate) -> tuple[Any, ...]:
    return cand.identity.covers or (cand.identity.id,)


NOTES = Corpus(
    name="notes", kind="note", fts_table="note_sections_fts",
    vocab_table="note_sections_vocab",
    # A note is (vault, path): two vaults may both hold Home/Plants.md.
    columns=NOTE_COLUMNS, group_column="note_key", timestamp_column="note_date",
    # A note often has several matching sections: fetch more, keep the best.
    fetch_per_hit=3, search_sql=notes_search_sql(NOTE_COLUMNS), params=_note_params,
    ranked_sql=notes_ranked_sql(NOTE_COLUMNS), rows_sql=NOTES_ROWS_SQL,
    rows_params=_note_rows_params,
    to_candidate=_note, match_texts=_note_texts, documents=_note_documents,
    judged=_note_judged, vector=vectors.NOTES)

MESSAGES = Corpus(
    name="messages", kind="message", fts_table="conversation_units_fts",
    vocab_table="conversation_units_vocab", columns=MESSAGE_COLUMNS,
    group_column="conversation_id", timestamp_column="created_at",
    # A conversation often has several matching units: fetch more, keep the best.
    fetch_per_hit=3, search_sql=messages_search_sql(MESSAGE_COLUMNS), params=_message_params,
    ranked_sql=messages_ranked_sql(MESSAGE_COLUMNS), rows_sql=MESSAGES_ROWS_SQL,
    rows_params=_message_rows_params,
    to_candidate=_unit, match_texts=_unit_texts, documents=_message_documents,
    judged=_message_judged, vector=vectors.MESSAGES)

CORPORA: tuple[Corpus, ...] = (NOTES, MESSAGES)
BY_NAME: Mapping[str, Corpus] = {c.name: c for c in CORPORA}
BY_KIND: Mapping[str, Corpus] = {c.kind: c for c in CORPORA}
# The corpora semantic recall embeds, each as its record's `vector`.
VECTOR_CORPORA: tuple[VectorCorpus, ...] = tuple(c.vector for c in CORPORA if c.vector)
VECTOR_BY_NAME: Mapping[str, VectorCorpus] = {c.name: c for c in VECTOR_CORPORA}

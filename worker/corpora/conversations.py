"""The conversations corpus: past exchanges as units, an owner message and the reply after
it (migrations/0003). Its row shape, its exclusions (the messages a search must skip,
written once: every statement that yields a unit applies them), its searches, timeline
and vectors, and its feedback keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shared.block.citations import message_href, shorten
from shared.knowledge.roles import (
    MESSAGE_ROLE,
    SAVED_MEMORY_ROLE,
    SAVED_MEMORY_STATUS,
    KnowledgeRole,
    Status,
)
from shared.knowledge.standing import Signals
from shared.rank import kinds
from shared.rank.candidate import (
    Candidate,
    Identity,
    MessageFacts,
    NoteFacts,
    Presentation,
    Scores,
)
from shared.text.sanitiser import SearchQuery, Term
from shared.text.turns import points_at_reply
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

# The conversation that holds the owner's saved memories (worker/store/memories.py).
SAVED_MEMORIES_ID = "saved-memories"


@dataclass(frozen=True)
class Standing:
    """What a unit's conversation makes of it in ranking."""
    knowledge_role: KnowledgeRole
    status: Status | None  # read by standing from the note facts (None: a message has none)
    # Each unit is its own group, not one of its conversation's: one hit per conversation
    # would let only one saved memory through.
    own_group: bool


PAST_EXCHANGE = Standing(knowledge_role=MESSAGE_ROLE, status=None, own_group=False)
# A saved memory ranks as a stable canonical note.
SAVED_MEMORY = Standing(knowledge_role=SAVED_MEMORY_ROLE, status=SAVED_MEMORY_STATUS,
                        own_group=True)
_STANDINGS: Mapping[str, Standing] = {SAVED_MEMORIES_ID: SAVED_MEMORY}


def standing_of(conversation_id: str) -> Standing:
    return _STANDINGS.get(conversation_id, PAST_EXCHANGE)

# The owner's question and Mallory's answer weigh the same: either can hold what is asked.
MESSAGE_COLUMNS: Mapping[str, float] = {"question": 1.0, "answer": 1.0}

# A unit's row, over conversation_units u and conversations c: its columns, then its two
# turns' text (a statement may select what it ranks by between them).
UNIT_COLUMNS = """u.id, u.conversation_id, u.question_id, u.answer_id, u.created_at,
       u.seq, c.title AS conversation_title"""
UNIT_TEXTS = f"""substr(u.question, 1, {TEXT_CHARS}) AS question,
       substr(u.answer, 1, {TEXT_CHARS}) AS answer"""


def exclusions_sql(ids: int) -> str:
    """The units a search skips: those holding a message whose id is in ?{ids} (a JSON
    array) and, in conversation ?{ids + 1}, those among its last ?{ids + 2} turns (already
    in the model's context). Bound by `exclusion_params`. A withdrawn reply (it quoted a
    note since deleted or changed) has no unit: worker/store/units.py takes it out of the
    index."""
    i, c, t = f"?{ids}", f"?{ids + 1}", f"?{ids + 2}"
    return (f"""coalesce(u.question_id, '') NOT IN (SELECT value FROM json_each({i}))
  AND coalesce(u.answer_id, '') NOT IN (SELECT value FROM json_each({i}))
  AND NOT (u.conversation_id = {c} AND u.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = {c}) - {t})""")


def exclusion_params(filters: Filters) -> tuple[Value, ...]:
    return (json.dumps(list(filters.exclude_message_ids)), filters.conversation_id or "",
            filters.exclude_recent_turns)


def _padded(rows: int, filters: Filters) -> int:
    """Rows to fetch for `rows` to survive the exclusions."""
    return rows + len(filters.exclude_message_ids) + filters.exclude_recent_turns


def _ranked(columns: Mapping[str, float]) -> str:
    return f"""
    SELECT rowid AS rid, bm25(conversation_units_fts, {weights_sql(columns)}) AS bm25
    FROM conversation_units_fts WHERE conversation_units_fts MATCH ?1
      AND (?6 IS NULL OR rowid IN (
            SELECT rid FROM conversation_units WHERE created_at >= ?6 AND created_at < ?7))
    ORDER BY bm25 LIMIT ?2"""


def _over_ranked(columns: Mapping[str, float], select: str) -> str:
    """`select` over the ranked units, joined to their conversations, the exclusions
    applied (?3–?5)."""
    return f"""
WITH ranked AS ({_ranked(columns)}
)
{select}
FROM ranked
JOIN conversation_units AS u ON u.rid = ranked.rid
JOIN conversations AS c ON c.id = u.conversation_id
WHERE {exclusions_sql(3)}
ORDER BY ranked.bm25
"""


def search_sql(columns: Mapping[str, float]) -> str:
    """Conversation units (migrations/0003). ?1 MATCH, ?2 rows; ?6 and ?7 a window (UTC
    start, exclusive end; NULL: any time), applied before the LIMIT; ?3–?5 the
    exclusions."""
    return _over_ranked(columns, f"""SELECT {UNIT_COLUMNS}, ranked.bm25,
       {UNIT_TEXTS}""")


def ranked_sql(columns: Mapping[str, float]) -> str:
    """The first pass of a gated search (worker/recall/lexical.py): search_sql's ranking,
    with its parameters and the same rows (the exclusions applied), each with what bounds
    its score (its conversation, its time) and its unit (the semantic modes' bound,
    worker/recall/fused_depth.py), not its text."""
    return _over_ranked(columns, "SELECT ranked.rid, ranked.bm25, u.conversation_id, "
                                 "u.created_at, u.id AS unit_id")


def whole_ranked_sql(columns: Mapping[str, float]) -> str:
    """ranked_sql's rows, each whole (search_sql's columns) with its rowid, unit and
    `embedded` (?8, after `_params`' seven, the model): a semantic mode's first pass
    (Corpus.whole_ranked_sql)."""
    return _over_ranked(columns, f"SELECT {UNIT_COLUMNS}, ranked.rid, ranked.bm25, "
                                 f"u.id AS unit_id, {embedded_sql('u.id', 8)},\n"
                                 f"       {UNIT_TEXTS}")


# The second pass: the units the first pass keeps, in its order (?1 a JSON array of their
# rowids; the first pass applied the exclusions).
ROWS_SQL = f"""
WITH kept AS (SELECT value AS rid, key AS pos FROM json_each(?1))
SELECT {UNIT_COLUMNS}, kept.rid,
       {UNIT_TEXTS}
FROM kept
JOIN conversation_units AS u ON u.rid = kept.rid
JOIN conversations AS c ON c.id = u.conversation_id
ORDER BY kept.pos
"""

# The timeline: units written within a window, newest first. ?1 ?2 the window (UTC ms),
# ?3–?5 the exclusions, ?6 rows.
TIMELINE_SQL = f"""
SELECT {UNIT_COLUMNS}, 0 AS by_day,
       {UNIT_TEXTS}
FROM conversation_units AS u
JOIN conversations AS c ON c.id = u.conversation_id
WHERE u.created_at >= ?1 AND u.created_at < ?2
  AND {exclusions_sql(3)}
ORDER BY u.created_at DESC, u.id
LIMIT ?6
"""

# Every judgment of the given messages (?1 [id, ...]), keyed as `_documents` names them.
JUDGMENTS_SQL = """
SELECT 'message:' || m.id AS doc, f.judgment, f.created_at, f.query_hash
FROM json_each(?1) AS j
JOIN messages AS m ON m.id = j.value AND m.withdrawn_at IS NULL
JOIN recall_feedback AS f ON f.doc_message_rid = m.rid
"""

VECTOR_UNITS_SQL = f"""
SELECT u.id AS unit_id, NULL AS vault,
       substr(trim(u.question || char(10) || u.answer), 1, {EMBED_CHARS}) AS text
FROM conversation_units AS u
LEFT JOIN vector_units AS v ON v.unit_id = u.id AND v.model = ?1
WHERE v.vector_id IS NULL
ORDER BY u.rid LIMIT ?2
"""
VECTOR_ORPHANS_SQL = """
SELECT v.vector_id FROM vector_units AS v
WHERE v.corpus = 'messages'
  AND NOT EXISTS (SELECT 1 FROM conversation_units AS u WHERE u.id = v.unit_id)
LIMIT ?1
"""
# ?1 vector ids, ?2 the model, ?3–?5 the exclusions.
VECTOR_RESOLVE_SQL = f"""
SELECT v.vector_id, {UNIT_COLUMNS}, u.id AS unit_id, NULL AS bm25,
       {UNIT_TEXTS}
FROM vector_units AS v
JOIN conversation_units AS u ON u.id = v.unit_id
JOIN conversations AS c ON c.id = u.conversation_id
WHERE v.vector_id IN (SELECT value FROM json_each(?1)) AND v.model = ?2
  AND {exclusions_sql(3)}
"""


def _on_answer(row: Row, s: Scoring) -> bool:
    """Whether a unit points at Mallory's reply (shared/text/turns.py), or at the owner's
    message."""
    if not row["answer_id"]:
        return False
    if not row["question_id"]:
        return True
    return points_at_reply(str(row["question"] or ""), str(row["answer"] or ""), s.terms,
                           s.idf, s.asks)


def _signals_of(standing: Standing) -> Signals:
    return Signals(role=standing.knowledge_role, status=standing.status,
                   conversation=kinds.MESSAGE.conversation)


# Made once: one Signals per standing makes the depth bound's lookup of its span an
# identity match (worker/recall/lexical.py).
_PAST_EXCHANGE_SIGNALS = _signals_of(PAST_EXCHANGE)
_SIGNALS: Mapping[str, Signals] = {c: _signals_of(s) for c, s in _STANDINGS.items()}


def _signals(row: Row, query: SearchQuery) -> Signals:
    """A unit has no name for the query to name (its candidate has no name fields)."""
    return _SIGNALS.get(str(row["conversation_id"]), _PAST_EXCHANGE_SIGNALS)


def _texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["question"] or ""), str(row["answer"] or ""))


def _candidate(row: Row, s: Scoring) -> Candidate:
    """A conversation unit as the message the owner wants back: the turn that best
    matches the query (`_on_answer`), with its partner attached."""
    question, answer = str(row["question"] or ""), str(row["answer"] or "")
    on_answer = _on_answer(row, s)
    focus = str(row["answer_id"] if on_answer else row["question_id"])
    other = row["question_id"] if on_answer else row["answer_id"]
    standing = standing_of(str(row["conversation_id"]))
    return Candidate(
        identity=Identity(
            kind="message", id=focus, group=f"unit:{focus}" if standing.own_group else s.group,
            unit=str(row["id"]),
            label=shorten(str(row["conversation_title"] or "Conversation"), MAX_LABEL_CHARS),
            href=message_href(focus), timestamp_ms=s.timestamp_ms,
            covers=(focus, str(other)) if other else (focus,),
            conversation_id=str(row["conversation_id"]),
            role="assistant" if on_answer else "user",
            knowledge_role=standing.knowledge_role),
        scores=Scores(relevance=s.relevance, boost=s.boost, cosine=s.cosine),
        presentation=Presentation(text=answer if on_answer else question),
        message=MessageFacts(reply=None if on_answer else (answer or None),
                             asked=(question or None) if on_answer else None,
                             seq=int(row["seq"]) if row.get("seq") is not None else None),
        note=NoteFacts(status=standing.status))


def _params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, _padded(rows, filters), *exclusion_params(filters),
            *filters.window_params(days=False))


def _timeline_params(filters: Filters, rows: int) -> tuple[Value, ...]:
    return (*filters.window_params(days=False), *exclusion_params(filters),
            _padded(rows, filters))


def _judged(cand: Candidate) -> tuple[Any, ...]:
    return cand.identity.covers or (cand.identity.id,)


def _documents(cand: Candidate) -> tuple[str, ...]:
    """A conversation unit holds its messages: the question and the reply."""
    return tuple(f"message:{m}" for m in _judged(cand))


def _judgments_params(keys: Sequence[Any]) -> tuple[Value, ...]:
    return (json.dumps(list(keys)),)


VECTORS = VectorCorpus(
    name="messages", kind="message", by_vault=False, units_sql=VECTOR_UNITS_SQL,
    orphans_sql=VECTOR_ORPHANS_SQL, resolve_sql=VECTOR_RESOLVE_SQL,
    resolve_params=lambda ids, model, filters: (json.dumps(ids), model,
                                                *exclusion_params(filters)))

MESSAGES = Corpus(
    name="messages", kind="message", fts_table="conversation_units_fts",
    df_table="conversation_units_df", columns=MESSAGE_COLUMNS,
    group_column="conversation_id", timestamp_column="created_at",
    # A conversation often has several matching units: fetch more, keep the best.
    fetch_per_hit=3, search_sql=search_sql(MESSAGE_COLUMNS), params=_params,
    ranked_sql=ranked_sql(MESSAGE_COLUMNS), rows_sql=ROWS_SQL,
    whole_ranked_sql=whole_ranked_sql(MESSAGE_COLUMNS),
    timeline_sql=TIMELINE_SQL, timeline_params=_timeline_params,
    to_candidate=_candidate, match_texts=_texts,
    judgments=Judgments(sql=JUDGMENTS_SQL, params=_judgments_params, documents=_documents,
                        judged=_judged),
    hit=kinds.MESSAGE, holds_the_query=True, vector=VECTORS, signals=_signals, lends=True)

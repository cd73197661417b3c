"""searchCorpus: one ranked list of hits over vault notes and past messages.

Building the SQL is kept apart from running it. One D1 batch (one round trip) runs the
FTS query on each index, the document-frequency lookups for the query's terms and the
corpus sizes; the ranking maths is pure (shared.ranking).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from re import Pattern
from typing import Literal

from shared.fuzzy import (
    MAX_CANDIDATES,
    MAX_CORRECTIONS,
    best_correction,
    correctable,
    corrected_term,
    prefix_range,
    worth_correcting,
)
from shared.query import SearchQuery, Term
from shared.ranking import (
    MESSAGE_COLUMN_WEIGHTS,
    NOTE_COLUMN_WEIGHTS,
    Scored,
    merge,
    query_ceiling,
    recency_boost,
    relevance,
)
from shared.schemas import Hit
from shared.snippets import highlighter, make_snippet
from shared.sources import message_href, note_href, shorten
from worker.db import Database, Statement

SourceFilter = Literal["all", "notes", "messages"]
# Snippets are cut from this much of a hit's text (a match deeper in a long note still
# ranks it; its snippet then shows the note's start).
SNIPPET_SOURCE_CHARS = 8_000
MAX_LABEL_CHARS = 120


def _weights(weights: Sequence[float]) -> str:
    return ", ".join(f"{w:.3f}" for w in weights)


# The CTE ranks on the FTS index alone and keeps `limit` rows; only those rows are joined
# to the content table. No snippet() here: it re-runs the MATCH per row and tokenizes the
# whole column, which cost more than the ranking itself (bench.latency); the row's text
# start comes back instead and shared.snippets cuts the snippet for the final hits only.
NOTES_SEARCH_SQL = f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(vault_notes_fts, {_weights(NOTE_COLUMN_WEIGHTS)}) AS bm25
    FROM vault_notes_fts WHERE vault_notes_fts MATCH ?1
    ORDER BY bm25 LIMIT ?2
)
SELECT n.path, n.vault, n.title, n.name, n.aliases, n.tags, n.properties, n.note_date,
       ranked.bm25,
       substr(n.body, 1, {SNIPPET_SOURCE_CHARS}) AS text
FROM ranked JOIN vault_notes AS n ON n.rid = ranked.rid
ORDER BY ranked.bm25
"""

# Excluded: the ids in ?3 (a JSON array) and, in conversation ?4, the last ?5 turns.
MESSAGES_SEARCH_SQL = f"""
WITH ranked AS (
    SELECT rowid AS rid, bm25(messages_fts, {_weights(MESSAGE_COLUMN_WEIGHTS)}) AS bm25
    FROM messages_fts WHERE messages_fts MATCH ?1
    ORDER BY bm25 LIMIT ?2
)
SELECT m.id, m.conversation_id, m.role, m.created_at, c.title AS conversation_title,
       ranked.bm25, substr(m.content, 1, {SNIPPET_SOURCE_CHARS}) AS text
FROM ranked
JOIN messages AS m ON m.rid = ranked.rid
JOIN conversations AS c ON c.id = m.conversation_id
WHERE m.id NOT IN (SELECT value FROM json_each(?3))
  AND NOT (m.conversation_id = ?4 AND m.seq > (
        SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?4) - ?5)
ORDER BY ranked.bm25
"""

CORPUS_STATS_SQL = "SELECT corpus, docs FROM corpus_stats"
VOCAB_TABLES = {"notes": "vault_notes_vocab", "messages": "messages_vocab"}
# Message candidates per requested hit: room for one-per-conversation de-duplication.
MESSAGES_PER_HIT = 3
VOCAB_RANGE_SQL = "SELECT term, doc FROM {table} WHERE term >= ? AND term < ? LIMIT ?"


def vocab_sql(corpus: str, n_terms: int) -> str:
    """Document frequencies of n terms: one equality lookup each (fts5vocab has no IN)."""
    table = VOCAB_TABLES[corpus]
    return " UNION ALL ".join(
        [f"SELECT term, doc FROM {table} WHERE term = ?"] * n_terms)


@dataclass(frozen=True)
class Filters:
    source: SourceFilter = "all"
    limit: int = 10
    exclude_message_ids: tuple[str, ...] = ()
    conversation_id: str | None = None
    exclude_recent_turns: int = 0
    # Hits per note or conversation: 1 keeps a ranked list diverse. Explicit search allows
    # 2 (question and answer of one exchange) and so does not hide the answer behind the
    # question that matched it better.
    per_group: int | None = 1
    # At chat time the owner's message is stored before recall runs, so the index already
    # holds it: it would count in every query term's document frequency (and in a small
    # corpus make every term look common, or hide a typo). True removes it from the stats.
    query_text_is_indexed: bool = False


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def _reasons(fields: Mapping[str, str], marks: Pattern[str] | None, highlights: int,
             boost: float, now_ms: int, ts: int) -> list[str]:
    reasons = []
    for name, text in fields.items():
        matched = sorted({w.lower() for w in marks.findall(text)}) if marks and text else []
        if matched:
            reasons.append(f"{name} matches {', '.join(matched)}")
    if highlights:
        reasons.append(f"text matches {highlights} time{'s' if highlights > 1 else ''}")
    if boost >= 1.05:
        reasons.append(f"recent ({max(now_ms - ts, 0) // 86_400_000} days old)")
    return reasons


def _note_hit(c: Scored, now_ms: int, marks: Pattern[str] | None) -> Hit:
    row = c.row
    snippet, spans = make_snippet(str(row["text"] or ""), marks)
    fields = {"title": str(row["title"]), "file name": str(row["name"]),
              "aliases": str(row["aliases"]), "tags": str(row["tags"]),
              "properties": str(row["properties"])}
    return Hit(kind="note", id=str(row["path"]), label=shorten(str(row["title"]), MAX_LABEL_CHARS),
               snippet=snippet, highlights=spans,
               href=note_href(str(row["vault"]), str(row["path"])),
               timestamp=iso(c.timestamp_ms), score=round(c.score, 6),
               relevance=round(c.relevance, 6),
               reasons=_reasons(fields, marks, len(spans), c.boost, now_ms, c.timestamp_ms),
               path=str(row["path"]))


def _message_hit(c: Scored, now_ms: int, marks: Pattern[str] | None) -> Hit:
    row = c.row
    snippet, spans = make_snippet(str(row["text"] or ""), marks)
    label = shorten(str(row["conversation_title"] or "Conversation"), MAX_LABEL_CHARS)
    return Hit(kind="message", id=str(row["id"]), label=label, snippet=snippet,
               highlights=spans, href=message_href(str(row["id"])),
               timestamp=iso(c.timestamp_ms), score=round(c.score, 6),
               relevance=round(c.relevance, 6),
               reasons=_reasons({}, marks, len(spans), c.boost, now_ms, c.timestamp_ms),
               conversation_id=str(row["conversation_id"]), role=str(row["role"]))


def build_statements(db: Database, query: SearchQuery, filters: Filters
                     ) -> dict[str, Statement]:
    stems = sorted({s for t in query.terms for s in t.stems})
    fetch = max(filters.limit, 1)
    plan: dict[str, Statement] = {"stats": db.prepare(CORPUS_STATS_SQL)}
    if filters.source in ("all", "notes"):
        plan["notes"] = db.prepare(NOTES_SEARCH_SQL).bind(query.match, fetch)
        plan["notes_df"] = db.prepare(vocab_sql("notes", len(stems))).bind(*stems)
    if filters.source in ("all", "messages"):
        # A conversation often has several matching messages: fetch more, keep the best.
        excluded = json.dumps(list(filters.exclude_message_ids))
        plan["messages"] = db.prepare(MESSAGES_SEARCH_SQL).bind(
            query.match, fetch * MESSAGES_PER_HIT + len(filters.exclude_message_ids)
            + filters.exclude_recent_turns,
            excluded, filters.conversation_id or "", filters.exclude_recent_turns)
        plan["messages_df"] = db.prepare(vocab_sql("messages", len(stems))).bind(*stems)
    return plan


def ceilings(query: SearchQuery, rows: Mapping[str, list[dict]]) -> dict[str, float]:
    """Per corpus, the most this query can score there (shared.ranking.query_ceiling)."""
    docs = {r["corpus"]: int(r["docs"]) for r in rows["stats"]}
    result = {}
    for corpus in ("notes", "messages"):
        if corpus in rows:
            df = {r["term"]: int(r["doc"]) for r in rows[f"{corpus}_df"]}
            result[corpus] = query_ceiling(query.terms, df, docs.get(corpus, 0))
    return result


def score_rows(query: SearchQuery, rows: Mapping[str, list[dict]], now_ms: int,
               floor: Mapping[str, float] | None = None) -> list[Scored]:
    """Scored candidates; `floor` raises a corpus's ceiling (see search_corpus)."""
    limits = ceilings(query, rows)
    scored: list[Scored] = []
    for corpus, kind in (("notes", "note"), ("messages", "message")):
        if corpus not in rows:
            continue
        ceiling = max(limits[corpus], (floor or {}).get(corpus, 0.0))
        for row in rows[corpus]:
            ts = int(row["note_date"] if kind == "note" else row["created_at"])
            scored.append(Scored(
                kind=kind,
                id=str(row["path"] if kind == "note" else row["id"]),
                group=str(row["path"] if kind == "note" else row["conversation_id"]),
                relevance=relevance(float(row["bm25"]), ceiling),
                boost=recency_boost(ts, now_ms), timestamp_ms=ts, row=row))
    return scored


async def _run(db: Database, plan: Mapping[str, Statement], filters: Filters
               ) -> dict[str, list[dict]]:
    results = await db.batch(list(plan.values()))
    rows = {name: result.results for name, result in zip(plan, results, strict=True)}
    return without_query_message(rows) if filters.query_text_is_indexed else rows


def without_query_message(rows: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Statistics as if the message the query was made from were not indexed: it holds
    every query term, so it adds one to each term's message count and to the corpus."""
    if "messages_df" not in rows:
        return rows
    return {**rows,
            "messages_df": [{**r, "doc": max(int(r["doc"]) - 1, 0)} for r in rows["messages_df"]],
            "stats": [{**r, "docs": max(int(r["docs"]) - 1, 0)} if r["corpus"] == "messages"
                      else r for r in rows["stats"]]}


def _candidate_ids(rows: Mapping[str, list[dict]]) -> set[str]:
    """Ids of the notes and messages a search run returned."""
    return ({str(r["path"]) for r in rows.get("notes", [])}
            | {str(r["id"]) for r in rows.get("messages", [])})


def _unknown_terms(query: SearchQuery, rows: Mapping[str, list[dict]]) -> list[Term]:
    """Correctable terms that no document of the searched corpora contains."""
    known = {r["term"] for name in ("notes_df", "messages_df") for r in rows.get(name, [])
             if int(r["doc"]) > 0}
    return [t for t in query.terms if correctable(t) and t.stems[0] not in known
            ][:MAX_CORRECTIONS]


async def _corrections(db: Database, words: list[str], corpora: list[str]) -> dict[str, str]:
    plan = {f"{corpus}:{word}": db.prepare(VOCAB_RANGE_SQL.format(table=VOCAB_TABLES[corpus]))
            .bind(*prefix_range(word), MAX_CANDIDATES)
            for word in words for corpus in corpora}
    rows = await _run(db, plan, Filters())
    found = {}
    for word in words:
        docs: dict[str, int] = {}
        for corpus in corpora:
            for r in rows[f"{corpus}:{word}"]:
                docs[r["term"]] = docs.get(r["term"], 0) + int(r["doc"])
        best = best_correction(word, docs.items())
        if best:
            found[word] = best
    return found


async def search_corpus(db: Database, query: SearchQuery, filters: Filters, now_ms: int
                        ) -> list[Hit]:
    """Ranked hits for a sanitised query; [] when the query has no terms.

    A word no document contains is treated as a typo: it is replaced by the closest index
    term (shared.fuzzy) and the search runs again. Only such queries pay the extra trips.
    Relevance stays measured against the query as typed (whose unknown words carry the
    highest IDF), so a guessed word earns less confidence than a word the owner typed.
    """
    if query.is_empty:
        return []
    rows = await _run(db, build_statements(db, query, filters), filters)
    unknown = _unknown_terms(query, rows)
    strict: set[str] | None = None
    as_typed: dict[str, float] = {}
    if worth_correcting(len(query.terms), len(unknown)):
        corpora = [c for c in ("notes", "messages") if c in rows]
        fixes = await _corrections(db, [t.tokens[0] for t in unknown], corpora)
        if fixes:
            terms = tuple(corrected_term(fixes[t.tokens[0]]) if t in unknown
                          and t.tokens[0] in fixes else t for t in query.terms)
            strict = _candidate_ids(rows)
            as_typed = ceilings(query, rows)
            query = SearchQuery(text=query.text, terms=terms)
            rows = await _run(db, build_statements(db, query, filters), filters)
    ranked = merge(score_rows(query, rows, now_ms, as_typed), filters.limit,
                   filters.per_group)
    marks = highlighter(query.terms)
    hits = [(_note_hit if c.kind == "note" else _message_hit)(c, now_ms, marks)
            for c in ranked]
    if strict is not None:
        hits = [h.model_copy(update={"fuzzy": h.id not in strict}) for h in hits]
    return hits

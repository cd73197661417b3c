"""A third corpus, registered through the registry alone (its tables and FTS index made
by a migration fixture, in the test database only): automatic recall, explicit search
over HTTP and the Recall block serve it with no other file changed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
import pytest

from local.migrate import split_statements
from local.sqlite_db import SqliteDatabase
from shared.block.citations import shorten
from shared.rank.candidate import Candidate, Identity, Presentation, Scores
from shared.rank.kinds import HitKind
from shared.text.sanitiser import Term
from tests.conftest import DAY_MS, NOW_MS
from worker.corpora import registry
from worker.corpora.base import MAX_LABEL_CHARS, Corpus, Judgments, Row, Scoring, weights_sql
from worker.corpora.filters import Filters
from worker.db.port import Value
from worker.recall.automatic import automatic_recall

# The migration fixture: bookmarks, their FTS index and document frequencies (kept as
# migrations/0014 keeps the shipped corpora's), their corpus_stats row
# (the table is rebuilt without the CHECK that names the two shipped corpora).
MIGRATION = """
CREATE TABLE bookmarks (
    rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    url TEXT NOT NULL, body TEXT NOT NULL, saved_at INTEGER NOT NULL);
CREATE VIRTUAL TABLE bookmarks_fts USING fts5 (
    title, body, content = 'bookmarks', content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE bookmarks_df (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE bookmarks_terms USING fts5 (
    title, body, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE bookmarks_terms_vocab USING fts5vocab (bookmarks_terms, 'row');
PRAGMA legacy_alter_table = ON;
CREATE TABLE corpus_stats_open (corpus TEXT PRIMARY KEY, docs INTEGER NOT NULL DEFAULT 0);
INSERT INTO corpus_stats_open SELECT corpus, docs FROM corpus_stats;
DROP TABLE corpus_stats;
ALTER TABLE corpus_stats_open RENAME TO corpus_stats;
PRAGMA legacy_alter_table = OFF;
INSERT INTO corpus_stats (corpus, docs) VALUES ('bookmarks', 0);
CREATE TRIGGER bookmarks_ai AFTER INSERT ON bookmarks BEGIN
    INSERT INTO bookmarks_fts (rowid, title, body) VALUES (new.rid, new.title, new.body);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'bookmarks';
    INSERT INTO bookmarks_terms (rowid, title, body) VALUES (1, new.title, new.body);
    INSERT INTO bookmarks_df (term, doc) SELECT term, 1 FROM bookmarks_terms_vocab WHERE true
    ON CONFLICT (term) DO UPDATE SET doc = doc + 1;
    INSERT INTO bookmarks_terms (bookmarks_terms) VALUES ('delete-all');
END;
"""
COLUMNS = {"title": 4.0, "body": 1.0}
RANKED = f"""
    SELECT rowid AS rid, bm25(bookmarks_fts, {weights_sql(COLUMNS)}) AS bm25
    FROM bookmarks_fts WHERE bookmarks_fts MATCH ?1
      AND (?3 IS NULL OR rowid IN (
            SELECT rid FROM bookmarks WHERE saved_at >= ?3 AND saved_at < ?4))
    ORDER BY bm25 LIMIT ?2"""
ROW = "b.rid, b.id, b.title, b.url, b.body, b.saved_at"
SEARCH_SQL = f"""
WITH ranked AS ({RANKED})
SELECT {ROW}, ranked.bm25 FROM ranked JOIN bookmarks AS b ON b.rid = ranked.rid
ORDER BY ranked.bm25"""
ROWS_SQL = f"""
WITH ranked AS (SELECT value AS rid, key AS pos FROM json_each(?1))
SELECT {ROW} FROM ranked JOIN bookmarks AS b ON b.rid = ranked.rid ORDER BY ranked.pos"""
TIMELINE_SQL = f"""
SELECT {ROW}, 0 AS by_day FROM bookmarks AS b WHERE b.saved_at >= ?1 AND b.saved_at < ?2
ORDER BY b.saved_at DESC LIMIT ?3"""


def _candidate(row: Row, s: Scoring) -> Candidate:
    return Candidate(
        identity=Identity(kind="bookmark", id=str(row["id"]), group=s.group,
                          unit=str(row["id"]), label=shorten(str(row["title"]),
                                                             MAX_LABEL_CHARS),
                          href=str(row["url"]), timestamp_ms=s.timestamp_ms,
                          covers=(str(row["id"]),)),
        scores=Scores(relevance=s.relevance, boost=s.boost),
        presentation=Presentation(text=str(row["body"]),
                                  fields=(("title", str(row["title"])),)))


def _texts(row: Row, terms: Sequence[Term]) -> tuple[str, ...]:
    return (str(row["body"]), str(row["title"]))


def _params(match: str, rows: int, filters: Filters) -> tuple[Value, ...]:
    return (match, rows, *filters.window_params(days=False))


def _no_keys(keys: Sequence[Any]) -> tuple[Value, ...]:
    return ()


BOOKMARKS = Corpus(
    name="bookmarks", kind="bookmark", fts_table="bookmarks_fts",
    df_table="bookmarks_df", columns=COLUMNS, group_column="id",
    timestamp_column="saved_at", fetch_per_hit=1, search_sql=SEARCH_SQL, params=_params,
    ranked_sql=f"""WITH ranked AS ({RANKED})
SELECT ranked.rid, ranked.bm25, b.id, b.saved_at FROM ranked
JOIN bookmarks AS b ON b.rid = ranked.rid ORDER BY ranked.bm25""", rows_sql=ROWS_SQL,
    # Its search rows carry `rid`, `bm25`, its group and timestamp; bookmarks have no
    # vectors, so none is `embedded` (?5, after `_params`' four, the model).
    whole_ranked_sql=SEARCH_SQL.replace("ranked.bm25 FROM",
                                        "ranked.bm25, ?5 IS NULL AS embedded FROM"),
    timeline_sql=TIMELINE_SQL,
    timeline_params=lambda filters, rows: (*filters.window_params(days=False), rows),
    to_candidate=_candidate, match_texts=_texts,
    # Bookmarks take no feedback: no candidate names a judged key, so no statement runs.
    judgments=Judgments(sql="SELECT NULL AS doc WHERE 0", params=_no_keys,
                        documents=lambda c: (f"bookmark:{c.identity.id}",),
                        judged=lambda c: ()),
    hit=HitKind(name="bookmark", corpus="bookmarks", lead=lambda c, label: f"bookmark {label}",
                shows_standing=False, grows=False, tie=2, conversation=False,
                document_key=lambda c: f"bookmark:{c.identity.id}",
                offline_word="your bookmark"))


@pytest.fixture
async def bookmarks(db: SqliteDatabase) -> AsyncIterator[Corpus]:
    await db.batch([db.prepare(s) for s in split_statements(MIGRATION)])
    await db.prepare("INSERT INTO bookmarks (id, title, url, body, saved_at) "
                     "VALUES (?1, ?2, ?3, ?4, ?5)").bind(
        "b1", "Sourdough hydration calculator", "https://bread.example/hydration",
        "Work out the water for a sourdough loaf at 75% hydration.", NOW_MS - DAY_MS).run()
    with registry.registered(BOOKMARKS) as corpus:
        yield corpus


async def test_explicit_search_over_http_serves_the_registered_corpus(
        bookmarks: Corpus, client: httpx.AsyncClient) -> None:
    answer = await client.get("/api/search", params={"q": "sourdough hydration"})
    assert answer.status_code == 200, answer.text
    [hit] = answer.json()["hits"]
    assert (hit["kind"], hit["id"], hit["href"]) == (
        "bookmark", "b1", "https://bread.example/hydration")


async def test_automatic_recall_and_the_block_serve_the_registered_corpus(
        bookmarks: Corpus, db: SqliteDatabase) -> None:
    recall = await automatic_recall(db, "what hydration for my sourdough loaf?", NOW_MS,
                                    message_id="new", conversation_id="c")
    assert [i.candidate.identity.kind for i in recall.injected] == ["bookmark"]
    assert "[1] bookmark «Sourdough hydration calculator» (" in recall.block
    assert "75% hydration" in recall.block


async def test_the_timeline_lists_the_registered_corpus(bookmarks: Corpus,
                                                        client: httpx.AsyncClient) -> None:
    answer = await client.get("/api/search", params={"q": "what did I write yesterday?"})
    assert answer.status_code == 200, answer.text
    assert [(h["kind"], h["id"]) for h in answer.json()["hits"]] == [("bookmark", "b1")]


def test_a_corpus_is_registered_only_inside_the_block(db: SqliteDatabase) -> None:
    assert "bookmarks" not in [c.name for c in registry.corpora()]
    with registry.registered(BOOKMARKS):
        assert registry.by_kind("bookmark") is BOOKMARKS
        with pytest.raises(ValueError, match="bookmarks"), registry.registered(BOOKMARKS):
            pass
    assert "bookmarks" not in [c.name for c in registry.corpora()]

"""Baselines measured in the same run on the same documents (notes: title + body as
stored; messages: content).

- fts5_naive: one plain FTS5 table (porter unicode61) over both corpora; the query's words
  OR-ed, ORDER BY bm25, no stopwords, no recency, no gate.
- bm25s: the bm25s library (Lucene BM25, k1 1.5, b 0.75) over the same texts, English
  stopwords, the same Porter stemmer as the index.

Automatic-recall rule for baselines (they have no gate): they inject their top hit
whenever they return anything.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

import bm25s

from shared.text.porter import stem

DOCS_SQL = """
SELECT 'note:' || path AS doc_id, title || ' ' || body AS text FROM vault_notes
UNION ALL
SELECT 'msg:' || id AS doc_id, content AS text FROM messages
"""


def documents(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return [(r["doc_id"], r["text"]) for r in conn.execute(DOCS_SQL).fetchall()]


class NaiveFts5:
    name = "fts5_naive"

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE naive USING fts5(doc_id UNINDEXED, text, "
                          "tokenize='porter unicode61 remove_diacritics 2')")
        self.conn.executemany("INSERT INTO naive (doc_id, text) VALUES (?, ?)", docs)

    def search(self, query: str, k: int = 20) -> list[str]:
        words = re.findall(r"[^\W_]+", query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.conn.execute("SELECT doc_id FROM naive WHERE naive MATCH ? "
                                 "ORDER BY bm25(naive) LIMIT ?", (match, k)).fetchall()
        return [r[0] for r in rows]


class Bm25s:
    name = "bm25s"

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        self.ids = [d for d, _ in docs]
        tokens = bm25s.tokenize([t for _, t in docs], stopwords="en", stemmer=self._stem,
                                show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)

    @staticmethod
    def _stem(words: list[str]) -> list[str]:
        return [stem(w) for w in words]

    def search(self, query: str, k: int = 20) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self._stem,
                                show_progress=False)
        if not tokens.ids or not tokens.ids[0]:
            return []
        k = min(k, len(self.ids))
        results, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[int(i)] for i, s in zip(results[0], scores[0], strict=True) if s > 0]

"""Index statistics a run brought back: corpus sizes and the query stems' document counts,
per corpus, with the fix-up for chat-time recall (the query's own message is indexed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from shared.query import SearchQuery
from shared.ranking import idf, query_ceiling, term_df
from worker.recall.run import Rows


@dataclass(frozen=True)
class CorpusStats:
    docs: int
    df: Mapping[str, int]  # stem → documents holding it (stems no document holds: absent)


Stats = Mapping[str, CorpusStats]  # corpus name → its statistics


def collect(rows: Rows) -> Stats:
    docs: dict[str, int] = {}
    df: dict[str, dict[str, int]] = {}
    for (step, corpus, _), found in rows.items():
        if step == "stats":
            docs.update({str(r["corpus"]): int(r["docs"]) for r in found})
        elif step == "df":
            df.setdefault(corpus, {}).update({str(r["term"]): int(r["doc"]) for r in found})
    searched = {corpus for (step, corpus, _) in rows if step == "hits"}
    return {c: CorpusStats(docs=docs.get(c, 0), df=df.get(c, {})) for c in sorted(searched)}


def without_query_message(stats: Stats) -> Stats:
    """Statistics as if the message the query was made from were not indexed: it holds
    every query term, so it adds one to each term's message count and to the corpus."""
    if "messages" not in stats:
        return stats
    m = stats["messages"]
    fixed = replace(m, docs=max(m.docs - 1, 0),
                    df={t: n - 1 for t, n in m.df.items() if n > 1})
    return {**stats, "messages": fixed}


def ceilings(query: SearchQuery, stats: Stats) -> dict[str, float]:
    """Per corpus, the most this query can score there (shared.ranking.query_ceiling)."""
    return {name: query_ceiling(query.terms, s.df, s.docs) for name, s in stats.items()}


def term_idfs(query: SearchQuery, stats: Stats) -> dict[str, dict[str, float]]:
    """Per corpus, each query term's IDF (FTS5's formula, a phrase as its rarest token):
    what the gate weighs a candidate's matched terms by."""
    return {name: {t.fts: idf(s.docs, term_df(t, s.df)) for t in query.terms}
            for name, s in stats.items()}


def known_stems(stats: Stats) -> dict[str, int]:
    """Each stem's document count summed over the searched corpora."""
    total: dict[str, int] = {}
    for s in stats.values():
        for term, n in s.df.items():
            total[term] = total.get(term, 0) + n
    return total

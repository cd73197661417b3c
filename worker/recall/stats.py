"""Index statistics a run brought back: corpus sizes and the query stems' document counts,
per corpus, with the fix-up for chat-time recall (the query's own message is indexed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from shared.rank.scoring import forgiven_terms, idf, query_ceiling, term_df
from shared.text.sanitiser import SearchQuery, Term
from worker.corpora import registry
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
    every query term, so it adds one to each term's count and to the size of the corpus
    that stores it."""
    fixed = dict(stats)
    for corpus in registry.corpora():
        if corpus.holds_the_query and corpus.name in stats:
            m = stats[corpus.name]
            fixed[corpus.name] = replace(m, docs=max(m.docs - 1, 0),
                                         df={t: n - 1 for t, n in m.df.items() if n > 1})
    return fixed


def self_match_correction(matched: Sequence[Term], clean: CorpusStats, raw: CorpusStats
                          ) -> float:
    """How much FTS5's bm25() undervalues a row because the query's own message is indexed.

    bm25() weighs each matched term by an IDF counted with that message in the corpus (one
    more document, one more holding every query term); the ceiling it is divided by uses
    the statistics without it. In a small install the two differ by a factor of three (a
    word in 1 of 4 exchanges: IDF 0.85 clean, 0.34 with the question), and a true hit sank
    under the gate's floor. The factor Σ idf_clean / Σ idf_raw over the matched terms is
    exact when the terms' tf parts are equal, and 1 when nothing was matched."""
    if not matched:
        return 1.0
    clean_sum = sum(idf(clean.docs, term_df(t, clean.df)) for t in matched)
    raw_sum = sum(idf(raw.docs, term_df(t, raw.df)) for t in matched)
    return clean_sum / raw_sum if raw_sum > 0 else 1.0


def ceilings(query: SearchQuery, stats: Stats) -> dict[str, float]:
    """Per corpus, the most this query can score there (shared.rank.scoring.query_ceiling). A
    word is unseen when no searched corpus holds it (shared.rank.scoring.forgiven_terms)."""
    def known(term: Term) -> bool:
        return any(all(s.df.get(stem, 0) > 0 for stem in term.stems) for s in stats.values())

    return {name: query_ceiling(query.terms, s.df, s.docs,
                                forgiven_terms(query.terms, known, s.docs))
            for name, s in stats.items()}


def term_idfs(query: SearchQuery, stats: Stats) -> dict[str, dict[str, float]]:
    """Per corpus, each query term's IDF (FTS5's formula, a phrase as its rarest token):
    what the gate weighs a candidate's matched terms by."""
    return {name: {t.fts: idf(s.docs, term_df(t, s.df)) for t in query.terms}
            for name, s in stats.items()}


def sizes(stats: Stats) -> dict[str, int]:
    return {name: s.docs for name, s in stats.items()}


def known_stems(stats: Stats) -> dict[str, int]:
    """Each stem's document count summed over the searched corpora."""
    total: dict[str, int] = {}
    for s in stats.values():
        for term, n in s.df.items():
            total[term] = total.get(term, 0) + n
    return total

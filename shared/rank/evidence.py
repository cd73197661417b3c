"""What the pipeline already knows about one candidate, as the numbers the confidence
model weighs (shared/rank/confidence.py): its BM25 relevance and how much of the query's
IDF mass it matches, its rank and score in each list and whether the lists agree, its
cosine, its kind and role, standing and recency, and the size of the index it came from
(a young index's IDFs say little). Pure, so the Worker computes it in Pyodide and the fit
(bench/confidence_fit.py) computes exactly the same numbers offline.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shared.rank.candidate import Candidate
from shared.rank.kinds import kind_of
from shared.rank.scoring import specificity
from shared.text.matcher import matched_terms
from shared.text.sanitiser import Term

# The order of a feature vector; a model (shared/rank/confidence.py) holds one weight for
# each, by name, so that a model written before a feature was added still reads.
FEATURES: tuple[str, ...] = (
    "relevance",  # BM25 share of the query's ceiling (shared.rank.scoring.relevance)
    "sqrt_relevance",
    "coverage",  # share of the query's IDF mass among the terms the hit matches
    "all_terms",  # it matches every query term
    "matched_specificity",  # the rarest term it matches, 0..1 (shared.rank.scoring)
    "query_specificity",  # the rarest term the query has, 0..1
    "terms",  # log(1 + query terms)
    "lexical_rr",  # 1 / its rank in the lexical list (0: not in it)
    "vector_rr",  # 1 / its rank in the vector list (0: not in it)
    "both_lists",
    "vector_only",
    "cosine",  # 0 without one
    "cosine_to_best",  # its cosine minus the best cosine of the list
    "score_to_best",  # its score over the best candidate's
    "rank_rr",  # 1 / its rank in the merged list
    "best_margin",  # (best - second best) / best: how clear the list's winner is
    "message",  # a conversation unit (else a note)
    "assistant",  # a unit that points at Mallory's turn
    "standing",  # its standing - 1 (shared/knowledge/standing.py)
    "recency",  # its recency boost - 1
    "index_size",  # log10(1 + units in its corpus)
    "pending",  # no vector of the current model yet
    "exact",  # the query names this very hit (a title, alias or identifier)
    "fuzzy",  # matched only through a spelling correction
)


@dataclass(frozen=True, slots=True)
class QueryEvidence:
    """What every candidate of one recall is weighed against."""

    terms: tuple[Term, ...]  # the query as searched
    idf: Mapping[str, Mapping[str, float]]  # corpus → term (FTS form) → IDF
    docs: Mapping[str, int]  # corpus → units it holds
    best_score: float
    second_score: float
    best_cosine: float
    exact: bool  # the best hit is named by the query (worker/recall/modes.py)


def query_evidence(terms: Sequence[Term], idf: Mapping[str, Mapping[str, float]],
                   docs: Mapping[str, int], ranked: Sequence[Candidate],
                   exact: bool = False) -> QueryEvidence:
    """`ranked`: the candidates that hold a slot, best first."""
    scores = [c.scores.final for c in ranked[:2]]
    cosines = [c.scores.cosine for c in ranked if c.scores.cosine is not None]
    return QueryEvidence(tuple(terms), idf, docs, scores[0] if scores else 0.0,
                         scores[1] if len(scores) > 1 else 0.0,
                         max(cosines) if cosines else 0.0, exact)


def _rr(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0


@dataclass(frozen=True, slots=True)
class _Corpus:
    """What one corpus's candidates share of the query: each term's IDF and specificity
    there, the query's IDF mass and its rarest term's specificity, and the index's size."""

    idf: Mapping[str, float]
    specificity: Mapping[str, float]
    mass: float
    query_specificity: float
    n_docs: int


def _corpus(q: QueryEvidence, corpus: str) -> _Corpus:
    by_term = q.idf.get(corpus, {})
    n_docs = q.docs.get(corpus, 0)
    spec = [specificity(by_term.get(t.fts, 0.0), n_docs) for t in q.terms]
    return _Corpus(by_term, {t: specificity(v, n_docs) for t, v in by_term.items()},
                   sum(by_term.get(t.fts, 0.0) for t in q.terms), max(spec, default=0.0),
                   n_docs)


def features(cand: Candidate, q: QueryEvidence, rank: int, matched: frozenset[str],
             shared: _Corpus | None = None) -> tuple[float, ...]:
    """`cand`'s features in FEATURES order. `rank`: 1-based in the merged list;
    `matched`: the query terms (FTS form) it holds (shared.text.matcher.matched_terms);
    `shared`: what its corpus's candidates share (made once a recall by `assess`)."""
    s, ident = cand.scores, cand.identity
    kind = kind_of(cand)
    side = shared if shared is not None else _corpus(q, kind.corpus)
    by_term, mass = side.idf, side.mass
    held = sum(by_term.get(t, 0.0) for t in matched)
    spec_held = [side.specificity[t] for t in matched if t in by_term]
    cosine = s.cosine if s.cosine is not None else 0.0
    best = q.best_score
    return (
        s.relevance,
        math.sqrt(s.relevance),
        held / mass if mass > 0 else 0.0,
        float(bool(q.terms) and len(matched) >= len(q.terms)),
        max(spec_held, default=0.0),
        side.query_specificity,
        math.log1p(len(q.terms)),
        _rr(s.lexical_rank),
        _rr(s.vector_rank),
        float(s.lexical_rank is not None and s.vector_rank is not None),
        float(s.lexical_rank is None and s.vector_rank is not None),
        cosine,
        cosine - q.best_cosine if s.cosine is not None else 0.0,
        s.final / best if best > 0 else 0.0,
        1.0 / rank,
        (best - q.second_score) / best if best > 0 else 0.0,
        float(kind.conversation),
        float(ident.role == "assistant"),
        s.standing - 1.0,
        s.boost - 1.0,
        math.log10(1 + side.n_docs),
        float(s.pending),
        float(q.exact and rank == 1),
        float(cand.presentation.fuzzy),
    )


@dataclass(frozen=True, slots=True)
class Assessed:
    """A candidate that holds a slot, with its matched terms filled in, its 1-based rank
    among those that do, and its features."""

    candidate: Candidate
    rank: int
    features: tuple[float, ...]


def assess(ranked: Sequence[Candidate], terms: Sequence[Term],
           idf: Mapping[str, Mapping[str, float]], docs: Mapping[str, int], exact: bool,
           depth: int) -> list[Assessed]:
    """The first `depth` of `ranked` (the candidates holding a slot, best first), each
    with its features. Terms are matched only here, for these few: matching every row
    of a recall cost more Python time than any other step (bench.latency)."""
    q = query_evidence(terms, idf, docs, ranked, exact)
    sides: dict[str, _Corpus] = {}
    out = []
    for rank, cand in enumerate(ranked[:depth], 1):
        shown = cand.presentation
        matched = shown.terms or matched_terms(q.terms, [shown.text, *(v for _, v in shown.fields)])
        cand = cand.with_presentation(shown.with_terms(matched))
        corpus = kind_of(cand).corpus
        side = sides.get(corpus)
        if side is None:
            side = sides[corpus] = _corpus(q, corpus)
        out.append(Assessed(cand, rank, features(cand, q, rank, matched, side)))
    return out

"""Ranking: BM25 from both FTS tables put on one scale, a recency boost, one merged list.

Why a normalisation is needed: the two corpora have separate FTS5 indexes, and a raw
bm25() value depends on its own index's IDFs (and on how many terms the query has), so a
raw -9 from the notes and a raw -9 from the messages mean different things. We divide
each raw score by the most that query could score in that index, Σ idf(t)·(k1+1) over
the query terms (BM25's per-term ceiling as tf → ∞), using FTS5's own IDF formula and the
document frequencies from each index's fts5vocab table. The result, `relevance`, is in
[0, 1): "how much of this query's information this document matches, and how densely".
It is comparable across corpora and across queries, which the precision gate needs.
bench/relevance.py measures the merged ranking against both single-index baselines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from shared.rank.candidate import Candidate
from shared.text.sanitiser import Term
from shared.time.durations import MS_PER_DAY

# FTS5's bm25() constants (sqlite/ext/fts5/fts5_aux.c); not configurable in FTS5.
BM25_K1 = 1.2
BM25_B = 0.75
FTS5_MIN_IDF = 1e-6

# Recency: score × (1 + RECENCY_WEIGHT · 2^(-age / HALF_LIFE)). A brand-new item gets at
# most +15%; after one half-life (90 days) +7.5%. Small on purpose: recency breaks ties
# and near-ties, but a strong old note must still beat a weak new one.
RECENCY_WEIGHT = 0.15
# forgiven_terms: at most this many unseen words, in a query of at least this many terms,
# in an index of fewer units than this (the regression set's vault has 20 sections).
FORGIVEN_UNSEEN_TERMS = 1
FORGIVE_MIN_TERMS = 3
SMALL_INDEX_UNITS = 20
RECENCY_HALF_LIFE_DAYS = 90.0


def idf(n_docs: int, df: int) -> float:
    """FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), floored at 1e-6 like fts5_aux.c."""
    value = math.log((n_docs - df + 0.5) / (df + 0.5)) if n_docs > 0 else 0.0
    return value if value > 0 else FTS5_MIN_IDF


def term_df(term: Term, df_by_stem: Mapping[str, int]) -> int:
    """A phrase occurs in at most as many documents as its rarest token. A term no document
    holds counts as if one did: the ceiling assumes the best any real term could do. Without
    this, in a small vault an unseen word's IDF (log((N+0.5)/0.5)) dwarfs every seen word's
    (FTS5 floors the IDF of a word in half the documents to 1e-6), and nothing could ever
    look relevant."""
    return max(min(df_by_stem.get(s, 0) for s in term.stems), 1)


def query_ceiling(terms: Sequence[Term], df_by_stem: Mapping[str, int], n_docs: int,
                  forgiven: Collection[Term] = ()) -> float:
    """The highest bm25() magnitude this query can reach in an index of n_docs documents,
    leaving out the `forgiven` terms (see `forgiven_terms`)."""
    return (BM25_K1 + 1) * sum(idf(n_docs, term_df(t, df_by_stem)) for t in terms
                               if t not in forgiven)


def forgiven_terms(terms: Sequence[Term], known: Callable[[Term], bool], n_docs: int
                   ) -> tuple[Term, ...]:
    """Query words that count for nothing in the ceiling of an index of n_docs units: one
    word no index holds, when the index is small (under SMALL_INDEX_UNITS), the query has
    FORGIVE_MIN_TERMS terms or more, and memory knows at least one of the others.

    Why: an unseen word carries the highest IDF there is, so in a small install a hit that
    matches the rest of a query could not pass the gate because of one word the owner had
    never used before ("when is Hannah's wedding ceremony?" against "Hannah's wedding is on
    14 June": 0.30 of the ceiling, under the gate's floor; 0.44 without "ceremony"). A few
    exchanges hold a few hundred words, so a word they lack says little. In a larger index
    it says a lot: forgiving it everywhere let "how do I unclog a kitchen sink" inject a
    kitchen-renovation note, and raised the false-positive rate from 0.00 to 0.10 on the
    dev set and from 0.14 to 0.17 on mixed-vault tune. Only one word is forgiven: a query
    most of whose words memory lacks asks about something else."""
    if len(terms) < FORGIVE_MIN_TERMS or n_docs >= SMALL_INDEX_UNITS:
        return ()
    unseen = [t for t in terms if not known(t)]
    if not unseen or len(unseen) == len(terms):
        return ()
    return tuple(unseen[:FORGIVEN_UNSEEN_TERMS])


def relevance(raw_bm25: float, ceiling: float) -> float:
    """FTS5's bm25() (negative, lower is better) as a fraction of the query's ceiling."""
    if ceiling <= 0:
        return 0.0
    return min(max(-raw_bm25 / ceiling, 0.0), 1.0)


def specificity(term_idf: float, n_docs: int) -> float:
    """How rare a word is on a 0..1 scale: its IDF over the IDF of a word in one unit."""
    top = idf(n_docs, 1)
    return min(term_idf / top, 1.0) if top > FTS5_MIN_IDF else 1.0


def recency_boost(timestamp_ms: int, now_ms: int) -> float:
    age_days = max(now_ms - timestamp_ms, 0) / MS_PER_DAY
    halving: float = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    return 1.0 + RECENCY_WEIGHT * halving


def ranked_in_groups(candidates: Iterable[Candidate],
                     per_group: int | Mapping[str, int] | None = 1
                     ) -> list[tuple[Candidate, Candidate | None]]:
    """Every candidate in list order (score desc; ties → newer first, then notes before
    messages, then id), each with the better candidate of its note or conversation that
    took the group's last slot when `per_group` leaves it none (None: it keeps a slot)."""
    ordered = sorted(candidates,
                     key=lambda c: (-round(c.scores.final, 12), -c.identity.timestamp_ms,
                                    c.identity.kind != "note", c.identity.id))
    result: list[tuple[Candidate, Candidate | None]] = []
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for cand in ordered:
        key = (cand.identity.kind, cand.identity.group)
        cap = per_group.get(cand.identity.kind) if isinstance(per_group, Mapping) else per_group
        held = groups.setdefault(key, [])
        if cap is not None and len(held) >= cap:
            result.append((cand, held[-1]))
            continue
        held.append(cand)
        result.append((cand, None))
    return result


def merge(candidates: Iterable[Candidate], limit: int,
          per_group: int | Mapping[str, int] | None = 1) -> list[Candidate]:
    """One ranked list (`ranked_in_groups`' order), at most `per_group` hits per note or
    conversation (None: no cap), at most `limit`."""
    kept = [cand for cand, taken in ranked_in_groups(candidates, per_group) if taken is None]
    return kept[:limit]

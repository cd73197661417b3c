"""The lexical retriever: BM25 over every searched corpus's FTS index, as candidates on
one relevance scale (shared.rank.scoring), with the typo step when the query needs it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from shared.knowledge.standing import Signals, span
from shared.rank.candidate import Candidate
from shared.rank.scoring import idf, recency_boost, relevance, term_df
from shared.text.matcher import matched_in_each
from shared.text.sanitiser import SearchQuery
from shared.text.turns import addressed
from worker.corpora import registry
from worker.corpora.base import Corpus, Row, Scoring
from worker.corpora.filters import Filters
from worker.db import Database
from worker.recall import fused_depth, typo
from worker.recall.depth import Bounds, Cut, cut
from worker.recall.fused_depth import Semantic, Span
from worker.recall.plan import Planned, hits_key, plan
from worker.recall.run import Rows, run
from worker.recall.stats import (
    Stats,
    ceilings,
    collect,
    known_stems,
    self_match_correction,
    sizes,
    term_idfs,
    without_query_message,
)


@dataclass(frozen=True, kw_only=True)
class LexicalResult:
    query: SearchQuery  # as searched: with spelling corrections applied
    candidates: list[Candidate] = field(default_factory=list)
    corrections: Mapping[str, str] = field(default_factory=dict)  # typed word → index term
    # corpus → query term (FTS form) → IDF, for the query as searched
    idf: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    docs: Mapping[str, int] = field(default_factory=dict)  # corpus → units it holds
    cut: Cut | None = None  # what the gate's depth left out (worker/recall/depth.py)


@dataclass(frozen=True)
class Searched:
    rows: Rows
    stats: Stats  # as if the query's own message were not indexed
    raw: Stats  # as FTS5's bm25() counted them
    # The rows are whole (one pass); else each is what bounds its score (a gated search's
    # first pass, Corpus.ranked_sql) and `read` fetches those to build.
    whole: bool = True


async def _search(db: Database, query: SearchQuery, filters: Filters,
                  corpora: Sequence[Corpus], model: str | None = None) -> Searched:
    """One batch: each corpus's rows, ranked, and the statistics. With a score floor, the
    ranked rows only, each with what bounds its score: `read` then fetches the rows of
    what may reach the gate. With `model` (a semantic mode's bound), whose first pass D1
    answers while the query is embedded, the ranked rows whole instead, each saying whether
    its unit holds a vector of the model: after the embedding, the batch that resolves the
    vector hits is then the only one."""
    gated = bool(filters.score_floor) or model is not None
    raw = collect(rows := await run(db, plan(query, filters, corpora, ranked=gated,
                                             model=model)))
    return Searched(rows, without_query_message(raw) if filters.query_text_is_indexed
                    else raw, raw, whole=not gated or model is not None)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A row ranked and bounded, not yet a candidate: its relevance before the
    self-match correction (the correction's `factors` are kept per corpus), its recency
    and timestamp."""

    corpus: Corpus
    row: Row
    base: float
    boost: float
    ts: int
    factors: dict[frozenset[str], float]


async def read(db: Database, *lists: Sequence[Ranked]) -> list[list[Ranked]]:
    """Each list of ranked rows, whole: the second pass of a gated search (one batch for
    all of them; nothing is sent when nothing is kept). A row deleted in between is left
    out."""
    rids: dict[str, set[int]] = {}
    corpora: dict[str, Corpus] = {}
    for r in (r for rows in lists for r in rows):
        rids.setdefault(r.corpus.name, set()).add(int(r.row["rid"]))
        corpora[r.corpus.name] = r.corpus
    found = await run(db, [Planned(hits_key(c), c.rows_sql, (json.dumps(sorted(rids[name])),))
                           for name, c in corpora.items()])
    whole = {(key[1], int(w["rid"])): w for key, got in found.items() for w in got}
    # Made anew, not `replace`d: dataclasses.replace cost 3x a constructor call here.
    return [[Ranked(r.corpus, w, r.base, r.boost, r.ts, r.factors) for r in rows
             if (w := whole.get((r.corpus.name, int(r.row["rid"])))) is not None]
            for rows in lists]


def _corrected(base: float, row: Row, query: SearchQuery, found: Searched, corpus: Corpus,
               factors: dict[frozenset[str], float]) -> float:
    """The row's relevance with the self-match correction, computed before its candidate
    is made (copying every conversation candidate afterwards cost ~1 ms of Python per
    recall at 10k messages, bench.latency). The correction depends only on which terms
    the row matches: `factors` keeps it per set of terms, for the query's rows."""
    clean, raw = found.stats[corpus.name], found.raw[corpus.name]
    if clean is raw:
        return base
    found_terms = matched_in_each(query.terms, corpus.match_texts(row, query.terms))
    factor = factors.get(found_terms)
    if factor is None:
        matched = [t for t in query.terms if t.fts in found_terms]
        factor = factors[found_terms] = self_match_correction(matched, clean, raw)
    return min(base * factor, 1.0)


def _ratios(query: SearchQuery, found: Searched, corpus: Corpus) -> list[float]:
    """Each term's clean-to-raw IDF ratio: a row's self-match correction, a ratio of sums
    over the terms it matches, lies between the least and the largest of them (and is 1
    when it matches none). Empty when nothing needs correcting."""
    clean, raw = found.stats[corpus.name], found.raw[corpus.name]
    if clean is raw:
        return []
    return [idf(clean.docs, term_df(t, clean.df)) / idf(raw.docs, term_df(t, raw.df))
            for t in query.terms]


# Below the floor by more than rounding: a row this close to it is built.
_FLOOR_MARGIN = 1e-9


def _may_pass(base: float, most: float, boost: float, filters: Filters) -> bool:
    """Whether a row of relevance `base` (before the self-match correction, at most
    `most`) and recency `boost` may reach the filters' score floor."""
    return (min(base * most, 1.0) * boost * filters.standing_ceiling * (1 + _FLOOR_MARGIN)
            >= filters.score_floor)


def ranked(query: SearchQuery, found: Searched, corpora: Sequence[Corpus],
           now_ms: int, floor: Mapping[str, float] | None = None,
           filters: Filters | None = None, typed: SearchQuery | None = None
           ) -> tuple[list[Ranked], Cut | None]:
    """The rows to make candidates of, and what the gate's depth left out of them; `floor`
    raises a corpus's ceiling (see `retrieve`); `typed`: the query as typed, which standing
    is judged on (default `query`).

    With `filters.score_floor`, a row whose best possible score (its relevance with the
    largest correction, its recency, the standing ceiling) is below it is not built: the
    lexical gate can pass none of them (shared.rank.policy.lexical_pass_floor), and making
    their candidates was most of recall's Python time (bench.latency --profile). With
    `filters.depth` too, neither is a group sure to rank after that many others
    (worker/recall/depth.py); a row the first pass reads as never `judged` is bounded
    with no feedback (Corpus.ranked_sql). A row of a note with relations is always built:
    the gate's bundles take a retrieved partner's candidate (worker/recall/together.py)."""
    rows, bounds, _ = measured(query, found, corpora, now_ms, floor, filters, typed)
    if not (filters and filters.score_floor and bounds):
        return [Ranked(*r) for r in rows], None
    build, left = cut(bounds, filters.depth)
    return [Ranked(*rows[i]) for i in build], left


Measured = tuple[Corpus, Row, float, float, int, dict[frozenset[str], float]]


def measured(query: SearchQuery, found: Searched, corpora: Sequence[Corpus], now_ms: int,
             floor: Mapping[str, float] | None = None, filters: Filters | None = None,
             typed: SearchQuery | None = None, *, fused: bool = False
             ) -> tuple[list[Measured], list[Bounds], list[Span]]:
    """The rows that may pass the score floor, each with its Ranked fields, and, with
    `filters.depth`, what bounds each one's score (see `ranked`): its final score's
    (`Bounds`), or, `fused`, its parts (`Span`, worker/recall/fused_depth.py)."""
    limits = ceilings(query, found.stats)
    # Each row's Ranked fields: only the rows kept are made Ranked (at 100k messages +
    # 10k notes the depth leaves about 23 of 117, bench.latency).
    rows: list[Measured] = []
    bounds: list[Bounds] = []
    spans: list[Span] = []
    weighs = filters.standing if filters and filters.depth else None
    as_typed = typed or query
    for corpus in corpora:
        key = hits_key(corpus)
        if key not in found.rows:
            continue
        ceiling = max(limits[corpus.name], (floor or {}).get(corpus.name, 0.0))
        ratios = _ratios(query, found, corpus) if filters else []
        most, least = max([1.0, *ratios]), min([1.0, *ratios])
        factors: dict[frozenset[str], float] = {}
        stamped, grouped, signals = corpus.timestamp_column, corpus.group_column, corpus.signals
        # A corpus's signals are shared objects (worker/corpora/): their spans, by identity.
        standings: dict[tuple[Signals, bool], tuple[float, float]] = {}
        for row in found.rows[key]:
            ts = int(row[stamped])
            boost = recency_boost(ts, now_ms)
            base = relevance(float(row["bm25"]), ceiling)
            related = bool(row.get("related"))
            if filters and not related and not _may_pass(base, most, boost, filters):
                continue
            rows.append((corpus, row, base, boost, ts, factors))
            if weighs is not None:
                if signals is None:
                    low, high = weighs.floor, weighs.ceiling
                else:
                    held, judged = signals(row, as_typed), bool(row.get("judged", True))
                    ends = standings.get((held, judged))
                    if ends is None:
                        ends = standings[held, judged] = span(held, weighs, judged)
                    low, high = ends
                if not fused:
                    bounds.append(Bounds((corpus.kind, str(row[grouped])),
                                         min(base * least, 1.0) * boost * low,
                                         min(base * most, 1.0) * boost * high, related))
                    continue
                spans.append(Span((corpus.kind, str(row[grouped])),
                                  str(row.get("unit_id") or ""), min(base * least, 1.0),
                                  min(base * most, 1.0), boost, ts, low, high, related,
                                  not ratios))
    return rows, bounds, spans


def built(query: SearchQuery, found: Searched, rows: Sequence[Ranked]) -> list[Candidate]:
    """The whole rows as candidates."""
    weights = term_idfs(query, found.stats)
    asks = addressed(query.text)
    return [r.corpus.to_candidate(r.row, Scoring(
        _corrected(r.base, r.row, query, found, r.corpus, r.factors), r.boost, r.ts,
        str(r.row[r.corpus.group_column]), query.terms, weights.get(r.corpus.name, {}), asks))
        for r in rows]


async def score(db: Database, query: SearchQuery, found: Searched,
                corpora: Sequence[Corpus], now_ms: int,
                floor: Mapping[str, float] | None = None, filters: Filters | None = None,
                typed: SearchQuery | None = None) -> tuple[list[Candidate], Cut | None]:
    """The rows as candidates (`ranked`, then, after a gated first pass, `read`), and what
    the gate's depth left out of them."""
    rows, left = ranked(query, found, corpora, now_ms, floor, filters, typed)
    return built(query, found, rows if found.whole else (await read(db, rows))[0]), left


async def fused(query: SearchQuery, found: Searched, corpora: Sequence[Corpus], now_ms: int,
                filters: Filters, semantic: Semantic) -> tuple[list[Candidate], Cut | None]:
    """The rows as candidates in a semantic mode, the gate's depth applied to their fused
    scores (worker/recall/fused_depth.py), and what it left out of them. `found` is the
    semantic first pass, its rows whole (`_search` with the model): nothing is read
    again."""
    rows, _, spans = measured(query, found, corpora, now_ms, filters=filters, fused=True)
    embedded = {str(r[1]["unit_id"]) for r in rows if r[1].get("embedded")}
    settled = fused_depth.settle(spans, filters.depth, semantic.fusion, embedded)
    # The rows built whatever the vector hits are, made while the query is still being
    # embedded (the embedding runs beside this thread, or is a fetch under way): that
    # Python is off recall's critical path (bench.latency --mode hybrid).
    early = fused_depth.surely_built(spans, settled)
    made = dict(zip(early, built(query, found, [Ranked(*rows[i]) for i in early]),
                    strict=True))
    facts = await semantic.facts(embedded)
    build, left, unsure = (list(range(len(rows))), None, []) if facts is None else \
        fused_depth.cut_settled(spans, settled, *facts)
    late = [i for i in build if i not in made]
    made.update(zip(late, built(query, found, [Ranked(*rows[i]) for i in late]), strict=True))
    placed = [Ranked(*rows[i]) for i in unsure]
    if left is not None and placed:
        # A left-out row that may tie or cross a built one in the lexical list: its place
        # with its relevance corrected, as its candidate would have it.
        units = {(rows[i][0].name, int(rows[i][1]["rid"])): spans[i].unit for i in unsure}
        keys = [(-_corrected(r.base, r.row, query, found, r.corpus, r.factors) * r.boost,
                 -r.ts, units[r.corpus.name, int(r.row["rid"])]) for r in placed]
        left = replace(left, skipped=tuple(sorted([*left.skipped, *keys])))
    return [made[i] for i in build], left


async def retrieve(db: Database, query: SearchQuery, filters: Filters, now_ms: int,
                   corpora: Sequence[Corpus] | None = None,
                   semantic: Semantic | None = None) -> LexicalResult:
    """Scored candidates for a sanitised query (none when it has no terms).

    Misspelt words are corrected and the search runs again (worker/recall/typo.py). The
    relevance then stays measured against the query as typed, whose unknown words carry
    the highest IDF, so a guessed word earns less confidence than a word the owner typed;
    hits that only the corrected query found are marked `fuzzy`. `semantic`: a semantic
    mode's bound (worker/recall/fused_depth.py) with `filters.depth`; the typo step's
    second search keeps every row.
    """
    if query.is_empty:
        return LexicalResult(query=query)
    corpora = registry.corpora() if corpora is None else corpora
    bounded = semantic is not None and filters.depth > 0
    model = semantic.model if bounded and semantic is not None else None
    searched = await _search(db, query, filters, corpora, model)
    found = typo.suspects(query, known_stems(searched.stats))
    corrected, fixes = await typo.correct(db, query, found, list(searched.stats)) \
        if found.words else (query, {})
    if not fixes:
        first, left = await fused(query, searched, corpora, now_ms, filters, semantic) \
            if bounded and semantic is not None else \
            await score(db, query, searched, corpora, now_ms, filters=filters)
        return LexicalResult(query=query, candidates=first, idf=term_idfs(query, searched.stats),
                             docs=sizes(searched.stats), cut=left)
    again = await _search(db, corrected, filters, corpora, model)
    rows, left = ranked(corrected, again, corpora, now_ms, ceilings(query, searched.stats),
                        filters, query)
    # What the query as typed found (every row of it, not only what may pass), in the
    # groups of the corrected rows: no other row can make a corrected candidate's identity
    # (Corpus.group_column). The corrected search's other hits are fuzzy. Both are read in
    # one batch; the typed rows' FTS search is not run again (the typo step was 6 D1 round
    # trips, now 4, bench.latency at 1k messages).
    groups = {_group(r) for r in rows}
    typed = [r for r in ranked(query, searched, corpora, now_ms)[0] if _group(r) in groups]
    if not again.whole:
        rows, typed = await read(db, rows, typed)
    strict = {(c.identity.kind, c.identity.group, c.identity.id)
              for c in built(query, searched, typed)}
    candidates = [c if (c.identity.kind, c.identity.group, c.identity.id) in strict
                  else replace(c, presentation=replace(c.presentation, fuzzy=True))
                  for c in built(corrected, again, rows)]
    return LexicalResult(query=corrected, candidates=candidates, corrections=fixes,
                         idf=term_idfs(corrected, again.stats), docs=sizes(again.stats),
                         cut=left)


def _group(row: Ranked) -> tuple[str, str]:
    return row.corpus.kind, str(row.row[row.corpus.group_column])

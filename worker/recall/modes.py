"""Retrieval modes (docs/design.md, "Retrieval modes"), chosen by RETRIEVAL_MODE:

    lexical   FTS5 only; never loads a model
    hybrid    lexical and vector lists fused by reciprocal rank (shared.rank.fusion.fuse)
    adaptive  the lists blended by score (shared.rank.fusion.blend), except that an exact
              title, alias or identifier match keeps the lexical order (the strong
              lexical signal), and an uncertain list — low top-2 margin, little
              lexical/vector agreement, or a question — is reranked
    quality   adaptive's list, always reranked (a pool of at most RERANK_POOL candidates)

Fallback: when the embedder or the index fails or misses its time budget, the mode steps
down to lexical; when the reranker does, to the fused list. The result says which mode ran
and why it stepped down (a code), and chat never fails because of it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from shared.knowledge.standing import span
from shared.rank.candidate import Candidate
from shared.rank.fusion import LexicalKey, VectorKey, blend, fuse
from shared.rank.policy import Gauge, RecallPolicy
from shared.rank.scoring import recency_boost
from shared.text.sanitiser import SearchQuery
from shared.text.tokenizer import fold
from worker.corpora.filters import Filters
from worker.db import Database
from worker.recall import lexical, vector
from worker.recall.depth import Cut
from worker.recall.fused_depth import Facts, Fusion, Semantic, VectorSpan
from worker.recall.lexical import LexicalResult
from worker.recall.retrieval_mode import Ran, RetrievalMode
from worker.semantic.ports import SemanticError
from worker.semantic.semantics import Semantics

log = logging.getLogger("mallory.recall")


RERANK_POOL = 40
# Adaptive escalation (docs/design.md, "Retrieval modes"): rerank when the fused top two are
# this close (as a share
# of the best fused score), or the lexical and vector top fives share this little.
MIN_TOP2_MARGIN = 0.08
MIN_TOP5_OVERLAP = 0.40
QUESTION_WORDS = frozenset({"who", "what", "when", "where", "why", "how", "which",
                            "compare", "explain"})


@dataclass(frozen=True, kw_only=True)
class Retrieved:
    # The lexical search: the query as searched (spelling corrections applied), the
    # corrections, and the statistics the gate weighs.
    lexical: LexicalResult
    candidates: list[Candidate] = field(default_factory=list)  # the list the mode made
    ran: Ran = field(default_factory=Ran)
    # The query names its best hit exactly (a title, alias or identifier): the lexical
    # order stood, and the lexical evidence is what the gate should weigh.
    exact: bool = False


def _exact_identity(query: SearchQuery, candidates: Sequence[Candidate]) -> bool:
    """The query is a title, file name or alias of the best lexical hit, or a single
    identifier (`pg:pull`, `snake_case`) that hit matches."""
    if not candidates:
        return False
    best = max(candidates, key=lambda c: c.scores.relevance * c.scores.boost)
    wanted = " ".join(fold(w) for w in query.text.split()).strip(" ?!.")
    names = {fold(v).strip() for name, value in best.presentation.fields
             if name in ("title", "file name", "aliases") for v in value.split("\n")}
    if wanted and wanted in names:
        return True
    return len(query.terms) == 1 and len(query.terms[0].tokens) > 1 and bool(
        best.presentation.terms or best.scores.relevance)


def _uncertain(query: SearchQuery, fused: Sequence[Candidate]) -> bool:
    ordered = sorted(fused, key=lambda c: -(c.scores.fused or 0.0))
    if len(ordered) >= 2 and ordered[0].scores.fused:
        top = ordered[0].scores.fused
        margin = (top - (ordered[1].scores.fused or 0.0)) / top
        if margin < MIN_TOP2_MARGIN:
            return True
    lex = {c.identity.unit for c in ordered if c.scores.lexical_rank and c.scores.lexical_rank <= 5}
    vec = {c.identity.unit for c in ordered if c.scores.vector_rank and c.scores.vector_rank <= 5}
    if lex and vec and len(lex & vec) / len(lex | vec) < MIN_TOP5_OVERLAP:
        return True
    words = query.text.lower().split()
    return bool(words) and words[0].strip("¿?,.") in QUESTION_WORDS


def _marked(found: LexicalResult, have: set[str]) -> LexicalResult:
    """The lexical list, its units without a vector of the current model marked
    `pending`: a message of the last turn may still be being embedded (waitUntil at the
    edge, the background task locally, and Vectorize shows a write only seconds later).
    Such a unit is ranked and gated on its lexical evidence alone, so what the owner just
    said is recallable from the next turn on in every mode (shared.rank.fusion,
    shared.rank.policy.verdict: a pending unit is weighed by the lexical model)."""
    return replace(found, candidates=[
        c if c.identity.unit in have else replace(c, scores=replace(c.scores, pending=True))
        for c in found.candidates])


async def _search(sem: Semantics, query: SearchQuery, filters: Filters) -> vector.Found:
    # asyncio.timeout, not wait_for: wait_for runs the search in a task of its own, which
    # starts only after the lexical task (scheduled before it) has given the event loop
    # back, and the local SQLite D1 never does: the query was embedded after the lexical
    # search instead of beside it (bench.latency --profile).
    async with asyncio.timeout(sem.budget_s):
        return await vector.search(sem, query, filters)


async def _resolved(db: Database, sem: Semantics, query: SearchQuery, filters: Filters,
                    now_ms: int, found: LexicalResult, hits: vector.Found
                    ) -> tuple[LexicalResult, list[Candidate]]:
    """The vector hits resolved and the lexical units' vectors checked in one D1 batch
    (one round trip, where a batch each took two)."""
    model = sem.embedder.model
    resolve = vector.resolve_statements(db, hits, model, filters)
    check = vector.embedded_statement(db, [c.identity.unit for c in found.candidates], model)
    statements = [*resolve, *([check] if check is not None else [])]
    results = await db.batch(statements) if statements else []
    have = vector.embedded_ids(results[-1]) if check is not None else set()
    semantic = vector.candidates(hits, results[:len(resolve)], query, now_ms) if resolve \
        else []
    return _marked(found, have), semantic


class _Resolution:
    """The vector side of a bounded semantic recall (worker/recall/fused_depth.py): the
    lexical search asks, once its first pass is in (which read which of its units hold a
    vector), for the vector hits' groups; the hits are resolved in one D1 batch, whose
    candidates the fusion then takes (no second batch)."""

    def __init__(self, db: Database, sem: Semantics, query: SearchQuery, filters: Filters,
                 now_ms: int, search: asyncio.Task[vector.Found]) -> None:
        self.db, self.sem, self.query, self.filters, self.now_ms = db, sem, query, filters, now_ms
        self.search = search
        self.hits: list[vector.Hit] | None = None  # the resolved hits, once asked
        self.have: set[str] = set()  # the units asked about that hold a vector

    async def facts(self, embedded: Collection[str]) -> Facts | None:
        """`embedded`: the first pass's units that hold a vector of the model."""
        self.have = set(embedded)
        try:
            hits = await self.search
        except Exception:  # recall steps down to lexical (`retrieve`): nothing left out
            return None
        resolve = vector.resolve_statements(self.db, hits, self.sem.embedder.model,
                                            self.filters)
        results = await self.db.batch(resolve) if resolve else []
        self.hits = vector.hits(hits, results) if resolve else []
        return {h.group for h in self.hits}, [self._span(h) for h in self.hits]

    def _span(self, hit: vector.Hit) -> VectorSpan:
        """What bounds a hit's score before it is a candidate (its feedback unknown)."""
        weights = self.filters.standing
        assert weights is not None
        row, signals = hit.row, hit.corpus.signals
        low, high = (weights.floor, weights.ceiling) if signals is None else span(
            signals(row, self.query), weights)
        boost = recency_boost(int(row[hit.corpus.timestamp_column]), self.now_ms)
        return VectorSpan(hit.group, str(row["unit_id"]), hit.cosine, boost, low, high,
                          bool(row.get("related")))

    def semantic(self, cut: Cut | None) -> list[Candidate]:
        """The hits the cut kept, as candidates."""
        assert self.hits is not None
        kept = self.hits if cut is None else [h for h in self.hits if h.group not in cut.groups]
        return vector.built(kept, self.query, self.now_ms)


def _fusion(mode: RetrievalMode, sem: Semantics) -> Fusion | None:
    """How the mode's fused list is bounded, or None: every lexical row is built (quality
    mode and adaptive with a reranker rerank a pool of the top RERANK_POOL, and
    `_uncertain` reads both lists' top fives)."""
    if mode is RetrievalMode.HYBRID:
        return Fusion.RANKS
    if mode is RetrievalMode.ADAPTIVE and sem.reranker is None:
        return Fusion.SCORES
    return None


async def _rerank(sem: Semantics, query: SearchQuery, fused: list[Candidate]
                  ) -> list[Candidate]:
    assert sem.reranker is not None
    pool = sorted(fused, key=lambda c: -c.scores.final)[:RERANK_POOL]
    scores = await asyncio.wait_for(
        sem.reranker.rerank(query.text, [c.presentation.text[:2_000] for c in pool]),
        sem.rerank_budget_s)
    return [replace(c, scores=replace(c.scores, rerank=s))
            for c, s in zip(pool, scores, strict=True)]


def _code(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "semantic_timeout"
    return exc.code if isinstance(exc, SemanticError) else "semantic_failed"


def _adaptive(exact: bool, lexical_list: Sequence[Candidate],
              vector_list: Sequence[Candidate], skipped: Sequence[LexicalKey] = (),
              vector_skipped: Sequence[VectorKey] = ()) -> list[Candidate]:
    """The blended list, or the lexical order when the query names its best hit exactly
    (vector-only units then follow every lexical one). `skipped`, `vector_skipped`: see
    shared.rank.fusion.blend."""
    blended = blend(lexical_list, vector_list, skipped=skipped, vector_skipped=vector_skipped)
    if not exact:
        return blended
    return [replace(c, scores=replace(c.scores, fused=None if c.scores.lexical_rank else 0.0))
            for c in blended]


async def retrieve(db: Database, sem: Semantics | None, query: SearchQuery, filters: Filters,
                   now_ms: int, mode: RetrievalMode) -> Retrieved:
    if mode is RetrievalMode.LEXICAL or sem is None or query.is_empty:
        found = await lexical.retrieve(db, query, filters, now_ms)
        fallback = None if mode is RetrievalMode.LEXICAL or query.is_empty else "no_embedder"
        return Retrieved(lexical=found, candidates=found.candidates,
                         ran=Ran(mode=RetrievalMode.LEXICAL, fallback=fallback))
    # The query's embedding and the index run while D1 answers the lexical search: the
    # semantic task goes first, so the embedding is under way (a thread locally, a fetch at
    # the edge) before the lexical search holds the event loop.
    fusion = _fusion(mode, sem) if filters.depth else None
    if fusion is None:
        hits, lexical_found = await asyncio.gather(
            _search(sem, query, filters), lexical.retrieve(db, query, filters, now_ms),
            return_exceptions=True)
        resolution = None
    else:
        hits, lexical_found, resolution = await _bounded(db, sem, query, filters, now_ms,
                                                         fusion)
    if isinstance(lexical_found, BaseException):
        raise lexical_found
    if isinstance(hits, BaseException):
        log.warning("semantic recall stepped down to lexical: %s", _code(hits))
        lex_result = _marked(lexical_found, await vector.embedded(
            db, [c.identity.unit for c in lexical_found.candidates], sem.embedder.model))
        return Retrieved(lexical=lex_result, candidates=lex_result.candidates,
                         ran=Ran(mode=RetrievalMode.LEXICAL, fallback=_code(hits)))
    if resolution is not None and resolution.hits is not None:
        lex_result = _marked(lexical_found, resolution.have)
        semantic = resolution.semantic(lex_result.cut)
    else:
        lex_result, semantic = await _resolved(db, sem, query, filters, now_ms,
                                               lexical_found, hits)
    cut = lex_result.cut
    skipped, vector_skipped = (cut.skipped, cut.vector_skipped) if cut else ((), ())
    done = Retrieved(lexical=lex_result, ran=Ran(mode=mode))
    if mode is RetrievalMode.HYBRID:
        return replace(done, candidates=fuse(lex_result.candidates, semantic, skipped,
                                             vector_skipped))
    exact = _exact_identity(query, lex_result.candidates)
    if exact and cut is not None:
        # The lexical order stands: the bound, made for the blend, no longer holds
        # (worker/recall/fused_depth.py). Every row and hit, as an unbounded search has them.
        assert resolution is not None
        lex_result = _marked(await lexical.retrieve(db, query, replace(filters, depth=0),
                                                    now_ms), resolution.have)
        semantic, skipped, vector_skipped = resolution.semantic(None), (), ()
        done = replace(done, lexical=lex_result)
    listed = _adaptive(exact, lex_result.candidates, semantic, skipped, vector_skipped)
    done = replace(done, candidates=listed, exact=exact)
    if mode is RetrievalMode.ADAPTIVE and (exact or not _uncertain(query, listed)):
        return done
    if sem.reranker is None:
        return replace(done, ran=replace(done.ran, fallback="no_reranker")) \
            if mode is RetrievalMode.QUALITY else done
    try:
        return replace(done, candidates=await _rerank(sem, query, listed))
    except (SemanticError, TimeoutError) as exc:
        log.warning("reranking skipped: %s", _code(exc))
        return replace(done, ran=replace(done.ran, fallback="reranker_failed"))


async def _bounded(db: Database, sem: Semantics, query: SearchQuery, filters: Filters,
                   now_ms: int, fusion: Fusion
                   ) -> tuple[vector.Found | BaseException, LexicalResult | BaseException,
                              _Resolution]:
    """The vector search and the lexical search with the gate's depth applied to the fused
    scores (worker/recall/fused_depth.py): the lexical search waits for the vector hits
    between its two passes, and resolves them."""
    search = asyncio.ensure_future(_search(sem, query, filters))
    await asyncio.sleep(0)  # the search starts, and asks for the embedding, first
    resolution = _Resolution(db, sem, query, filters, now_ms, search)
    try:
        found: LexicalResult | BaseException = await lexical.retrieve(
            db, query, filters, now_ms,
            semantic=Semantic(fusion, sem.embedder.model, resolution.facts))
    except Exception as exc:
        found = exc
    except BaseException:  # cancelled: so is the search (as gather would)
        search.cancel()
        raise
    try:
        hits: vector.Found | BaseException = await search
    except Exception as exc:
        hits = exc
    return hits, found, resolution


# The modes whose lists are fused by rank: their scores say nothing of how far apart two
# units are, so a share of one lends nothing measured (shared/rank/adjacency.py; on the dev
# set and mixed-vault's tune split, hybrid nDCG@10 fell 0.941 → 0.930 and 0.787 → 0.780
# with it).
RANK_FUSED = frozenset({RetrievalMode.HYBRID})


def lending(policy: RecallPolicy, found: Retrieved) -> RecallPolicy:
    """The policy as it applies to `found`: no score lent between adjacent units of a list
    fused by rank."""
    if found.ran.mode in RANK_FUSED and policy.adjacent_share:
        return replace(policy, adjacent_share=0.0)
    return policy


# The modes whose lists the embedders' confidence models were fitted on: adaptive's
# blend, which quality mode reranks. Hybrid fuses by rank, whose scores the fit never saw.
FITTED_MODES = frozenset({RetrievalMode.ADAPTIVE, RetrievalMode.QUALITY})


def gauge(found: Retrieved, semantics: Semantics | None) -> Gauge:
    """What the gate weighs `found` with: the confidence model of the embedder whose
    vectors were fused in, else the lexical one (shared/rank/confidence.py). In a mode
    the model was not fitted on (hybrid), search keeps no related floor: it lists every
    hit, as it did before the floor (tests/e2e/test_modes_http.py)."""
    mode = found.ran.mode
    fused = semantics is not None and mode is not RetrievalMode.LEXICAL
    model = Gauge.model_of(semantics.embedder.model if fused and semantics else None)
    if fused and mode not in FITTED_MODES:
        model = replace(model, related_floor=0.0)
    lex = found.lexical
    return Gauge(model, lex.query.terms, lex.idf, lex.docs, found.exact)

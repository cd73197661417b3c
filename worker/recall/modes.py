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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from shared.rank.candidate import Candidate
from shared.rank.fusion import blend, fuse
from shared.rank.policy import Gauge, RecallPolicy
from shared.text.sanitiser import SearchQuery
from shared.text.tokenizer import fold
from worker.corpora.filters import Filters
from worker.db import Database
from worker.recall import lexical, vector
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
              vector_list: Sequence[Candidate]) -> list[Candidate]:
    """The blended list, or the lexical order when the query names its best hit exactly
    (vector-only units then follow every lexical one)."""
    blended = blend(lexical_list, vector_list)
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
    hits, lexical_found = await asyncio.gather(
        _search(sem, query, filters), lexical.retrieve(db, query, filters, now_ms),
        return_exceptions=True)
    if isinstance(lexical_found, BaseException):
        raise lexical_found
    if isinstance(hits, BaseException):
        log.warning("semantic recall stepped down to lexical: %s", _code(hits))
        lex_result = _marked(lexical_found, await vector.embedded(
            db, [c.identity.unit for c in lexical_found.candidates], sem.embedder.model))
        return Retrieved(lexical=lex_result, candidates=lex_result.candidates,
                         ran=Ran(mode=RetrievalMode.LEXICAL, fallback=_code(hits)))
    lex_result, semantic = await _resolved(db, sem, query, filters, now_ms, lexical_found,
                                           hits)
    done = Retrieved(lexical=lex_result, ran=Ran(mode=mode))
    if mode is RetrievalMode.HYBRID:
        return replace(done, candidates=fuse(lex_result.candidates, semantic))
    exact = _exact_identity(query, lex_result.candidates)
    listed = _adaptive(exact, lex_result.candidates, semantic)
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

"""Automatic recall at chat time: sanitise → retrieve → the gate → the Recall block.

Fails toward no recall: any error here is logged, the chat goes on without a block, and
the response's diagnostics carry a code (never the error's text).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

from shared.api.errors import QueryTooLong
from shared.block.envelope import Injected, build_recall_block, with_excerpts
from shared.knowledge.standing import stand
from shared.rank.candidate import Candidate
from shared.rank.confidence import ConfidenceModel
from shared.rank.feedback import query_hash
from shared.rank.policy import (
    AUTOMATIC,
    Decision,
    Gauge,
    RecallPolicy,
    judge,
    lexical_pass_floor,
)
from shared.text.dialogue import dialogue_act
from shared.text.matcher import with_terms
from shared.text.sanitiser import Mode, build_query
from shared.time.zones import UTC_ZONE, Zone
from worker.corpora.filters import Filters
from worker.db import Database
from worker.db.planned import run
from worker.recall.depth import holds
from worker.recall.echoes import SHOWN_KEY, shown_plan, without_echoes
from worker.recall.feedback import apply_feedback, judged_rows
from worker.recall.feedback import plan as feedback_plan
from worker.recall.lexical import LexicalResult
from worker.recall.modes import Retrieved, gauge, retrieve
from worker.recall.neighbours import with_turns
from worker.recall.retrieval_mode import Ran, RetrievalMode
from worker.recall.salience import salient_text
from worker.recall.timeframe import TimeScope, scope_of, within
from worker.recall.together import with_competitors
from worker.semantic.semantics import Semantics

log = logging.getLogger("mallory.recall")
# A message that names only a time ("what did I do yesterday?") recalls what is dated then
# when the span is at most this many days: a day's or a week's notes are an answer, a
# year's newest three are not.
TIMELINE_MAX_DAYS = 7
# RecallInfo.skipped while memory is paused (worker/store/pause.py): recall never ran.
PAUSED = "paused"


@dataclass(frozen=True, kw_only=True)
class Gated:
    # What the search that decided retrieved: the query as searched, the mode that ran.
    found: Retrieved
    hits: list[Candidate]
    skipped: str | None = None  # "social" or "meta": the message asks nothing of memory
    time: TimeScope | None = None  # the time the message named, and whether it was applied
    # Every candidate of the search that decided, with the gate's decision on it (what
    # the inspector shows), and the confidence model that weighed them.
    decisions: tuple[Decision, ...] = ()
    model: ConfidenceModel | None = None


@dataclass(frozen=True, kw_only=True)
class Recall:
    gated: Gated | None = None  # None: recall failed before the gate decided (`error`)
    block: str = ""
    injected: list[Injected] = field(default_factory=list)
    error: str | None = None  # a diagnostic code: query_too_long, recall_failed

    @property
    def ran(self) -> Ran:
        return self.gated.found.ran if self.gated else Ran()

    @property
    def skipped(self) -> str | None:
        return self.gated.skipped if self.gated else None

    @property
    def time(self) -> TimeScope | None:
        return self.gated.time if self.gated else None


async def candidates(db: Database, text: str, now_ms: int, *,
                     exclude_ids: tuple[str, ...] = (), conversation_id: str | None = None,
                     text_is_stored: bool = False, policy: RecallPolicy = AUTOMATIC,
                     semantics: Semantics | None = None,
                     mode: RetrievalMode = RetrievalMode.LEXICAL,
                     scope: TimeScope | None = None,
                     every_row: bool = False) -> tuple[Retrieved, str]:
    """Everything automatic recall retrieved for `text`, before the gate, with the
    message's dialogue act (nothing is retrieved for a social or meta message).
    `text_is_stored`: the text is already a stored message (the chat path). `scope`: only
    within this time (worker/recall/timeframe.py). The owner's feedback reorders them, and
    drops what was judged irrelevant for this very query (worker/recall/feedback.py).
    Their matched terms are left to the gate, which needs them for few of them.

    When the lexical gate will decide (no semantic retrieval), rows it could pass none of
    are not made candidates (shared.rank.policy.lexical_pass_floor); in either case, nor
    are groups sure to rank past the gate's depth (worker/recall/depth.py,
    fused_depth.py); `every_row` keeps them, for a sweep of the gate's own knobs
    (bench.gate_curve)."""
    query = scope.query if scope else build_query(text, Mode.AUTOMATIC)
    act = dialogue_act(query.text)
    if act != "request":
        return Retrieved(lexical=LexicalResult(query=query), ran=Ran(mode=mode)), act
    filters = Filters(limit=policy.candidates, exclude_message_ids=exclude_ids,
                      conversation_id=conversation_id,
                      exclude_recent_turns=policy.exclude_recent_turns,
                      query_text_is_indexed=text_is_stored)
    if not every_row and (semantics is None or mode is RetrievalMode.LEXICAL):
        filters = replace(filters, score_floor=lexical_pass_floor(policy),
                          standing_ceiling=policy.standing.ceiling,
                          standing=policy.standing, depth=policy.depth)
    elif not every_row:
        # A semantic mode: no floor (the semantic model weighs rows the lexical one would
        # not pass), the depth bound on the fused scores (worker/recall/fused_depth.py).
        filters = replace(filters, standing=policy.standing, depth=policy.depth)
    while True:
        if scope:
            found = await within(db, scope, filters, now_ms, mode, TIMELINE_MAX_DAYS)
        else:
            found = await retrieve(db, semantics, query, filters, now_ms, mode)
        left = found.lexical.cut
        # What the answers among them were shown and the owner's judgments of them, in
        # one D1 batch (a round trip each at the edge; bench.d1_reads counts them).
        read = await run(db, [*shown_plan(db, found.candidates), *feedback_plan(found.candidates)])
        echoless, sure = await without_echoes(db, found.candidates,
                                              left.groups if left else (),
                                              shown_rows=read.get(SHOWN_KEY, []))
        judged = await apply_feedback(db, echoless, now_ms, suppress_for=query_hash(text),
                                      rows=judged_rows(read))
        scored = stand(judged, query, policy.standing)
        if sure and holds(scored, left, filters.depth):
            break
        # Echoes or the owner's feedback dropped what the depth bound counted on.
        filters = replace(filters, depth=0)
    return replace(found, candidates=scored), act


async def gated(db: Database, text: str, now_ms: int, *, exclude_ids: tuple[str, ...] = (),
                conversation_id: str | None = None, text_is_stored: bool = False,
                policy: RecallPolicy = AUTOMATIC, semantics: Semantics | None = None,
                mode: RetrievalMode = RetrievalMode.LEXICAL, zone: Zone = UTC_ZONE,
                every_row: bool = False) -> Gated:
    """What automatic recall would inject for `text` (no hits when none is reliable): the
    gate's hits, with the notes their conflict relations reach beside them. A time the
    message names restricts recall to it, unless nothing there passes the gate: then it
    recalls as if no time were named (unless it names only a time). `every_row`: see
    `candidates` (the inspector shows every row; the hits are the same)."""
    scope = scope_of(text, Mode.AUTOMATIC, now_ms, zone)
    kwargs: dict[str, Any] = {"exclude_ids": exclude_ids, "conversation_id": conversation_id,
              "text_is_stored": text_is_stored, "policy": policy, "semantics": semantics,
              "mode": mode, "every_row": every_row}
    if scope is not None:
        found, act = await candidates(db, text, now_ms, scope=scope, **kwargs)
        measure = gauge(found, semantics)
        decisions, hits = (await decide(db, found, policy, measure, now_ms)
                           if act == "request" else ([], []))
        # A message that names only a time asks about that time: with nothing there, the
        # time words themselves are no query ("anything from yesterday?" recalled notes
        # that say "yesterday").
        if hits or act != "request" or scope.query.is_empty:
            return Gated(found=found, hits=hits, skipped=None if hits else act, time=scope,
                         decisions=tuple(decisions), model=measure.model)
        scope = replace(scope, applied=False)
    found, act = await candidates(db, text, now_ms, **kwargs)
    if act != "request":
        return Gated(found=found, hits=[], skipped=act, time=scope)
    measure = gauge(found, semantics)
    decisions, hits = await decide(db, found, policy, measure, now_ms)
    return Gated(found=found, hits=hits, time=scope, decisions=tuple(decisions),
                 model=measure.model)


async def decide(db: Database, found: Retrieved, policy: RecallPolicy, measure: Gauge,
                 now_ms: int) -> tuple[list[Decision], list[Candidate]]:
    """The gate's decision on every candidate (shared.rank.policy.judge), and its hits
    with the notes their conflict relations reach beside them, each with its estimate."""
    decisions = judge(found.candidates, policy, measure)
    chosen = [d.candidate for d in decisions if d.chosen]
    hits = await with_competitors(db, chosen, found.candidates, found.lexical.query, policy,
                                  now_ms)
    return decisions, with_terms(hits, found.lexical.query.terms)


async def gate(db: Database, found: Retrieved, policy: RecallPolicy, measure: Gauge,
               now_ms: int) -> list[Candidate]:
    """The gate's hits (bench.gate_curve sweeps the model's threshold here)."""
    return (await decide(db, found, policy, measure, now_ms))[1]


async def automatic_recall(db: Database, text: str, now_ms: int, *, message_id: str,
                           conversation_id: str, semantics: Semantics | None = None,
                           mode: RetrievalMode = RetrievalMode.LEXICAL,
                           zone: Zone = UTC_ZONE) -> Recall:
    try:
        text = await salient_text(db, text)  # a long message: what matters in it
        found = await gated(db, text, now_ms, exclude_ids=(message_id,),
                            conversation_id=conversation_id, text_is_stored=True,
                            semantics=semantics, mode=mode, zone=zone)
    except QueryTooLong:
        log.info("no recall for message %s: the text is over the query length", message_id)
        return Recall(error=QueryTooLong.code)
    except Exception:  # recall must never break the chat
        log.exception("recall failed for message %s", message_id)
        return Recall(error="recall_failed")
    hits = found.hits
    try:
        hits = await with_turns(db, hits)
    except Exception:  # the replies and turns around are a bonus: recall what we have
        log.exception("could not load replies or turns around recalled messages")
    block, injected = build_recall_block(with_excerpts(hits, found.found.lexical.query.terms))
    return Recall(gated=found, block=block, injected=injected)

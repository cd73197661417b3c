"""Echoes and bare questions in recall (shared/rank/echoes.py judges them).

Automatic recall leaves out a bare question, every echo, and a message a saved memory
among them was saved from: the note, the past message or the memory itself is recalled
in its place, on its own evidence (it still says what the answer quoted, or the answer
would have been withdrawn: worker/store/citations.py). Explicit search keeps both, below
what they repeat: an echo just under its best source, a bare question, and an echo whose
sources were not found, at BARE_QUESTION_WEIGHT of its score.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from shared.knowledge.roles import SAVED_MEMORY_ROLE
from shared.rank.candidate import Candidate
from shared.rank.echoes import answer_id, bare_question, echo
from worker.corpora.conversations import SAVED_MEMORIES_ID
from worker.db import Database
from worker.db.planned import Planned
from worker.db.port import Row
from worker.store.chats import shown_from, shown_to, shown_to_statement
from worker.store.memories import saved_from, saved_sources

BARE_QUESTION_WEIGHT = 0.5
BELOW = 0.99  # an echo's score as a share of its best source's


# An echo's sources as keys of the candidates that hold them: ("note", its group) for a
# note, ("message", its id) for a past message (a conversation unit holds its turns).
Source = tuple[str, str]


def _holds(cand: Candidate) -> set[Source]:
    if cand.identity.kind == "note":
        return {("note", cand.identity.group)}
    if cand.identity.kind == "message":
        return {("message", m) for m in cand.identity.covers or (cand.identity.id,)}
    return set()


def _answers(candidates: Sequence[Candidate]) -> dict[int, str]:
    """The candidates that hold an answer of Mallory's: index → the answer's id."""
    return {i: a for i, c in enumerate(candidates) if c.identity.kind == "message"
            and (a := answer_id(c)) is not None}


# The plan's key of what the candidates' answers were shown (worker/recall/automatic.py
# batches it with the feedback's reads).
SHOWN_KEY = ("shown", "answers", 0)


def shown_plan(db: Database, candidates: Sequence[Candidate]) -> list[Planned]:
    """The statement reading what the candidates' answers were shown (none without one)."""
    ids = sorted(set(_answers(candidates).values()))
    return [Planned.of(SHOWN_KEY, shown_to_statement(db, ids))] if ids else []


async def _judged(db: Database, candidates: Sequence[Candidate],
                  shown_rows: Sequence[Row] | None = None
                  ) -> tuple[set[int], dict[int, set[Source]]]:
    """The indexes of bare questions, and of echoes with the sources they repeat.
    `shown_rows`: what `shown_plan`'s statement read for these candidates, or None to read
    it here."""
    answers = _answers(candidates)
    if shown_rows is not None:
        shown = shown_from(shown_rows)
    else:
        shown = await shown_to(db, sorted(set(answers.values()))) if answers else {}
    bare = {i for i, c in enumerate(candidates) if bare_question(c)}
    echoes = {i: {("note", n) for n in shown[a].notes}
              | {("message", m) for m in shown[a].messages}
              for i, a in answers.items() if echo(candidates[i], shown.get(a))}
    return bare, echoes


async def without_echoes(db: Database, candidates: Sequence[Candidate],
                         unbuilt: Collection[tuple[str, str]] = (),
                         shown_rows: Sequence[Row] | None = None
                         ) -> tuple[list[Candidate], bool]:
    """Automatic recall's candidates without bare questions, echoes, or messages a saved
    memory among them was saved from; and whether that is what every row built would
    leave (`unbuilt`: (kind, group) of the groups the gate's depth left out,
    worker/recall/depth.py). It is not when a kept message may be what a saved memory the
    depth left out was saved from: whether that memory was retrieved is known only once
    its rows are built.

    An echo is left out whether or not its sources are among the candidates: it adds
    nothing to them, so what it could give, they give, on their own evidence. Leaving it
    only where a source was retrieved let an echo pass where its note did not (a
    conversation unit's bar is lower than a note's), and a re-asked question then cited
    the echo, the next round the echo of the echo. `shown_rows`: see `_judged`."""
    bare, echoes = await _judged(db, candidates, shown_rows)
    saved = await _saved_from(db, candidates)
    out = [c for i, c in enumerate(candidates)
           if i not in bare and i not in echoes
           and not (c.identity.kind == "message" and saved & set(c.identity.covers))]
    sure = True
    if any(kind == "message" and group == SAVED_MEMORIES_ID for kind, group in unbuilt):
        # A saved memory the depth left out may stand for a message that was built.
        covers = sorted({m for c in out if c.identity.kind == "message"
                         for m in c.identity.covers})
        sure = not (covers and await saved_sources(db, covers))
    return out, sure


async def _saved_from(db: Database, candidates: Sequence[Candidate]) -> set[str]:
    """The messages that saved memories among the candidates were saved from: the memory,
    the fact as the owner approved it, is recalled in their place (the same fact twice was
    injected)."""
    saved = [c.identity.id for c in candidates
             if c.identity.kind == "message" and c.identity.knowledge_role == SAVED_MEMORY_ROLE]
    return await saved_from(db, saved) if saved else set()


async def behind_echoes(db: Database, candidates: Sequence[Candidate]) -> list[Candidate]:
    """Explicit search's candidates, echoes and bare questions ranked below what they
    repeat."""
    bare, echoes = await _judged(db, candidates)
    best: dict[Source, float] = {}
    for i, c in enumerate(candidates):
        if i in echoes:
            continue  # an echo is not the source of another echo's standing
        for key in _holds(c):
            best[key] = max(best.get(key, 0.0), c.scores.final)
    out = []
    for i, c in enumerate(candidates):
        if i in bare:
            c = replace(c, scores=replace(c.scores,
                                          standing=c.scores.standing * BARE_QUESTION_WEIGHT))
        top = max((best[k] for k in echoes.get(i, ()) if k in best), default=None)
        if top is not None and c.scores.final >= top and c.scores.final:
            below = c.scores.standing * BELOW * top / c.scores.final
            c = replace(c, scores=replace(c.scores, standing=below))
        elif i in echoes and top is None:
            # Its sources were not found: it holds what a question with no answer holds.
            c = replace(c, scores=replace(c.scores,
                                          standing=c.scores.standing * BARE_QUESTION_WEIGHT))
        out.append(c)
    return out

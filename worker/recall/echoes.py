"""Echoes and bare questions in recall (shared/rank/echoes.py judges them).

Automatic recall leaves out a bare question, an echo whose sources are among the
candidates, and a message a saved memory among them was saved from: the note, the past
message or the memory itself is recalled in its place (it still says what the answer
quoted, or the answer would have been withdrawn: worker/store/citations.py). Explicit
search keeps both, below what they repeat: an echo just under its best source, a bare
question at BARE_QUESTION_WEIGHT of its score.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from shared.knowledge.roles import SAVED_MEMORY_ROLE
from shared.rank.candidate import Candidate
from shared.rank.echoes import Shown, answer_id, bare_question, echo
from worker.corpora.conversations import SAVED_MEMORIES_ID
from worker.db import Database
from worker.store.chats import shown_to
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


async def _judged(db: Database, candidates: Sequence[Candidate]
                  ) -> tuple[set[int], dict[int, set[Source]], dict[int, frozenset[str]]]:
    """The indexes of bare questions, of echoes with the sources they repeat, and of
    echoes of past messages with the conversations those are in."""
    answers = {i: a for i, c in enumerate(candidates) if c.identity.kind == "message"
               and (a := answer_id(c)) is not None}
    shown: dict[str, Shown] = await shown_to(db, sorted(set(answers.values()))) \
        if answers else {}
    bare = {i for i, c in enumerate(candidates) if bare_question(c)}
    echoes = {i: {("note", n) for n in shown[a].notes}
              | {("message", m) for m in shown[a].messages}
              for i, a in answers.items() if echo(candidates[i], shown.get(a))}
    quoted_in = {i: shown[answers[i]].conversations for i in echoes}
    return bare, echoes, quoted_in


async def without_echoes(db: Database, candidates: Sequence[Candidate],
                         unbuilt: Collection[tuple[str, str]] = ()
                         ) -> tuple[list[Candidate], bool]:
    """Automatic recall's candidates without bare questions, nor echoes of a note or past
    message that is itself a candidate, or of a note that was retrieved and not built
    (`unbuilt`: (kind, group) of the groups the gate's depth left out,
    worker/recall/depth.py), nor messages a saved memory among them was saved from; and
    whether that is what every row built would leave. It is not when a kept echo quotes a
    message of a conversation the depth left out, or a kept message may be what a saved
    memory the depth left out was saved from: whether that message or memory was retrieved
    is known only once its rows are built."""
    bare, echoes, quoted_in = await _judged(db, candidates)
    held = [_holds(c) for c in candidates]
    present = set().union(*held) if held else set()
    present.update(("note", group) for kind, group in unbuilt if kind == "note")
    left_out = {group for kind, group in unbuilt if kind == "message"}
    saved = await _saved_from(db, candidates)
    out, sure = [], True
    for i, c in enumerate(candidates):
        if i in bare or (c.identity.kind == "message" and saved & set(c.identity.covers)):
            continue
        if (echoes.get(i, set()) - held[i]) & present:
            continue
        if quoted_in.get(i, frozenset()) & left_out:
            sure = False
        out.append(c)
    if SAVED_MEMORIES_ID in left_out and sure:
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
    bare, echoes, _ = await _judged(db, candidates)
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
        out.append(c)
    return out

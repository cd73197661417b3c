""""Why these memories" for one of Mallory's answers (README, "Why these memories").

What the answer was given and what it cited are read as stored with it: the notes of
message_citations and the messages of message_quotes (every hit injected, cited or not,
recorded in the answer's own batch by worker/turn.py), and the Sources it keeps with the
[n] markers of its text. Scores and the gate's reasons are not stored (a chat turn would
write ~60 rows for a panel few open): they come from automatic recall re-run for the
question, scored as of the moment it was asked, over memory as it is now, with the
question and its answer left out as they were. The trace says so (`replayed`), marks
what was written after the question, and whether the replay injects what the answer
was given.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.api.errors import BadRequest, NotFound
from shared.api.owner_requests import stored_time_zone
from shared.api.wire import Source
from shared.block.citations import guard_citations
from shared.rank.candidate import Candidate
from shared.time.zones import Zone, pick_zone
from worker.db import Database
from worker.inspect.trace import Trace, recall_trace
from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.semantics import Semantics
from worker.store import inspected
from worker.store.chats import Message, get_message
from worker.store.inspected import Injected


@dataclass(frozen=True)
class AnswerTrace:
    trace: Trace  # the replay
    question: Message
    answer: Message
    injected: list[Injected]  # as stored with the answer
    cited: list[Source]  # the sources its [n] markers cite
    shown: list[Source]  # its footer: the cited ones and the notes they compete with

    def was_injected(self, cand: Candidate) -> bool:
        return any(same(i.kind, i.id, i.vault, cand) for i in self.injected)

    def was_cited(self, cand: Candidate) -> int | None:
        """Its source number in the answer, when the answer cites it."""
        return next((s.n for s in self.cited if same(s.kind, s.id, None, cand)), None)

    def replay_matches(self) -> bool:
        """The replay's hits are what the answer was given: each stored item is one of
        them, and each holds a stored item."""
        hits = [e.candidate for e in self.trace.entries if e.hit]
        return (all(any(same(i.kind, i.id, i.vault, h) for h in hits) for i in self.injected)
                and all(any(same(i.kind, i.id, i.vault, h) for i in self.injected)
                        for h in hits))

    def after_question(self, cand: Candidate) -> bool:
        """Dated after the question was asked: a message then could not have been
        recalled (a note may have changed since)."""
        return cand.identity.timestamp_ms > self.question.created_at


def same(kind: str, item_id: str, vault: str | None, cand: Candidate) -> bool:
    """`cand` holds the stored item: a note (in `vault`, when known), or a message (a
    conversation unit holds its question and its reply)."""
    return (kind == cand.identity.kind and item_id in (cand.identity.covers or (cand.identity.id,))
            and (vault is None or vault == cand.identity.vault))


async def _pair(db: Database, message_id: str) -> tuple[Message, Message]:
    row = await inspected.pair(db, message_id)
    if row is None:
        raise NotFound(f"no message with id {message_id[:80]!r}; it may have been forgotten")
    if row["other_id"] is None:
        what = ("it has no answer yet" if row["role"] == "user"
                else "no owner's message comes before it")
        raise BadRequest(f"message {message_id[:80]!r} is not part of a question and its "
                         f"answer: {what}", code="not_an_answer")
    mine, _ = await get_message(db, message_id)
    other, _ = await get_message(db, str(row["other_id"]))
    return (mine, other) if mine.role == "user" else (other, mine)


async def answer_trace(db: Database, message_id: str, *, semantics: Semantics | None,
                       mode: RetrievalMode, owner_zone: str,
                       zone: Zone | None = None) -> AnswerTrace:
    """The trace of the answer `message_id` (or of the answer to the owner's message
    `message_id`)."""
    question, answer = await _pair(db, message_id)
    if question.withdrawn or answer.withdrawn:
        raise BadRequest("that answer was withdrawn (something it was given has been "
                         "forgotten or changed): nothing of it is kept to inspect",
                         code="withdrawn")
    row = await inspected.pair(db, question.id)
    stored_zone = stored_time_zone(row["context"] if row else None)
    trace = await recall_trace(
        db, question.content, question.created_at, exclude_ids=(question.id, answer.id),
        conversation_id=question.conversation_id, text_is_stored=True,
        semantics=semantics, mode=mode, zone=zone or pick_zone(owner_zone, stored_zone))
    cited = guard_citations(answer.content, answer.sources)[1]
    return AnswerTrace(trace, question, answer, await inspected.injected(db, answer.id),
                       cited, answer.sources)

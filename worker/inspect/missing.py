""""Why is this missing" (README, "Why these memories"): for a note (vault and path) or a
message, where it stood in a search or an answer's recall, and what left it out.

Among the candidates, the policy's own decision says it (shared.rank.policy.judge).
Otherwise the note or message is looked up: not stored (forgotten, deleted, never
synced), withdrawn, or stored with no unit matching any query term; or its best unit
ranks below the rows recall reads; or it matched but left before the gate (a time the
query named, an echo, a 👎 for this question).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from shared.api.errors import BadRequest
from shared.text.matcher import matched_terms
from worker.corpora import registry
from worker.corpora.base import rows_read
from worker.corpora.conversations import MESSAGE_COLUMNS
from worker.corpora.filters import Filters
from worker.corpora.notes import NOTE_COLUMNS
from worker.db import Database
from worker.db.port import Value
from worker.inspect.answer import same
from worker.inspect.trace import Entry, Trace
from worker.store import inspected, vaults
from worker.store.inspected import message_probe_sql, note_probe_sql

NOTE_PROBE_SQL = note_probe_sql(NOTE_COLUMNS)
MESSAGE_PROBE_SQL = message_probe_sql(MESSAGE_COLUMNS)

# What left a note or message out when the policy never saw it, in words (the gate's own
# rules are shared.rank.policy.REASONS).
ABSENT: Mapping[str, str] = {
    "not_stored": "no message has this id: it was forgotten, or never stored",
    "deleted": "the note was deleted from its vault (the sync of {0} removed it)",
    "not_synced": "no note at this path in vault {0!r} has reached Mallory: not synced yet, "
                  "or the path is misspelt",
    "withdrawn": "the message was withdrawn (something it was given was since forgotten or "
                 "changed): it is never recalled",
    "incognito": "it was written in an incognito conversation, which never becomes "
                 "memory: nothing of it is indexed or recalled",
    "not_indexed": "it has no searchable unit yet (nothing of it is indexed, or it was "
                   "written while memory was paused)",
    "the_question": "it is the question being answered, which recall never returns",
    "no_query_term": "not retrieved at all: no query term in it (searched: {0})",
    "no_terms": "the query has no search terms (only stopwords), so nothing was retrieved",
    "beyond_candidates": "its best unit ranks {0} of the {1} units the query matches, and "
                         "recall reads the first {2} of its corpus",
    "before_gate": "it matched (its best unit ranks {0} of {1}) but left before the gate: "
                   "outside the time the query named, an echo of a note, the same "
                   "conversation's recent turns, or a 👎 for this question",
}


@dataclass(frozen=True)
class Target:
    kind: str  # "note" or "message"
    id: str  # a note's path, a message's id
    vault: str | None = None  # notes: the vault's name


@dataclass(frozen=True)
class Unit:
    """The target's best-matching unit, as the lexical index ranks it."""

    heading: str
    text: str
    lexical_rank: int  # among every unit of its corpus the query matches
    matching: int  # how many those are
    terms: frozenset[str]  # the query terms (FTS form) it matches


@dataclass(frozen=True)
class Missing:
    target: Target
    status: str  # "hit" (not missing), "left_out" (a candidate the policy refused), "absent"
    rule: str  # a key of shared.rank.policy.REASONS, or of ABSENT
    reason: str
    entry: Entry | None = None  # its best candidate, when it was one
    unit: Unit | None = None
    label: str | None = None  # the note's title, the conversation's
    args: tuple[object, ...] = field(default=(), repr=False)


async def why_missing(db: Database, trace: Trace, target: Target, read: Filters,
                      question_id: str | None = None) -> Missing:
    """`read`: the filters' depth the search read each corpus to (rows_read);
    `question_id`: the answer's question, for an answer's trace."""
    found = [e for e in trace.entries if same(target.kind, target.id, target.vault,
                                              e.candidate)]
    if found:
        best = next((e for e in found if e.hit), found[0])
        return Missing(target, "hit" if best.hit else "left_out", best.verdict.rule,
                       best.verdict.reason, entry=best, label=best.candidate.identity.label)
    label, absent = await _state(db, target, question_id)
    if absent is not None:
        return _absent(target, str(absent[0]), absent[1:], label=label)
    if not trace.query.terms:
        return _absent(target, "no_terms", (), label=label)
    unit = await _best_unit(db, trace, target)
    if unit is None:
        return _absent(target, "no_query_term",
                       (", ".join(" ".join(t.tokens) for t in trace.query.terms),),
                       label=label)
    reads = rows_read(registry.by_kind(target.kind), read)
    if unit.lexical_rank > reads:
        return _absent(target, "beyond_candidates", (unit.lexical_rank, unit.matching, reads),
                       unit=unit, label=label)
    return _absent(target, "before_gate", (unit.lexical_rank, unit.matching), unit=unit,
                   label=label)


def _absent(target: Target, rule: str, args: tuple[object, ...], *,
            unit: Unit | None = None, label: str | None = None) -> Missing:
    return Missing(target, "absent", rule, ABSENT[rule].format(*args), unit=unit,
                   label=label, args=args)


async def _state(db: Database, target: Target, question_id: str | None
                 ) -> tuple[str | None, tuple[object, ...] | None]:
    """The target's label, and why it cannot be retrieved at all (a rule and its
    arguments), if it cannot."""
    return await KINDS[target.kind].state(db, target, question_id)


async def _message_state(db: Database, target: Target, question_id: str | None
                         ) -> tuple[str | None, tuple[object, ...] | None]:
    if target.id == question_id:
        return None, ("the_question",)
    row = await inspected.message_state(db, target.id)
    if row is None:
        return None, ("not_stored",)
    if row["incognito"]:  # not even its conversation's title (its first words)
        return None, ("incognito",)
    label = str(row["title"])
    if row["withdrawn_at"] is not None:
        return label, ("withdrawn",)
    return label, (("not_indexed",) if not row["units"] else None)


async def _note_state(db: Database, target: Target, question_id: str | None
                      ) -> tuple[str | None, tuple[object, ...] | None]:
    row = await _note_row(db, target)
    if row["note_rid"] is None:
        if row["deleted_at"] is not None:
            day = datetime.fromtimestamp(int(row["deleted_at"]) / 1000, UTC).date()
            return None, ("deleted", day.isoformat())
        return None, ("not_synced", target.vault)
    label = str(row["title"])
    return label, (("not_indexed",) if not row["units"] else None)


async def _note_row(db: Database, target: Target) -> dict[str, Any]:
    row = await inspected.note_state(db, str(target.vault), target.id)
    if row is None:
        known = await vaults.names(db)
        raise BadRequest(f"vault: no vault is named {str(target.vault)[:200]!r}; known "
                         f"vaults: {', '.join(map(repr, known)) or 'none yet'}")
    return row


async def _note_key(db: Database, target: Target) -> Value:
    rid: Value = (await _note_row(db, target))["note_rid"]
    return rid


async def _message_key(db: Database, target: Target) -> Value:
    return target.id


@dataclass(frozen=True)
class Kind:
    """How a target of one kind is looked up: its state, and its best unit's probe (the
    SQL and what it binds as ?2)."""

    state: Callable[[Database, Target, str | None],
                    Awaitable[tuple[str | None, tuple[object, ...] | None]]]
    probe_sql: str
    probe_key: Callable[[Database, Target], Awaitable[Value]]


KINDS: Mapping[str, Kind] = {
    "note": Kind(_note_state, NOTE_PROBE_SQL, _note_key),
    "message": Kind(_message_state, MESSAGE_PROBE_SQL, _message_key),
}


async def _best_unit(db: Database, trace: Trace, target: Target) -> Unit | None:
    kind = KINDS[target.kind]
    found = await inspected.probe(db, kind.probe_sql, trace.query.match,
                                  await kind.probe_key(db, target))
    if found is None:
        return None
    text = str(found["text"] or "")
    return Unit(heading=str(found["heading"] or ""), text=text,
                lexical_rank=int(found["lexical_rank"]), matching=int(found["matching"]),
                terms=matched_terms(trace.query.terms, [text]))

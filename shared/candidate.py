"""The typed candidate: one retrieved unit on its way from a retriever through fusion and
the gate to the Recall block.

Internal only. What a client sees (`SearchHit`, `Source`) is rendered from it at the edge
(worker/views.py), so fields such as `fuzzy` or `reply` never leak into the public JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["note", "message"]
Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: Kind
    id: str  # a note's path in its vault, a message's id
    group: str  # hits are de-duplicated per group: the note (vault and path), or the conversation
    relevance: float  # in [0, 1]: the share of the query's BM25 ceiling (shared.ranking)
    boost: float  # recency multiplier, >= 1
    timestamp_ms: int
    label: str
    href: str
    text: str = ""  # the text snippets are cut from
    snippet: str = ""  # cut from `text` around the query's words, for the final hits only
    # Short named fields that can match the query besides the text (title, tags...), for
    # match reasons and matched terms.
    fields: tuple[tuple[str, str], ...] = ()
    terms: frozenset[str] = field(default_factory=frozenset)  # matched query terms (FTS form)
    fuzzy: bool = False  # matched only through a spelling correction (shared.fuzzy)
    vault: str | None = None  # notes: the vault's name
    vid: int | None = None  # notes: the vault's key in D1 (names need not be unique)
    conversation_id: str | None = None
    role: Role | None = None
    reply: str | None = None  # Mallory's reply to a recalled owner message

    @property
    def score(self) -> float:
        return self.relevance * self.boost

"""The typed candidate: one retrieved unit on its way from a retriever through fusion and
the gate to the Recall block.

Internal only. What a client sees (`SearchHit`, `Source`) is rendered from it at the edge
(worker/views.py), so fields such as `fuzzy` or `reply` never leak into the public JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from shared.knowledge.relations import Direction
from shared.knowledge.roles import KnowledgeRole, Status

# The corpus's kind of hit: "note", "message", or a registered corpus's
# (shared/rank/kinds.py).
Kind = str
Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class Link:
    """A typed relation between two recalled notes, as one of them sees it."""

    type: str  # shared.knowledge.relations type name
    direction: Direction  # "out": this note declared it; "in": the other one did
    other: str  # the other note's group (its vault and path)


@dataclass(frozen=True, slots=True)
class Turn:
    """A message next to a conversation hit's unit, shown with it in the Recall block."""

    id: str
    role: Role
    text: str
    before: bool  # it comes before the unit (else after it)


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """Which unit it is and where it links: set by its corpus (worker/corpora/),
    never changed on the way."""

    kind: Kind
    id: str  # a note's path in its vault, a message's id
    group: str  # hits are de-duplicated per group: the note (vault and path), or the conversation
    # The retrieval unit (a note section, a conversation unit): the key that lexical and
    # vector lists are fused on.
    unit: str = ""
    label: str
    href: str
    timestamp_ms: int
    # Every stored item this unit holds (a conversation unit: its question and its reply),
    # the primary `id` first.
    covers: tuple[str, ...] = ()
    vault: str | None = None  # notes: the vault's name
    vid: int | None = None  # notes: the vault's key in D1 (names need not be unique)
    heading: str = ""  # a note section's heading ("" for a note's start or a message)
    conversation_id: str | None = None
    role: Role | None = None
    # The knowledge model (shared/knowledge/roles.py): notes carry what their frontmatter
    # says, past conversations are evidence.
    knowledge_role: KnowledgeRole | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NoteFacts:
    """What a note states about itself and its relations (empty for a message)."""

    status: Status | None = None
    related: bool = False  # a typed relation, effective, starts or ends here
    # Relations to other hits shown with this one (contradictions together).
    links: tuple[Link, ...] = ()
    # The keys of its title, file name and aliases as stored at sync
    # (shared/knowledge/names.py); None: made from its fields when needed.
    name_keys: frozenset[str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageFacts:
    """The conversation around a recalled message (empty for a note)."""

    reply: str | None = None  # Mallory's reply to a recalled owner message
    asked: str | None = None  # the owner's question a recalled reply of Mallory's answers
    # The turns around a recalled conversation unit, in conversation order
    # (worker/recall/neighbours.py).
    around: tuple[Turn, ...] = ()
    # The unit's place in its conversation: the seq of its first message (None: unknown).
    seq: int | None = None
    # The adjacent unit's turns this hit brings as part of itself, in conversation order:
    # the exchange ran over the units' edge (shared/rank/partners.py).
    partner: tuple[Turn, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Scores:
    """Every stage's measure, from the retrievers through fusion, reranking and standing."""

    relevance: float  # in [0, 1]: the share of the query's BM25 ceiling (shared.rank.scoring)
    boost: float  # recency multiplier, >= 1
    cosine: float | None = None  # similarity of the query's embedding (semantic recall)
    # No vector of the current model yet (written moments ago, still being embedded):
    # the lexical evidence is all there is, and it is judged as such (worker/recall/modes.py).
    pending: bool = False
    lexical_rank: int | None = None  # 1-based rank in the lexical list, if in it
    vector_rank: int | None = None  # 1-based rank in the vector list, if in it
    fused: float | None = None  # reciprocal-rank fusion of the lists (shared.rank.fusion)
    rerank: float | None = None  # a cross-encoder's score, when one reranked the list
    # P(relevant) by the gate's confidence model (shared/rank/confidence.py), once weighed.
    confidence: float | None = None
    standing: float = 1.0  # the bounded multiplier of shared/knowledge/standing.py
    # The owner's feedback on this document: a delta within ±0.02 (shared/rank/feedback.py),
    # which `standing` includes (shared/knowledge/standing.py).
    feedback: float = 0.0
    # A share of the best adjacent retrieved unit's score, added to this one's (explicit
    # search: shared/rank/adjacency.py).
    adjacent: float = 0.0

    def fused_as(self, lexical_rank: int | None, vector_rank: int | None,
                 cosine: float | None, fused: float) -> Scores:
        """These scores with fusion's fields set (shared/rank/fusion.py), made in one
        construction: `replace` twice per unit was most of fusion's Python time
        (bench.latency --profile: ~470 calls per hybrid recall at 100k messages + 10k
        notes). tests/shared/rank/test_fusion.py holds that every field is carried."""
        return Scores(relevance=self.relevance, boost=self.boost, cosine=cosine,
                      pending=self.pending, lexical_rank=lexical_rank,
                      vector_rank=vector_rank, fused=fused, rerank=self.rerank,
                      confidence=self.confidence, standing=self.standing,
                      feedback=self.feedback, adjacent=self.adjacent)

    @property
    def own(self) -> float:
        """The reranker's, else the fused, else the lexical relevance, times recency and
        standing (which holds the owner's feedback)."""
        base = self.rerank if self.rerank is not None else (
            self.fused if self.fused is not None else self.relevance)
        return base * self.boost * self.standing

    @property
    def final(self) -> float:
        """What lists are ordered by: `own`, plus what an adjacent unit lends."""
        return self.own + self.adjacent


@dataclass(frozen=True, slots=True, kw_only=True)
class Presentation:
    """What the hit shows and what of the query it matched."""

    text: str = ""  # the text snippets are cut from
    snippet: str = ""  # cut from `text` around the query's words, for the final hits only
    # Short named fields that can match the query besides the text (title, tags...), for
    # match reasons and matched terms.
    fields: tuple[tuple[str, str], ...] = ()
    terms: frozenset[str] = field(default_factory=frozenset)  # matched query terms (FTS form)
    fuzzy: bool = False  # matched only through a spelling correction (shared.text.spelling)

    def with_terms(self, terms: frozenset[str]) -> Presentation:
        """This presentation with `terms`, constructed rather than `replace`d (the gate
        sets the matched terms of every slot holder it weighs: shared.rank.evidence)."""
        return Presentation(text=self.text, snippet=self.snippet, fields=self.fields,
                            terms=terms, fuzzy=self.fuzzy)


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A stage changes the one group it writes: `replace(c, scores=replace(c.scores, ...))`."""

    identity: Identity
    scores: Scores
    presentation: Presentation = Presentation()
    note: NoteFacts = NoteFacts()
    message: MessageFacts = MessageFacts()

    def with_scores(self, scores: Scores) -> Candidate:
        """This candidate with `scores`, constructed rather than `replace`d (see
        Scores.fused_as)."""
        return Candidate(identity=self.identity, scores=scores,
                         presentation=self.presentation, note=self.note,
                         message=self.message)

    def with_presentation(self, presentation: Presentation) -> Candidate:
        """This candidate with `presentation`, constructed (see `with_scores`)."""
        return Candidate(identity=self.identity, scores=self.scores,
                         presentation=presentation, note=self.note, message=self.message)

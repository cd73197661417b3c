"""Public JSON shapes the Worker sends: search hits, footer sources, and every route's
response.

Rendered from internal candidates only at the edge (worker/views.py); every field here is
documented in the README's API table, and nothing internal (spelling-guess flags,
attached replies, raw scores of one retriever) appears.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared.rank.candidate import Role
from shared.rank.feedback import Judgment

# A hit's kind: its corpus's ("note", "message"; shared/rank/kinds.py).
HitKindName = Annotated[str, Field(description="the kind of hit: note, message, or a "
                                               "registered corpus's")]


class SearchHit(BaseModel):
    kind: HitKindName
    id: str  # a note's path in its vault, a message's id
    label: str
    snippet: str
    highlights: list[tuple[int, int]] = Field(default_factory=list)  # spans in `snippet`
    href: str
    timestamp: str  # ISO 8601, UTC
    score: float  # relevance × recency: what the list is ordered by
    relevance: float  # in [0, 1]: how much of the query this hit matches
    # P(relevant) by the gate's calibrated model (shared/rank/confidence.py); null when
    # the hit was not weighed.
    confidence: float | None = None
    reasons: list[str] = Field(default_factory=list)
    vault: str | None = None  # notes: the vault's name
    heading: str | None = None  # notes: the heading of the section that matched
    conversation_id: str | None = None  # messages: their conversation
    # notes: a status worth noticing ("draft", "deprecated", "stale"; shared/knowledge/labels.py)
    standing: str | None = None


class Source(BaseModel):
    """A cited source, stored with the assistant message and shown in the footer."""

    n: int
    kind: HitKindName
    id: str
    label: str  # a section hit: "Note › Heading"
    snippet: str
    href: str
    # Its standing, when there is something to notice: "draft", "deprecated — superseded
    # by [2]", "stable — contradicts [1]" (shared/knowledge/labels.py). Absent in answers stored
    # before standings were recorded.
    standing: str | None = None
    # The gate's estimate that it answers the question (shared/rank/confidence.py).
    # Absent in answers stored before estimates were recorded.
    confidence: float | None = None
    # Under shared.rank.policy.LESS_CERTAIN: the footer lists it apart, as less certain.
    less_certain: bool = False


# The responses of every route, as worker/views.py renders them and the hub reads them
# (hub/client.py). They document the API (GET /openapi.json, worker/openapi/);
# tests/worker/test_openapi.py checks real answers against them. Their schemas are closed,
# so an undocumented field fails there, but reading ignores fields it does not know: a hub
# keeps working against a newer Worker that answers more.
class Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})


Iso = Annotated[str, Field(description="ISO 8601 in UTC, e.g. 2026-05-28T09:30:00Z")]


class ErrorInfo(Wire):
    code: str = Field(description="machine-readable, e.g. not_found, invalid_payload")
    message: str = Field(description="what went wrong and what to do about it")
    details: Any = Field(default=None, description="per-item problems, when there are any "
                         "(a 422 lists {item, field, message} for every invalid field)")


class ErrorResponse(Wire):
    """Every error, whatever its status."""

    error: ErrorInfo


class MessageOut(Wire):
    id: str
    conversation_id: str
    seq: int = Field(description="1, 2, ... within the conversation")
    role: Role
    content: str
    sources: list[Source] = Field(description="the sources an answer cites ([] for the "
                                  "owner's messages)")
    judgments: dict[str, Judgment] = Field(
        description="the owner's 👍/👎 on this answer's sources, by source number "
        "(POST /api/feedback); {} when none")
    withdrawn: bool = Field(description="an answer withdrawn because something it was given "
                            "has since been forgotten: its content and sources are removed")
    created_at: Iso


class TimeInfo(Wire):
    """The time a query named ("last week", "in March"), read in the owner's zone."""

    expression: str = Field(description="the words that named it")
    from_: str = Field(alias="from", description="first day, ISO date, inclusive")
    to: str = Field(description="last day, ISO date, inclusive")
    timezone: str = Field(description="the IANA zone the days were read in")
    timezone_fallback: str | None = Field(description="why the zone is not the one asked "
                                          "for (an unknown zone), else null")
    applied: bool = Field(description="recall kept to these days; false when nothing "
                          "dated then was found and it searched all time")


class RecallInfo(Wire):
    injected: int = Field(description="hits put into the model's context")
    error: str | None = Field(description="a diagnostic code (query_too_long, "
                              "recall_failed) when recall failed and the chat went on without")
    mode: str = Field(description="the retrieval mode that ran")
    fallback: str | None = Field(description="why it stepped down from the mode asked for")
    skipped: str | None = Field(description="paused: memory is paused; social or meta: "
                                "the message asks nothing of memory; so nothing was "
                                "recalled")
    time: TimeInfo | None = Field(description="the time the message named, if any")


class ChatResponse(Wire):
    conversation_id: str
    proposed_memory: str | None = Field(description="the fact a \"Remember that …\" "
                                        "message asks to save, for the owner to confirm or "
                                        "edit (POST /api/memories); nothing is saved yet")
    incognito: bool = Field(description="the conversation never becomes memory: nothing "
                            "of it is indexed or recalled")
    user_message: MessageOut
    assistant_message: MessageOut
    recall: RecallInfo


class SearchResponse(Wire):
    query: str = Field(description="the normalised text")
    terms: list[str] = Field(description="the FTS terms searched; [] when only stopwords "
                             "were typed")
    corrections: dict[str, str] = Field(description="typed word → index term, for "
                                        "spelling corrections")
    mode: str
    fallback: str | None
    time: TimeInfo | None = Field(description="the time the query named, if any")
    hits: list[SearchHit]


class JudgedSource(Wire):
    kind: HitKindName
    id: str
    label: str


class FeedbackRecorded(Wire):
    message_id: str
    n: int = Field(description="the source number judged")
    judgment: Judgment
    source: JudgedSource
    recorded_at: Iso


class ConversationOut(Wire):
    id: str
    title: str
    created_at: Iso
    updated_at: Iso = Field(description="last activity (renaming is not activity)")
    message_count: int
    incognito: bool = Field(description="never becomes memory: nothing of it is indexed "
                            "or recalled")


class ConversationsPage(Wire):
    conversations: list[ConversationOut] = Field(description="most recently active first")
    next_before: str | None = Field(description="pass as ?before= for the next page; null "
                                    "on the last")


class MessagesPage(Wire):
    messages: list[MessageOut] = Field(description="newest first")
    next_before: int | None = Field(description="pass as ?before= for the next page; null "
                                    "on the last")


class MessageLookup(Wire):
    message: MessageOut
    conversation_id: str
    newer_count: int = Field(description="messages after this one in its conversation")


class Forgotten(Wire):
    id: str = Field(description="the message or conversation forgotten")
    conversation_id: str
    messages_deleted: int
    citations_removed: int = Field(description="citations of it removed from the Sources "
                                   "of the messages that stay")
    answers_withdrawn: int = Field(description="answers given with it in view (recalled "
                                   "into them, the reply to a forgotten owner message, and "
                                   "answers that quoted those, to any depth), withdrawn: they "
                                   "stay in their conversations with their text removed")
    withdrawn_ids: list[str] = Field(description="the ids of those answers")


class Renamed(Wire):
    id: str
    title: str
    created_at: Iso
    updated_at: Iso


class VaultSummary(Wire):
    id: str | None
    name: str
    seq: int = Field(description="the last sync sequence handed out")
    notes: int
    checksum: int = Field(description="order-independent digest of (path, content hash) "
                          "pairs (shared/api/vault_digest.py)")
    last_sync_at: Iso | None
    last_contact_at: Iso | None


class Contact(Wire):
    worker_id: str = Field(description="random, created once in D1: a new id means another "
                           "or a reset database")
    adopted: bool = Field(description="a vault synced before vault ids was adopted")
    vault: VaultSummary


class ManifestNote(Wire):
    path: str
    content_hash: str
    mtime: int
    seq: int


class Manifest(Wire):
    vault: VaultSummary
    notes: list[ManifestNote]
    next_after: str | None = Field(description="pass as ?after= for the next page")


class Corpora(Wire):
    notes: int
    messages: int
    sections: int
    exchanges: int


class VaultStatus(Wire):
    id: str | None
    name: str
    notes: int
    last_sync_at: Iso | None
    last_contact_at: Iso | None
    rejected: int = Field(description="pages the last run could not send")
    staleness_seconds: int | None
    stale: bool
    legacy: bool = Field(description="synced before vault ids, not adopted by a hub yet")


class EmbedderInfo(Wire):
    model: str
    dimensions: int
    reachable: bool = Field(True, description="it embedded a probe just now; false: recall "
                            "steps down to lexical (`error` says why)")
    error: str | None = Field(None, description="why it does not answer, when it does not")


class RerankerInfo(Wire):
    model: str


class VectorsInfo(BaseModel):
    """Open, like Retrieval."""

    model_config = ConfigDict(extra="allow")
    indexed: int = Field(description="vectors of the current model")
    pending: int = Field(description="units without a vector yet")
    stale: int = Field(description="vectors of another model or size, re-embedded as "
                       "indexing runs")
    model: str | None = Field(description="the model most vectors were made with")


class IndexingInfo(BaseModel):
    """Open, like Retrieval."""

    model_config = ConfigDict(extra="allow")
    behind: bool = Field(description="units are waiting for a vector")
    pending: int = Field(description="units without a vector")
    running: bool = Field(description="an indexing run is under way")
    rate_per_s: float | None = Field(description="units embedded per second, when this "
                                     "process has measured it")
    eta_s: int | None = Field(description="seconds left at that rate")


class Retrieval(BaseModel):
    """Open: later Workers report more about the retrieval stack than these fields."""

    model_config = ConfigDict(extra="allow")
    mode: str = Field(description="the retrieval mode search and recall use")
    configured: str | None = Field(default=None, description="RETRIEVAL_MODE, or null")
    embedder: EmbedderInfo | None = None
    reranker: RerankerInfo | None = None
    vectors: VectorsInfo | None = Field(default=None, description="null without an "
                                        "embedder")
    indexing: IndexingInfo | None = Field(default=None, description="how far behind vector "
                                          "indexing is; null without an embedder")
    notes: list[str] = Field(default_factory=list, description="why retrieval is not what "
                             "was configured, in words")


class MemoryOut(Wire):
    id: str = Field(description="the saved memory's id (its message's)")
    fact: str
    href: str = Field(description="/?msg=<id>: where recall's links to it point")
    source_message_id: str | None = Field(description="the message it was saved from; "
                                          "null when saved directly or that was forgotten")
    source_href: str | None
    created_at: Iso


class MemoriesPage(Wire):
    memories: list[MemoryOut] = Field(description="newest first")


class MemoryEdited(Wire):
    memory: MemoryOut = Field(description="the corrected fact, under a new id")
    withdrawn_ids: list[str] = Field(description="answers given with the old fact in "
                                     "view, withdrawn with it")


class MemoryState(Wire):
    paused: bool = Field(description="memory is paused: no automatic recall, nothing "
                         "written is indexed until it resumes")
    paused_at: Iso | None = Field(description="since when")


class PauseResult(MemoryState):
    indexed: int = Field(description="messages written while paused that resuming "
                         "indexed now (0 when pausing)")


class StatusResponse(Wire):
    schema_version: str | None = Field(description="the last migration applied")
    migrations_applied: int | None
    corpora: Corpora
    conversations: int
    last_sync_at: Iso | None
    last_contact_at: Iso | None
    staleness_seconds: int | None = Field(description="since the stalest vault's last hub "
                                          "contact; null when a vault never synced")
    sync_interval_seconds: int
    stale: bool
    model_provider: str
    retrieval: Retrieval
    memory: MemoryState
    vaults: list[VaultStatus]


# The retrieval inspector (README, "Why these memories"): every candidate a search or an
# answer's recall weighed, the policy's decision on each, and for a named note or message
# why it is missing.
class GateDecision(Wire):
    passed: bool = Field(description="the rule let it through (a hit, unless the limit "
                         "was reached)")
    rule: str = Field(description="which rule decided: confident, unconfident, "
                      "relevance_floor, depth, listed, unrelated, group_taken, partnered, "
                      "fuzzy_only, max_hits, together")
    reason: str = Field(description="the same in words, with the figures it decided on")


class ConfidenceGate(Wire):
    model: str = Field(description="the confidence model that weighed the candidates: "
                       "the embedder's, or the lexical one")
    threshold: float = Field(description="automatic recall injects a hit whose estimate "
                             "reaches this, unless its kind has a threshold of its own")
    kind_thresholds: dict[str, float] = Field(
        default_factory=dict, description="the threshold of each kind of hit that has its "
        "own (note, message), chosen apart on tuning data")
    related_floor: float = Field(description="search lists a hit only the vector list "
                                 "holds when its estimate reaches this")


class InspectedCandidate(Wire):
    kind: HitKindName
    id: str = Field(description="a note's path in its vault, a message's id")
    label: str
    href: str
    vault: str | None
    heading: str | None
    conversation_id: str | None
    timestamp: Iso
    snippet: str
    matched_terms: list[str] = Field(description="the query's terms it holds")
    rank: int | None = Field(description="its place in the merged list; null when a better "
                             "unit of its note or conversation took the slot")
    score: float = Field(description="what the list is ordered by")
    relevance: float = Field(description="BM25 as a share of the query's ceiling, in [0, 1]")
    lexical_rank: int | None = Field(description="1-based, in the lexical list, when two "
                                      "lists were fused (lexical mode: `rank` is it)")
    cosine: float | None = Field(description="the query's embedding against the unit's")
    vector_rank: int | None = Field(description="1-based, in the vector list")
    fused: float | None = Field(description="the lists fused (hybrid) or blended (adaptive)")
    rerank: float | None = Field(description="the reranker's score, when one ran")
    recency: float = Field(description="the recency multiplier (≥ 1)")
    standing: float = Field(description="the bounded standing multiplier (0.90–1.10), "
                            "the owner's feedback included")
    feedback: float = Field(description="the owner's feedback's share of standing")
    pending: bool = Field(description="no vector yet: judged on its lexical evidence")
    fuzzy: bool = Field(description="matched only through a spelling correction")
    confidence: float | None = Field(description="P(relevant) by the confidence model; "
                                     "null when it was not weighed")
    decision: GateDecision
    hit: bool = Field(description="in the result: the search's hits, or the recall block")
    injected: bool | None = Field(description="answers: the answer was given it (as "
                                  "stored with the answer); null for a search")
    cited: int | None = Field(description="answers: its [n] in the answer, when cited")
    after_question: bool | None = Field(description="answers: dated after the question "
                                        "was asked (a message then did not exist yet)")


class StoredItem(Wire):
    kind: HitKindName
    id: str
    vault: str | None


class AnswerInspected(Wire):
    answer_id: str
    question_id: str
    question: str = Field(description="the owner's message the answer replies to")
    asked_at: Iso
    injected: list[StoredItem] = Field(description="what recall gave the answer, as stored "
                                       "with it (message_citations, message_quotes)")
    cited: list[Source] = Field(description="the sources its [n] markers cite")
    replayed: bool = Field(description="true: candidates, scores and decisions come from "
                           "recall re-run for the question, not from the time it was asked")
    replay: str = Field(description="what the replay is, in words")
    replay_matches: bool = Field(description="the replay injects what the answer was given")


class InspectResponse(Wire):
    subject: Literal["search", "answer"]
    policy: Literal["explicit", "automatic"]
    query: str = Field(description="the normalised text searched")
    terms: list[str] = Field(description="the FTS terms searched (spelling corrections "
                             "applied)")
    corrections: dict[str, str]
    mode: str = Field(description="the retrieval mode that ran")
    fallback: str | None
    skipped: str | None = Field(description="social or meta: recall skipped the message")
    time: TimeInfo | None
    gate: ConfidenceGate
    hits: int = Field(description="candidates in the result")
    candidates: list[InspectedCandidate] = Field(description="in list order; hits brought "
                                                 "along by a relation last")
    answer: AnswerInspected | None = Field(description="for an answer: what is stored "
                                           "with it; null for a search")


class MissingUnit(Wire):
    heading: str | None
    snippet: str
    lexical_rank: int = Field(description="among every unit of its corpus the query matches")
    matching: int = Field(description="how many units of its corpus the query matches")
    matched_terms: list[str]


class MissingResponse(Wire):
    subject: Literal["search", "answer"]
    query: str
    mode: str
    target: StoredItem
    label: str | None = Field(description="the note's title, or the conversation's")
    status: Literal["hit", "left_out", "absent"] = Field(
        description="hit: not missing; left_out: a candidate the policy refused; absent: "
        "never a candidate")
    rule: str = Field(description="the rule that left it out (GateDecision.rule), or why "
                      "it was never a candidate: not_stored, deleted, not_synced, withdrawn, "
                      "incognito, not_indexed, the_question, no_terms, no_query_term, "
                      "beyond_candidates, before_gate")
    reason: str
    candidate: InspectedCandidate | None = Field(description="its best candidate, when it "
                                                 "was one")
    unit: MissingUnit | None = Field(description="its best-matching unit, when it was "
                                     "never a candidate but matches the query")

"""Recall policies: which candidates, if any, reach the owner (explicit search) or the
model's context (automatic recall). Every constant of both policies lives here.

Precision first for automatic recall: unrelated memory in a conversation is a bug, while
"no reliable memory" is a normal answer. Explicit search is recall-first: the owner asked
and reads the list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from shared.rank.adjacency import lent
from shared.rank.candidate import Candidate
from shared.rank.confidence import ConfidenceModel, model_for
from shared.rank.confidence_models import LEXICAL, MODELS
from shared.rank.evidence import Assessed, assess
from shared.rank.feedback import FEEDBACK_MAX
from shared.rank.partners import Joined, with_partners
from shared.rank.scoring import ranked_in_groups
from shared.text.sanitiser import Term


@dataclass(frozen=True)
class StandingWeights:
    """The bounded ranking adjustments of docs/design.md ("Ranking
    bounds"): one multiplier, 1 + the sum of the deltas that apply, clamped to
    [floor, ceiling] (shared/knowledge/standing.py)."""

    identity: float  # the query names the note: its title, file name or an alias
    stable_canonical: float  # a canonical note with status stable
    evidence: float  # an evidence note (a source, a clipping, a daily note)
    conversation: float  # a past conversation (evidence too, ranked on its own scale)
    deprecated: float  # status deprecated
    feedback: float  # the most the owner's feedback may move a document, either way
    floor: float
    ceiling: float


# The design's starting values (docs/design.md), each measured by bench.standing (README,
# "Notes that know their standing": on mixed-vault's tune split each moves about one query
# either way; on the dev set, which has no typed notes, none moves anything). One change,
# measured: the design ranks vault pages only, and its evidence −0.02 applied to past
# conversations too cost a chat answer its injected slot on the tune split (hit@3
# 0.870 → 0.859, auto hit rate 0.761 → 0.750) and gained nothing. Conversations stay
# evidence (labels, bundles) with a delta of 0.
STANDING = StandingWeights(identity=0.05, stable_canonical=0.03, evidence=-0.02,
                           conversation=0.0, deprecated=-0.08, feedback=FEEDBACK_MAX,
                           floor=0.90,
                           ceiling=1.10)
# No adjustment at all: the ranking before standings (benchmarks and ablations).
NEUTRAL = StandingWeights(identity=0.0, stable_canonical=0.0, evidence=0.0, conversation=0.0,
                          deprecated=0.0, feedback=0.0, floor=1.0, ceiling=1.0)


@dataclass(frozen=True)
class RecallPolicy:
    name: str
    candidates: int  # fetched per corpus before fusion and the gate
    max_hits: int
    per_group: Mapping[str, int]  # hits per note, per conversation (by kind)
    # Weighed by the lexical model alone, a hit's BM25 relevance must reach this: rows
    # under it are not made candidates (lexical_pass_floor).
    min_relevance: float
    trust_fuzzy: bool  # may a hit that matched only through a spelling guess pass?
    # Automatic recall: a hit passes when its estimate reaches the model's threshold.
    # Explicit search lists every hit but those only the vector list holds whose estimate
    # is under the model's related floor.
    by_confidence: bool
    depth: int  # candidates holding a slot that get an estimate, best first
    exclude_recent_turns: int = 0  # turns of the current conversation already in context
    standing: StandingWeights = STANDING
    # Competing claims together (memory bundles, docs/design.md): follow a recalled note's conflict
    # relations one hop and show both notes, within max_hits.
    together: bool = False
    # A conversation hit brings the adjacent unit of its conversation, when that was
    # retrieved too, as part of itself (shared/rank/partners.py).
    partners: bool = False
    # Each conversation unit gains this share of its best adjacent retrieved unit's score
    # (shared/rank/adjacency.py).
    adjacent_share: float = 0.0


# The lexical pre-gate of automatic recall (see RecallPolicy.min_relevance): of the 575
# tuning rows the lexical model passes, the least relevant has 0.151 (the 1st percentile
# 0.211), so rows under 0.15 are never made candidates (bench.confidence_fit's rows).
MIN_RELEVANCE = 0.15
# Automatic recall weighs the first GATE_DEPTH candidates that hold a slot: of those 575
# rows, 548 rank first and none ranks past 6th.
GATE_DEPTH = 10

# An injected hit estimated under this is shown apart in the Sources footer, as less
# certain: out of fold, hits estimated 0.5-0.7 were relevant 0.49-0.74 of the time on the
# vault sets and 0.35-0.58 on LoCoMo, those over 0.8 0.83-0.97 on the vault sets
# (bench.confidence_fit's reliability tables).
LESS_CERTAIN = 0.7

AUTOMATIC = RecallPolicy(
    name="automatic",
    candidates=20,
    # dev set: 3 instead of 4 raised the precision of what is injected from 0.61 to 0.69
    # at the same hit rate.
    max_hits=3,
    per_group={"note": 1, "message": 1},
    min_relevance=MIN_RELEVANCE,
    trust_fuzzy=False,
    by_confidence=True,
    depth=GATE_DEPTH,
    # The model already sees these turns of the conversation (worker/turn.py sends them).
    exclude_recent_turns=10,
    together=True,
    partners=True,
)

# Explicit search: what a conversation unit borrows of its best adjacent unit's score.
# LoCoMo samples 0–4, owner's view (bench.locomo), turn Recall@10 / nDCG@10 at 0 → 0.3:
# lexical 0.704 / 0.554 → 0.726 / 0.571, adaptive 0.730 / 0.576 → 0.773 / 0.596; a replay
# of the candidate lists put 0.25–0.4 on a plateau. mixed-vault tune nDCG@10 lexical
# 0.809 → 0.813, adaptive 0.877 unchanged; dev unchanged (hybrid: worker/recall/modes.py).
ADJACENT_SHARE = 0.3

# Explicit search reads at least this many hits' worth of conversation rows, whatever its
# limit (worker/corpora/base.rows_read): a shorter list is the head of the same ranking,
# not a ranking of fewer candidates (a unit's neighbour past the limit still lends it its
# share). LoCoMo samples 0–4, owner's view, adaptive, at the web client's and the API's
# limit of 10, turn Recall@10 / nDCG@10 at a pool of 10 | 12 | 15 | 20 | 30: 0.755 / 0.589
# | 0.765 / 0.593 | 0.769 / 0.595 | 0.773 / 0.596 | 0.775 / 0.597. Notes lend nothing:
# their rows stay at the limit (their pool doubled too cost explicit search about 3 ms
# more CPU at 100k messages + 10k notes).
EXPLICIT_POOL = 20

EXPLICIT = RecallPolicy(
    name="explicit",
    candidates=EXPLICIT_POOL,
    max_hits=10,
    # One hit per note: its best section. No cap per conversation (with
    # exchanges none should be needed). Explicit nDCG@10 / Recall@20, and the same for the
    # conversation category, at a cap of 1 | 2 | none per conversation:
    #   dev lexical:    .906/.936 (.682/.667) | .929/.969 (.877/.950) | .930/.975 (.887/1.0)
    #   dev adaptive:   .940/.960 (.682/.733) | .960/.986 (.851/.950) | .964/.992 (.881/1.0)
    #   tune lexical:   .807/.884 (.774/.852) | .809/.890 (.779/.889) | as 2
    #   tune adaptive:  .878/.943 (.851/.963) | .880/.950 (.857/1.0)  | as 2
    # (tune: mixed-vault's tune split.) Against 2, no cap moves one dev query (d040 gains
    # its third exchange: nDCG@10 .905 → .956 lexical, .777 → .930 adaptive) and one tune
    # query by −0.002.
    per_group={"note": 1},
    min_relevance=0.0,
    trust_fuzzy=True,
    by_confidence=False,
    depth=50,
    adjacent_share=ADJACENT_SHARE,
)
EXPLICIT_MAX_LIMIT = 50

# The design's bundle rule (at most one canonical page and two evidence excerpts per
# automatic bundle): what a recalled note may bring along through its conflict
# relations. A second canonical claim is a bundle of its own, kept next to the first.
BUNDLE_MAX_CANONICAL = 1
BUNDLE_MAX_EVIDENCE = 2


# The gate's rules, each a stable code (the inspector shows them: README, "Why these
# memories") and its reason in words, filled with the figures it decided on. Formatted only
# when read: the gate runs for every candidate of every recall.
REASONS: Mapping[str, str] = {
    "fuzzy_only": "it matched only through a spelling guess, which {0} recall never trusts",
    "confident": "its estimated relevance {0:.2f} reaches the threshold {1:.2f} ({2} model)",
    "unconfident": "its estimated relevance {0:.2f} is under the threshold {1:.2f} ({2} "
                   "model)",
    "relevance_floor": "relevance {0:.3f} is under {1:.2f}, which the lexical model never "
                       "passes",
    "depth": "only the first {0} candidates are weighed",
    "listed": "it is among the search's hits",
    "unrelated": "only the vector list holds it, and its estimated relevance {0:.2f} is "
                 "under the floor {1:.2f}: related at most",
    "group_taken": "its {0}'s slot is taken by a better hit ({1!r}, score {2:.3f}): one per "
                   "{0}",
    "max_hits": "it would pass ({0.reason}), but {1} recall takes at most {2} hits",
    "partnered": "it is part of the hit of the adjacent unit of {0!r} (score {1:.3f}): "
                 "the exchange runs over both",
    # Not the gate's own: a chosen note brings a competing claim along (worker/recall/together.py).
    "together": "brought along beside a recalled note it competes with (a contradicts, "
                "supersedes or qualifies relation), within the hit limit",
}


# What one hit per group means, in the words of "group_taken".
GROUP_WORDS: Mapping[str, str] = {"note": "note", "message": "conversation"}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's decision on one hit: the rule that made it (a key of REASONS) and the
    figures that rule decided on."""

    passed: bool
    rule: str
    args: tuple[object, ...] = ()

    @property
    def reason(self) -> str:
        return REASONS[self.rule].format(*self.args)


@dataclass(frozen=True, slots=True)
class Gauge:
    """What the gate weighs one recall's candidates with: the confidence model of the
    embedder whose vectors were fused in (the lexical one otherwise) and the query's
    statistics (worker/recall/modes.Retrieved)."""

    model: ConfidenceModel
    terms: tuple[Term, ...]
    idf: Mapping[str, Mapping[str, float]]
    docs: Mapping[str, int]
    exact: bool = False

    @staticmethod
    def model_of(embedder: str | None) -> ConfidenceModel:
        """The model for this embedder's vectors (None: no vectors were fused in)."""
        return model_for(MODELS, LEXICAL, embedder)


def verdict(cand: Candidate, policy: RecallPolicy, confidence: float | None,
            model: ConfidenceModel) -> Verdict:
    """The gate for one hit (its rank condition aside), given its estimate (None: it was
    beyond the depth weighed)."""
    s = cand.scores
    if cand.presentation.fuzzy and not policy.trust_fuzzy:
        return Verdict(False, "fuzzy_only", (policy.name,))
    if not policy.by_confidence:
        if s.lexical_rank is None and s.vector_rank is not None and model.related_floor > 0:
            # Only the vector list holds it: listed when its estimate shows it related. One
            # ranked past the depth weighed has none, and ranks under weighed ones that
            # may all have been refused; listing it would pad a search for a word nowhere
            # in memory with whatever is nearest (tests/e2e/test_unknown_word_search_http.py).
            if confidence is None:
                return Verdict(False, "depth", (policy.depth,))
            if confidence < model.related_floor:
                return Verdict(False, "unrelated", (confidence, model.related_floor))
        return Verdict(True, "listed")
    if not model.model_prefixes and s.relevance < policy.min_relevance:
        return Verdict(False, "relevance_floor", (s.relevance, policy.min_relevance))
    if confidence is None:
        return Verdict(False, "depth", (policy.depth,))
    bar = model.threshold_for(cand.identity.kind)
    ok = confidence >= bar
    return Verdict(ok, "confident" if ok else "unconfident", (confidence, bar, model.name))


def lexical_pass_floor(policy: RecallPolicy) -> float:
    """The least score a candidate that the lexical model may pass can have: its relevance
    reaches min_relevance, recency never lowers a score and standing lowers it at most to
    its floor. A row whose best possible score is below this can change nothing `select`
    returns: it cannot pass, and a group it tops holds no row that could (the lexical
    retriever builds no candidate for it)."""
    return policy.min_relevance * policy.standing.floor


@dataclass(frozen=True, slots=True)
class Decision:
    """One candidate as the policy saw it (with its estimate, when it was weighed): its
    place in the merged list (`rank`, 1-based; None when its group's slot was taken) and
    the verdict."""

    candidate: Candidate
    verdict: Verdict
    rank: int | None
    chosen: bool  # among the hits `select` returns

    @property
    def confidence(self) -> float | None:
        """The model's estimate (None: not weighed)."""
        return self.candidate.scores.confidence


def partnered(candidates: Sequence[Candidate], policy: RecallPolicy, gauge: Gauge
              ) -> tuple[list[Candidate], list[Joined]]:
    """The candidates with adjacent conversation units joined when the policy joins them
    (shared/rank/partners.py), and the units so joined."""
    if not policy.partners:
        return list(candidates), []
    return with_partners(candidates, gauge.terms)


def assessed(candidates: Sequence[Candidate], policy: RecallPolicy, gauge: Gauge
             ) -> tuple[list[tuple[Candidate, Candidate | None]], dict[int, Assessed]]:
    """The merged list (shared.rank.scoring.ranked_in_groups) of the candidates, partners
    joined (`partnered`), and, by position in it, the first `policy.depth` candidates
    holding a slot with their features."""
    return _weighed(partnered(candidates, policy, gauge)[0], policy, gauge)


Slotted = tuple[list[tuple[Candidate, Candidate | None]], list[int]]


def slotted(pool: Sequence[Candidate], policy: RecallPolicy) -> Slotted:
    """The merged list (shared.rank.scoring.ranked_in_groups) of the pool, adjacent units'
    shares lent, and the positions in it of the candidates holding a slot."""
    ranked = ranked_in_groups(lent(pool, policy.adjacent_share), policy.per_group)
    return ranked, [i for i, (_, taken) in enumerate(ranked) if taken is None]


def weighed(slots: Slotted, policy: RecallPolicy, gauge: Gauge) -> dict[int, Assessed]:
    """By position in the merged list, the first `policy.depth` slot holders with their
    features: what the estimate adds to the slotting (bench.latency, `estimate`)."""
    ranked, holders = slots
    found = assess([ranked[i][0] for i in holders], gauge.terms, gauge.idf, gauge.docs,
                   gauge.exact, policy.depth)
    return {holders[a.rank - 1]: a for a in found}


def _weighed(pool: Sequence[Candidate], policy: RecallPolicy, gauge: Gauge
             ) -> tuple[list[tuple[Candidate, Candidate | None]], dict[int, Assessed]]:
    slots = slotted(pool, policy)
    return slots[0], weighed(slots, policy, gauge)


def judge(candidates: Sequence[Candidate], policy: RecallPolicy, gauge: Gauge,
          limit: int | None = None) -> list[Decision]:
    """The policy applied to scored candidates from every retriever, every candidate with
    its decision, in list order: at most `per_group` per group, the gate (`verdict`) on
    the model's estimate, at most `limit` (default `policy.max_hits`) chosen. A candidate
    after the limit is judged by its own rules and, if it would pass, left out for the
    limit."""
    pool, joins = partnered(candidates, policy, gauge)
    ranked, weighed = _weighed(pool, policy, gauge)
    joined: dict[str, list[Joined]] = {}
    for j in joins:
        joined.setdefault(j.host.identity.unit, []).append(j)
    most = limit or policy.max_hits
    out: list[Decision] = []
    chosen = rank = 0
    for i, (cand, taken) in enumerate(ranked):
        for j in joined.get(cand.identity.unit, ()):
            out.append(Decision(j.partner, Verdict(False, "partnered", (
                cand.identity.id, cand.scores.final)), None, False))
        if taken is not None:
            out.append(Decision(cand, Verdict(False, "group_taken", (
                GROUP_WORDS[cand.identity.kind], taken.identity.label, taken.scores.final)),
                None, False))
            continue
        rank += 1
        a = weighed.get(i)
        # A unit still being embedded has only lexical evidence: the lexical model weighs it.
        model = LEXICAL if cand.scores.pending else gauge.model
        if a:
            p = model.estimate(a.features)
            cand = replace(a.candidate, scores=replace(a.candidate.scores, confidence=p))
        found = verdict(cand, policy, cand.scores.confidence, model)
        if found.passed and chosen >= most:
            found = Verdict(False, "max_hits", (found, policy.name, most))
        chosen += found.passed
        out.append(Decision(cand, found, rank, found.passed))
    return out


def select(candidates: Sequence[Candidate], policy: RecallPolicy, gauge: Gauge,
           limit: int | None = None) -> list[Candidate]:
    """The candidates `judge` chooses, in list order."""
    return [d.candidate for d in judge(candidates, policy, gauge, limit) if d.chosen]


# A chat message over the query limit recalls from its sentences that score at least this
# share of its best one (shared/text/salience.py). Not tuned on an eval set (none holds
# pasted texts): half keeps a fact's sentence and drops the filler around it in
# tests/worker/routes/test_chat.py; the owner's question usually scores highest.
LONG_MESSAGE_SENTENCE_SHARE = 0.5

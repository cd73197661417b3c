"""Recall policies: which candidates, if any, reach the owner (explicit search) or the
model's context (automatic recall). Every constant of both policies lives here.

Precision first for automatic recall: unrelated memory in a conversation is a bug, while
"no reliable memory" is a normal answer. Explicit search is recall-first: the owner asked
and reads the list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shared.rank.candidate import Candidate
from shared.rank.feedback import FEEDBACK_MAX
from shared.rank.scoring import ranked_in_groups, specificity


@dataclass(frozen=True)
class CosineBar:
    """What an embedding model's cosine must reach for the gate (measured per model: the
    scales of two models' cosines differ, so a bar never transfers between them)."""

    model_prefix: str  # matches the embedder's identity (Embedder.model)
    accept: float  # a hit this similar passes on its own
    support: float  # ... this similar passes when its BM25 relevance reaches the floor too


# Measured with bench.capture + the gate sweep on the tuning data only (dev 52 queries,
# mixed-vault tune 121, regression 41; 50 without an answer): the highest cosine any top
# hit of a query without an answer reached was 0.366; 0.38-0.45 all kept that rate at 0
# while the hit rate moved 0.939 → 0.927, so 0.42 sits mid-plateau, 0.05 above it.
# At accept 0.42 / support 0.30: FPR 0.00 (lexical gate 0.08), hit rate 0.921 (0.817).
COSINE_BARS: tuple[CosineBar, ...] = (
    CosineBar("local/all-MiniLM-L6-v2", accept=0.42, support=0.30),
)


# A query of at most NAMES_MAX_TERMS words, each found in only a handful of units (its
# specificity, shared.rank.scoring, at least NAMES_MIN_SPECIFICITY in every corpus: in 8 of
# 1,650 sections, 2 of 20), names something ("700x28c", "Osmo 3032", "the NAS"): MiniLM
# gives such strings cosines of 0.13-0.36 against the notes that hold them, so the cosine
# bar would turn them away. For these the lexical gate decides. Tuning data: hit rate
# 0.921 → 0.939 at the same false-positive rate (0.00); any bar from 0.70 to 0.75 agrees.
NAMES_MAX_TERMS = 3
NAMES_MIN_SPECIFICITY = 0.75


def names_only(terms: Sequence[str], idf: Mapping[str, Mapping[str, float]],
               docs: Mapping[str, int]) -> bool:
    """The query's terms (FTS form) are few and all rare (see NAMES_MAX_TERMS)."""
    if not terms or len(terms) > NAMES_MAX_TERMS:
        return False
    return all(specificity(by_term[t], docs[corpus]) >= NAMES_MIN_SPECIFICITY
               for corpus, by_term in idf.items() if docs.get(corpus)
               for t in terms if t in by_term)


def cosine_bar(model: str | None) -> CosineBar | None:
    """The bar measured for this embedder, or None: the gate then ignores cosines (an
    uncalibrated model, e.g. Workers AI's bge-small, which could not be measured offline)."""
    if not model:
        return None
    return next((b for b in COSINE_BARS if model.startswith(b.model_prefix)), None)


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
    min_relevance: float  # a hit's relevance (shared.rank.scoring) must reach this
    relative_floor: float  # ... and its score this fraction of the best hit's
    trust_fuzzy: bool  # may a hit that matched only through a spelling guess pass?
    exclude_recent_turns: int = 0  # turns of the current conversation already in context
    # With a cosine bar: a hit the vector list did not hold needs this relevance instead.
    lexical_only_relevance: float = 0.0
    standing: StandingWeights = STANDING
    # Competing claims together (memory bundles, docs/design.md): follow a recalled note's conflict
    # relations one hop and show both notes, within max_hits.
    together: bool = False


AUTOMATIC = RecallPolicy(
    name="automatic",
    candidates=20,
    # dev set: 3 instead of 4 raised the precision of what is injected from 0.61 to 0.69
    # at the same hit rate.
    max_hits=3,
    per_group={"note": 1, "message": 1},
    # The highest floor that kept the dev set's negative and chit-chat queries at a 0
    # false-positive rate while losing the fewest answerable queries (bench.relevance).
    min_relevance=0.30,
    # Tuning data (see COSINE_BARS): 0.75 → 0.85 raised the injected share that is
    # relevant from 0.87 to 0.94 (dev) and 0.77 to 0.81 (mixed-vault tune) with a cosine
    # bar, and cost 0.006 of hit rate (0.817 → 0.811 with the lexical gate).
    relative_floor=0.85,
    trust_fuzzy=False,
    # The model already sees these turns of the conversation (worker/turn.py sends them).
    exclude_recent_turns=10,
    # Tuning data: 0.5 kept the false-positive rate at 0 (0.3: 0.02) at the same hit rate.
    lexical_only_relevance=0.5,
    together=True,
)

EXPLICIT = RecallPolicy(
    name="explicit",
    candidates=10,
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
    relative_floor=0.0,
    trust_fuzzy=True,
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
    "relevance": "relevance {0:.3f} reaches the floor {1:.2f} (lexical gate)",
    "relevance_floor": "relevance {0:.3f} is below the floor {1:.2f} (lexical gate)",
    "pending": "it has no vector yet, so it is judged lexically: relevance {0:.3f} reaches "
               "{1:.2f}",
    "pending_floor": "it has no vector yet, so it is judged lexically: relevance {0:.3f} is "
                     "below {1:.2f}",
    "lexical_only": "the vector list did not hold it: relevance {0:.3f} reaches {1:.2f}",
    "lexical_only_floor": "the vector list did not hold it: relevance {0:.3f} is below {1:.2f}",
    "cosine": "cosine {0:.3f} reaches the bar {1:.2f}",
    "cosine_support": "cosine {0:.3f} reaches {1:.2f} and relevance {2:.3f} reaches {3:.2f}",
    "cosine_support_floor": "cosine {0:.3f} is under the bar {4:.2f}; over {1:.2f}, it needs "
                            "relevance {3:.2f}, and has {2:.3f}",
    "cosine_bar": "cosine {0:.3f} is under {1:.2f} (and the bar {2:.2f})",
    "relative_floor": "score {0:.3f} is under {1:.0%} of the best hit's {2:.3f}",
    "group_taken": "its {0}'s slot is taken by a better hit ({1!r}, score {2:.3f}): one per "
                   "{0}",
    "max_hits": "it would pass ({0.reason}), but {1} recall takes at most {2} hits",
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


def verdict(cand: Candidate, policy: RecallPolicy, bar: CosineBar | None) -> Verdict:
    """The gate for one hit (its rank condition aside). Without a bar, its BM25 relevance
    decides; with one, its cosine: similar enough on its own, or somewhat similar and
    lexically relevant; a hit the vectors did not find needs a higher relevance."""
    if cand.presentation.fuzzy and not policy.trust_fuzzy:
        return Verdict(False, "fuzzy_only", (policy.name,))
    if bar is None:
        ok = cand.scores.relevance >= policy.min_relevance
        return Verdict(ok, "relevance" if ok else "relevance_floor",
                       (cand.scores.relevance, policy.min_relevance))
    if cand.scores.cosine is None:
        # A unit still being embedded is judged as the lexical gate would judge it.
        floor = (policy.min_relevance if cand.scores.pending else
                 max(policy.lexical_only_relevance, policy.min_relevance))
        rule = "pending" if cand.scores.pending else "lexical_only"
        ok = cand.scores.relevance >= floor
        return Verdict(ok, rule if ok else rule + "_floor", (cand.scores.relevance, floor))
    if cand.scores.cosine >= bar.accept:
        return Verdict(True, "cosine", (cand.scores.cosine, bar.accept))
    if cand.scores.cosine >= bar.support:
        ok = cand.scores.relevance >= policy.min_relevance
        return Verdict(ok, "cosine_support" if ok else "cosine_support_floor",
                       (cand.scores.cosine, bar.support, cand.scores.relevance,
                        policy.min_relevance, bar.accept))
    return Verdict(False, "cosine_bar", (cand.scores.cosine, bar.support, bar.accept))


def passes(cand: Candidate, policy: RecallPolicy, bar: CosineBar | None) -> bool:
    """`verdict`'s decision alone."""
    return verdict(cand, policy, bar).passed


def lexical_pass_floor(policy: RecallPolicy) -> float:
    """The least score a candidate that passes the lexical gate (`passes` without a bar)
    can have: its relevance reaches min_relevance, recency never lowers a score and
    standing lowers it at most to its floor. A row whose best possible score is below
    this can change nothing `select` returns: it cannot pass, and a group it tops holds
    no row that could (the lexical retriever builds no candidate for it)."""
    return policy.min_relevance * policy.standing.floor


@dataclass(frozen=True, slots=True)
class Decision:
    """One candidate as the policy saw it: its place in the merged list (`rank`, 1-based;
    None when its group's slot was taken) and the verdict."""

    candidate: Candidate
    verdict: Verdict
    rank: int | None
    chosen: bool  # among the hits `select` returns


def judge(candidates: Sequence[Candidate], policy: RecallPolicy,
          limit: int | None = None, bar: CosineBar | None = None) -> list[Decision]:
    """The policy applied to scored candidates from every retriever, every candidate with
    its decision, in list order: at most `per_group` per group, the relative floor, the
    gate (`verdict`), at most `limit` (default `policy.max_hits`) chosen. A candidate
    after the limit is judged by its own rules and, if it would pass, left out for the
    limit. `bar`: the cosine bar of the embedder whose vectors were fused in, if measured."""
    ranked = ranked_in_groups(candidates, policy.per_group)
    if not ranked:
        return []
    best = next(c for c, taken in ranked if taken is None).scores.final
    most = limit or policy.max_hits
    floor = policy.relative_floor * best
    out: list[Decision] = []
    chosen = rank = 0
    for cand, taken in ranked:
        if taken is not None:
            out.append(Decision(cand, Verdict(False, "group_taken", (
                GROUP_WORDS[cand.identity.kind], taken.identity.label, taken.scores.final)),
                None, False))
            continue
        rank += 1
        if cand.scores.final < floor:
            found = Verdict(False, "relative_floor",
                            (cand.scores.final, policy.relative_floor, best))
        else:
            found = verdict(cand, policy, bar)
        if found.passed and chosen >= most:
            found = Verdict(False, "max_hits", (found, policy.name, most))
        chosen += found.passed
        out.append(Decision(cand, found, rank, found.passed))
    return out


def select(candidates: Sequence[Candidate], policy: RecallPolicy,
           limit: int | None = None, bar: CosineBar | None = None) -> list[Candidate]:
    """The candidates `judge` chooses, in list order."""
    return [d.candidate for d in judge(candidates, policy, limit, bar) if d.chosen]


# A chat message over the query limit recalls from its sentences that score at least this
# share of its best one (shared/text/salience.py). Not tuned on an eval set (none holds
# pasted texts): half keeps a fact's sentence and drops the filler around it in
# tests/worker/routes/test_chat.py; the owner's question usually scores highest.
LONG_MESSAGE_SENTENCE_SHARE = 0.5

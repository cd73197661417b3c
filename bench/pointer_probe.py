"""How far the rule that picks a conversation hit's turn can go on LoCoMo's tuning samples.

    uv run python -m bench.pointer_probe [--samples 0-4] [--mode adaptive|lexical] [--cosines]

A conversation unit holds the owner's message and Mallory's reply, and its link opens one
of them (shared.text.turns.points_at_reply). This runs explicit search over each sample's
own questions (owner's view) once, keeps what the rule was given for every unit it built
(the two turns, the query's terms and IDF weights, the speaker the query addresses), and
replays the rule on the same hits with other weights, and with two fixed choices for
reference. Each line prints bench.locomo's pointer ratio (Σ pointer nDCG@10 / Σ unit
nDCG@10: 1.0 when every hit holding one evidence turn opens it) and, of the hits among the
first 10 that hold exactly one evidence turn, how many open the other.

`--cosines` adds rules by meaning: each unit's two turns embedded apart by the local model
(as a passage, its first EMBED_CHARS characters, as the indexer embeds a unit; vectors
cached on disk), the turn closer to the query opened, alone or beyond a margin over the
shipped rule.

Only samples 0–4 (the tuning samples): 5–9 are for reporting, never for choosing a rule.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.evalset import doc_id
from bench.locomo_memory import CACHE, DEFAULT_ROOT, memory, questions, samples_arg
from bench.metrics import credited, ndcg_at
from bench.scoring import pointed
from bench.system import MODES, Hit, ModeUnavailable, build, require, turn_embedder
from shared.text import turns
from shared.text.sanitiser import Term
from worker.corpora import conversations
from worker.corpora.base import EMBED_CHARS
from worker.semantic.ports import Embedder, EmbedKind

K = 10
TUNING = range(5)
QUESTION_WEIGHTS = (0.25, 0.5, 0.75, 1.0)
ADDRESSED_WEIGHTS = (1.0, 1.25, 1.5, 2.0, 3.0)


@dataclass(frozen=True)
class Given:
    """What the rule was given for one unit: its turns' ids and texts, and the query's side
    (`query`: its text as asked)."""
    query: str
    question_id: str
    answer_id: str
    question: str
    reply: str
    terms: tuple[Term, ...]
    idf: dict[str, float]
    asks: turns.Speaker | None


@dataclass(frozen=True)
class Asked:
    judgments: dict[str, int]
    ranked: list[Hit]
    given: dict[frozenset[str], Given]  # by the unit's two doc ids


Rule = Callable[[Given], bool]


@contextmanager
def recorded(into: dict[frozenset[str], Given], query: str) -> Iterator[None]:
    """Keeps, in `into`, the first input the pipeline's turn choice gets for each unit
    while `query` is searched."""
    original = conversations._on_answer

    def spy(row: Any, s: Any) -> bool:
        q, a = str(row["question_id"] or ""), str(row["answer_id"] or "")
        if q and a:
            into.setdefault(frozenset((doc_id("message", q), doc_id("message", a))), Given(
                query, q, a, str(row["question"] or ""), str(row["answer"] or ""), tuple(s.terms),
                dict(s.idf), s.asks))
        return original(row, s)

    conversations._on_answer = spy
    try:
        yield
    finally:
        conversations._on_answer = original


def asked(samples: Sequence[int], mode: str, root: Path = DEFAULT_ROOT, cache: Path = CACHE
          ) -> list[Asked]:
    """Each sample's own questions searched, with what the turn choice was given."""
    out: list[Asked] = []
    for sample in samples:
        with memory(root, sample, cache=cache) as mem:
            system = build(mem.db, mem.now_ms, mode)
            for q in questions(root, "owner", sample, [sample]):
                given: dict[frozenset[str], Given] = {}
                with recorded(given, q.query):
                    ranked = system.ranked(q.query)
                out.append(Asked(dict(q.judgments), ranked, given))
        print(f"sample {sample}: done", file=sys.stderr, flush=True)
    return out


def replayed(a: Asked, rule: Rule) -> tuple[list[Hit], int, int]:
    """The ranked hits with each unit's link chosen by `rule`; of the first K hits holding
    exactly one evidence turn, how many there are and how many open the other."""
    hits: list[Hit] = []
    decisive = wrong = 0
    for rank, hit in enumerate(a.ranked):
        given = a.given.get(frozenset(hit)) if len(hit) == 2 else None
        if given is None:
            hits.append(hit)
            continue
        question, reply = doc_id("message", given.question_id), doc_id("message", given.answer_id)
        on_reply = rule(given)
        hits.append((reply, question) if on_reply else (question, reply))
        held = (a.judgments.get(question, 0) >= 1, a.judgments.get(reply, 0) >= 1)
        if rank < K and held[0] != held[1]:
            decisive += 1
            wrong += on_reply != held[1]
    return hits, decisive, wrong


def ratio(asked_: Sequence[Asked], rule: Rule) -> tuple[float, int, int]:
    num = den = 0.0
    decisive = wrong = 0
    for a in asked_:
        if not a.judgments:
            continue
        hits, d, w = replayed(a, rule)
        num += ndcg_at(pointed(hits), a.judgments, K)
        den += ndcg_at(credited(hits, a.judgments), a.judgments, K)
        decisive, wrong = decisive + d, wrong + w
    return (num / den if den else float("nan")), decisive, wrong


def weighted(question_weight: float, addressed_weight: float) -> Rule:
    return lambda g: turns.points_at_reply(g.question, g.reply, g.terms, g.idf, g.asks,
                                           question_weight=question_weight,
                                           addressed_weight=addressed_weight)


def cosines(asked_: Sequence[Asked], embedder: Embedder) -> Callable[[Given], tuple[float, float]]:
    """Each unit's two turns' cosines with its query, (the owner's, Mallory's), from
    `embedder` (−1 for an empty turn)."""
    given = [g for a in asked_ for g in a.given.values()]
    passage = {id(g): (_passage(g.question), _passage(g.reply)) for g in given}
    queries = _embedded(embedder, {g.query for g in given}, "query")
    turns_ = _embedded(embedder, {t for pair in passage.values() for t in pair if t}, "passage")

    def of(g: Given) -> tuple[float, float]:
        q = queries[g.query]
        owner, reply = (float(q @ turns_[t]) if t else -1.0 for t in passage[id(g)])
        return owner, reply
    return of


def _passage(text: str) -> str:
    return text.strip()[:EMBED_CHARS]


def _embedded(embedder: Embedder, texts: set[str], kind: EmbedKind) -> dict[str, np.ndarray]:
    todo = sorted(texts)
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(todo), 64):
        batch = todo[i:i + 64]
        got = asyncio.run(embedder.embed(batch, kind))
        out.update((t, np.asarray(v, dtype=float)) for t, v in zip(batch, got, strict=True))
    return out


COSINE_MARGINS = (0.05, 0.10, 0.15)


def cosine_rules(of: Callable[[Given], tuple[float, float]]) -> list[tuple[str, Rule]]:
    """The turn closer to the query; and the same only beyond a margin, else the shipped
    rule."""
    shipped = weighted(turns.QUESTION_WEIGHT, turns.ADDRESSED_WEIGHT)

    def closer(margin: float) -> Rule:
        def rule(g: Given) -> bool:
            owner, reply = of(g)
            return reply > owner if abs(reply - owner) > margin else shipped(g)
        return rule

    out: list[tuple[str, Rule]] = [("the turn closer to the query", lambda g: of(g)[1] > of(g)[0])]
    out += [(f"closer by over {m:.2f}, else shipped", closer(m)) for m in COSINE_MARGINS]
    return out


def rules() -> list[tuple[str, Rule]]:
    out: list[tuple[str, Rule]] = [("always the owner's message", lambda g: False),
                                   ("always Mallory's reply", lambda g: True)]
    for qw in QUESTION_WEIGHTS:
        for aw in ADDRESSED_WEIGHTS:
            shipped = (qw, aw) == (turns.QUESTION_WEIGHT, turns.ADDRESSED_WEIGHT)
            out.append((f"question {qw:.2f}, addressed {aw:.2f}"
                        + ("  (shipped)" if shipped else ""), weighted(qw, aw)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", default="0-4", help="tuning samples only, e.g. 0-4")
    parser.add_argument("--mode", default="adaptive", metavar="|".join(MODES))
    parser.add_argument("--cosines", action="store_true",
                        help="also rules by each turn's cosine with the query (local model)")
    args = parser.parse_args(argv)
    try:
        samples = samples_arg(args.samples)
        if any(s not in TUNING for s in samples):
            raise ValueError("samples 5–9 are for reporting only: choose among 0–4")
        require(args.mode)
        embedder = turn_embedder() if args.cosines else None
    except (ValueError, ModeUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = asked(samples, args.mode)
    print(f"LoCoMo owner's view, samples {samples}, mode {args.mode}: explicit search's "
          f"first {K} hits, the turn each unit's link opens")
    print(f"{'rule':44}{'pointer ratio':>14}{'decisive':>10}{'wrong':>7}")
    every = rules() + (cosine_rules(cosines(data, embedder)) if embedder else [])
    for name, rule in every:
        r, decisive, wrong = ratio(data, rule)
        print(f"{name:44}{r:14.3f}{decisive:10}{wrong:7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

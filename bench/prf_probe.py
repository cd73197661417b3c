"""Whether pseudo-relevance feedback (RM3) would raise conversation recall's Recall@10 on
LoCoMo's tuning samples: BM25 over each sample's conversation units, and the same BM25
with the query expanded by the terms of its best-ranked units.

    uv run python -m bench.prf_probe [--samples 0-4]

Each unit's text is what its FTS index holds (the owner's message and Mallory's reply),
cut into words and Porter-stemmed as the index's tokenizer does (shared.text.tokenizer,
shared.text.porter); BM25 with FTS5's k1 = 1.2 and b = 0.75 over the whole unit. The
query is the owner's-view question as automatic recall sanitises it (its stop words out).
RM3: the first `docs` units' terms, each weighed by its share of the unit's length times
its IDF and by the unit's score (a softmax over the feedback units), the best `terms` of
them added to the query, the query's own weights kept at `keep` of the mass. Scored as
bench.locomo scores explicit search: each unit expanded into the turns it holds, turn
Recall@10 and nDCG@10, over the answerable questions, per category.

A probe of the signal, not of the system: recall's own ranking adds recency, standing,
exchanges and the time scope, so the baseline line is below bench.locomo's figures; what
is read is the difference between the lines. Only samples 0–4 (the tuning samples).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.evalset import Query, doc_id, read_queries
from bench.locomo_memory import CACHE, DEFAULT_ROOT, memory, samples_arg, set_dir
from bench.metrics import ndcg_at, recall_at
from local.sqlite_db import SqliteDatabase
from shared.text.porter import stem
from shared.text.sanitiser import Mode, build_query
from shared.text.stopwords import STOPWORDS
from shared.text.tokenizer import tokens

K = 10
TUNING = range(5)
K1, B = 1.2, 0.75  # FTS5's bm25() defaults
MIN_TERM_CHARS = 3  # shorter stems are not offered as expansion terms
UNITS_SQL = "SELECT question_id, answer_id, question, answer FROM conversation_units"


@dataclass(frozen=True)
class Expansion:
    docs: int  # feedback units (0: no expansion)
    terms: int  # expansion terms added
    keep: float  # the query's own share of the weight

    @property
    def name(self) -> str:
        return "BM25" if not self.docs else \
            f"RM3 docs={self.docs} terms={self.terms} keep={self.keep}"


SETTINGS = (Expansion(0, 0, 1.0), Expansion(3, 5, 0.8), Expansion(3, 10, 0.7),
            Expansion(5, 10, 0.7), Expansion(5, 10, 0.85), Expansion(5, 20, 0.5),
            Expansion(10, 20, 0.6))


def bag(text: str) -> Counter[str]:
    return Counter(stem(t) for t in tokens(text))


class Units:
    """One sample's conversation units: the turns each holds and its stemmed words."""

    def __init__(self, units: Sequence[tuple[tuple[str, ...], Counter[str]]]) -> None:
        self.turns = [t for t, _ in units]
        self.bags = [b for _, b in units]
        self.lengths = [sum(b.values()) for b in self.bags]
        average = sum(self.lengths) / max(len(units), 1)
        self.norms = [K1 * (1 - B + B * n / average) for n in self.lengths]
        df = Counter(t for b in self.bags for t in b)
        n = len(units)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    @classmethod
    def of(cls, db: SqliteDatabase) -> Units:
        rows = db.connection.execute(UNITS_SQL).fetchall()
        return cls([(tuple(doc_id("message", i) for i in (r["question_id"], r["answer_id"])
                           if i), bag(f"{r['question']} {r['answer']}")) for r in rows])

    def ranked(self, weights: dict[str, float]) -> list[tuple[float, int]]:
        """(score, unit), best first: every unit that matches a weighted term."""
        scored = []
        for i, words in enumerate(self.bags):
            s = sum(w * self.idf[t] * f * (K1 + 1) / (f + self.norms[i])
                    for t, w in weights.items() if (f := words.get(t)))
            if s > 0:
                scored.append((s, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return scored

    def expanded(self, weights: dict[str, float], first: list[tuple[float, int]],
                 setting: Expansion) -> dict[str, float]:
        """RM3: the query's weights and the feedback units' best terms, mixed."""
        top = first[:setting.docs]
        if not top:
            return weights
        mass = [math.exp(s - top[0][0]) for s, _ in top]
        related: defaultdict[str, float] = defaultdict(float)
        for (_, i), m in zip(top, mass, strict=True):
            for t, f in self.bags[i].items():
                if t not in STOPWORDS and len(t) >= MIN_TERM_CHARS:
                    related[t] += m / sum(mass) * f / self.lengths[i] * self.idf[t]
        added = dict(sorted(related.items(), key=lambda kv: (-kv[1], kv[0]))[:setting.terms])
        own, extra = sum(weights.values()), sum(added.values()) or 1.0
        mixed: defaultdict[str, float] = defaultdict(float)
        for t, w in weights.items():
            mixed[t] += setting.keep * w / own
        for t, w in added.items():
            mixed[t] += (1 - setting.keep) * w / extra
        return dict(mixed)

    def listed(self, ranked: list[tuple[float, int]]) -> list[str]:
        """The turns the ranked units hold, in order, each once, the first K + 2."""
        seen: dict[str, None] = {}
        for _, i in ranked:
            seen.update(dict.fromkeys(self.turns[i]))
            if len(seen) >= K + 2:
                break
        return list(seen)


def query_weights(units: Units, q: Query) -> dict[str, float]:
    counted = Counter(s for t in build_query(q.query, Mode.AUTOMATIC).terms for s in t.stems)
    return {t: float(n) for t, n in counted.items() if t in units.idf}


def figures(units: Units, questions: Sequence[Query], settings: Sequence[Expansion]
            ) -> dict[Expansion, list[tuple[str, float, float]]]:
    """Per setting, each answerable question's (category, turn R@10, turn nDCG@10)."""
    out: dict[Expansion, list[tuple[str, float, float]]] = {s: [] for s in settings}
    for q in questions:
        if not any(g >= 1 for g in q.judgments.values()):
            continue
        weights = query_weights(units, q)
        first = units.ranked(weights) if weights else []
        for s in settings:
            ranked = units.ranked(units.expanded(weights, first, s)) if s.docs and first \
                else first
            listed = units.listed(ranked)
            out[s].append((q.category, recall_at(listed, q.judgments, K),
                           ndcg_at(listed, q.judgments, K)))
    return out


def run(samples: Sequence[int], root: Path = DEFAULT_ROOT, cache: Path = CACHE,
        settings: Sequence[Expansion] = SETTINGS
        ) -> dict[Expansion, list[tuple[str, float, float]]]:
    every: dict[Expansion, list[tuple[str, float, float]]] = {s: [] for s in settings}
    for sample in samples:
        with memory(root, sample, cache=cache) as mem:
            units = Units.of(mem.db)
        for s, rows in figures(units, read_queries(set_dir(root, "owner", sample)),
                               settings).items():
            every[s] += rows
    return every


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", default="0-4", help="tuning samples only, e.g. 0-4")
    args = parser.parse_args(argv)
    try:
        samples = samples_arg(args.samples)
        if any(s not in TUNING for s in samples):
            raise ValueError("samples 5–9 are for reporting only: choose among 0–4")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = run(samples)
    categories = sorted({c for rows in result.values() for c, _, _ in rows})
    print(f"LoCoMo owner's view, samples {samples}: turn Recall@{K} (nDCG@{K} overall)")
    print(f"{'setting':38}{'R@10':>7}{'nDCG':>7}" + "".join(f"{c:>13}" for c in categories))
    for s, rows in result.items():
        by: defaultdict[str, list[float]] = defaultdict(list)
        for c, r, _ in rows:
            by[c].append(r)
        mean_r = sum(r for _, r, _ in rows) / len(rows)
        mean_n = sum(n for _, _, n in rows) / len(rows)
        print(f"{s.name:38}{mean_r:7.3f}{mean_n:7.3f}"
              + "".join(f"{sum(by[c]) / len(by[c]):13.3f}" for c in categories))
    return 0


if __name__ == "__main__":
    sys.exit(main())

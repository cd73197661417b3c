"""One calibrated estimate of relevance: P(the hit answers the message | what the pipeline
knows of it), a logistic model over shared/rank/evidence.py's features.

The models are fitted offline on tuning data only (`python -m bench.confidence_fit`,
README "Recall that knows when it knows") and shipped as named constants
(shared/rank/confidence_models.py), so inference is a dot product in pure Python and runs
in Pyodide. One model per calibrated embedder, and one lexical-only model: an embedder
no model was fitted for (Workers AI's bge-small cannot be measured offline) is weighed by
the lexical model, which reads no vector feature.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shared.rank.evidence import FEATURES


@dataclass(frozen=True)
class ConfidenceModel:
    name: str
    # The embedder identities (Embedder.model) it was fitted for; () for the lexical model.
    model_prefixes: tuple[str, ...]
    bias: float
    weights: Mapping[str, float]  # by feature name (shared.rank.evidence.FEATURES)
    # Automatic recall injects a hit whose estimate reaches this (chosen on tuning data
    # for a target false-positive rate; the figures are beside each model).
    threshold: float
    # Explicit search lists a hit only the vector list holds when its estimate reaches
    # this: a word nowhere in memory lists nothing.
    related_floor: float
    # Per kind of hit (Identity.kind), where the fit chose one apart: the lowest estimate at
    # which the no-answer queries of each kind of memory keep the target false-positive
    # rate (bench/confidence_fit.py; conversation units reach it lower than notes). A kind
    # with none of its own takes `threshold`.
    kind_thresholds: Mapping[str, float] = field(default_factory=dict)
    vector: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"model {self.name} weighs unknown features {sorted(unknown)}")
        object.__setattr__(self, "vector", tuple(self.weights.get(f, 0.0) for f in FEATURES))

    def threshold_for(self, kind: str) -> float:
        """What a hit of this kind's estimate must reach to be injected."""
        return self.kind_thresholds.get(kind, self.threshold)

    def estimate(self, values: Sequence[float]) -> float:
        """P(relevant) for one feature vector (FEATURES order)."""
        z = self.bias + sum(w * x for w, x in zip(self.vector, values, strict=True))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


def model_for(models: Sequence[ConfidenceModel], lexical: ConfidenceModel,
              embedder: str | None) -> ConfidenceModel:
    """The model fitted for this embedder, else the lexical-only one."""
    if embedder:
        for m in models:
            if any(embedder.startswith(p) for p in m.model_prefixes):
                return m
    return lexical

"""Percentile bootstrap over queries (pure, numpy): 95% intervals for a metric, and for
the difference of two systems measured on the same queries (paired).

Every metric of the benchmark is a ratio of per-query sums: a mean of per-query values
is Σ value / Σ 1 over the queries that back it, injected precision is Σ relevant /
Σ injected. A resample draws the bucket's n queries with replacement, the same draws
for every metric and every system of the bucket (so a difference is paired), and
recomputes each ratio on it; a resample in which no query backs a metric is left out
of that metric's interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RESAMPLES = 2_000
SEED = 14  # fixed so that a run is reproducible
LEVEL = 0.95

Interval = tuple[float, float]


def draws(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Indices of `resamples` resamples of n queries, one row each."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def _ratios(numerators: Sequence[float], denominators: Sequence[float],
            rows: np.ndarray) -> np.ndarray:
    num = np.asarray(numerators, dtype=float)[rows].sum(axis=1)
    den = np.asarray(denominators, dtype=float)[rows].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _percentiles(samples: np.ndarray, level: float) -> Interval | None:
    samples = samples[~np.isnan(samples)]
    if not samples.size:
        return None
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(samples, [tail, 100 - tail])
    return float(lo), float(hi)


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float],
                   rows: np.ndarray, level: float = LEVEL) -> Interval | None:
    """Interval of Σ numerator / Σ denominator; None when no query backs the metric."""
    if len(numerators) != len(denominators) or rows.shape[1] != len(numerators):
        raise ValueError("one numerator and one denominator per query, as many as drawn")
    if not sum(denominators):
        return None
    return _percentiles(_ratios(numerators, denominators, rows), level)


def paired_interval(a: tuple[Sequence[float], Sequence[float]],
                    b: tuple[Sequence[float], Sequence[float]],
                    rows: np.ndarray, level: float = LEVEL) -> Interval | None:
    """Interval of metric(a) − metric(b), both measured on the same queries and resampled
    together; each is (numerators, denominators) per query."""
    if not (sum(a[1]) and sum(b[1])):
        return None
    return _percentiles(_ratios(*a, rows) - _ratios(*b, rows), level)


def mean_interval(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED,
                  level: float = LEVEL) -> Interval | None:
    """Interval of a plain mean of per-query values."""
    if not values:
        return None
    return ratio_interval(values, [1.0] * len(values), draws(len(values), resamples, seed),
                          level)

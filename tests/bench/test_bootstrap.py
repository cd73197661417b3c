"""The percentile bootstrap on hand-built per-query values."""

from __future__ import annotations

import random

import pytest

from bench.bootstrap import Interval, draws, mean_interval, paired_interval, ratio_interval


def bounds(interval: Interval | None) -> Interval:
    """An interval the test expects to exist (None means no query backs the metric)."""
    assert interval is not None
    return interval


SKEWED = [0.0, 0.1, 0.2, 0.2, 0.3, 0.9, 1.0, 1.0, 0.5, 0.4, 0.0, 0.7]


def test_a_constant_metric_has_a_zero_width_interval() -> None:
    lo, hi = bounds(mean_interval([0.3] * 30))
    assert lo == hi == pytest.approx(0.3)


def test_the_interval_contains_the_mean_and_is_not_degenerate() -> None:
    rng = random.Random(3)
    values = [rng.random() for _ in range(40)]
    lo, hi = bounds(mean_interval(values))
    mean = sum(values) / len(values)
    assert lo < mean < hi
    assert 0 < hi - lo < 0.5


def test_the_seed_makes_it_reproducible() -> None:
    assert mean_interval(SKEWED, seed=5) == mean_interval(SKEWED, seed=5)
    assert mean_interval(SKEWED, seed=5) != mean_interval(SKEWED, seed=6)


def test_more_queries_give_a_narrower_interval() -> None:
    small, large = bounds(mean_interval(SKEWED)), bounds(mean_interval(SKEWED * 10))
    assert large[1] - large[0] < small[1] - small[0]


def test_a_ratio_is_resampled_as_sums_of_its_parts() -> None:
    # Injected precision: 1 of 1, 0 of 2, 2 of 2 injected hits relevant; a query that
    # injected nothing adds nothing to either sum.
    nums, dens = [1.0, 0.0, 2.0, 0.0], [1.0, 2.0, 2.0, 0.0]
    lo, hi = bounds(ratio_interval(nums, dens, draws(4)))
    assert 0.0 <= lo < 3 / 5 < hi <= 1.0


def test_no_backing_query_is_no_interval() -> None:
    assert ratio_interval([0.0, 0.0], [0.0, 0.0], draws(2)) is None
    assert mean_interval([]) is None


def test_resamples_without_a_backing_query_are_left_out() -> None:
    # One backing query of 10: ~35% of resamples miss it; the rest all give 0.4.
    nums, dens = [0.4] + [0.0] * 9, [1.0] + [0.0] * 9
    lo, hi = bounds(ratio_interval(nums, dens, draws(10)))
    assert lo == pytest.approx(0.4) and hi == pytest.approx(0.4)


def test_paired_difference_of_a_system_with_itself_is_zero() -> None:
    run = (SKEWED, [1.0] * len(SKEWED))
    assert paired_interval(run, run, draws(len(SKEWED))) == (0.0, 0.0)


def test_paired_difference_of_a_constant_shift_is_that_shift() -> None:
    a = ([v + 0.1 for v in SKEWED], [1.0] * len(SKEWED))
    b = (SKEWED, [1.0] * len(SKEWED))
    lo, hi = bounds(paired_interval(a, b, draws(len(SKEWED))))
    assert lo == pytest.approx(0.1) and hi == pytest.approx(0.1)


def test_pairing_is_narrower_than_two_independent_intervals() -> None:
    rng = random.Random(8)
    base = [rng.random() for _ in range(50)]
    better = [min(v + rng.uniform(0.0, 0.1), 1.0) for v in base]
    ones = [1.0] * 50
    lo, hi = bounds(paired_interval((better, ones), (base, ones), draws(50)))
    a, b = bounds(mean_interval(better)), bounds(mean_interval(base))
    assert 0 < lo < hi
    assert hi - lo < (a[1] - a[0]) / 2  # the shared per-query spread cancels out
    assert a[0] < b[1]  # unpaired, the two intervals overlap: only pairing shows the gain


def test_inputs_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one numerator and one denominator"):
        ratio_interval([1.0], [1.0, 1.0], draws(2))

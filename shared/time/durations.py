"""Durations in milliseconds, the unit of every stored time (Worker, hub and benchmarks)."""

from __future__ import annotations

MS_PER_SECOND = 1_000
MS_PER_DAY = 86_400_000

"""How background vector indexing is going, for /status: whether a run is under way and
the rate it embeds at, so "behind by N units" can come with an estimate of the time left.

Held by the Semantics of one process: locally the server's for its lifetime; at the edge
one request's, so there the rate is unknown and /status gives the count alone.
"""

from __future__ import annotations

from dataclasses import dataclass

# Weight of the past in the rate: each run's units and seconds join halved totals, so the
# estimate follows a change of load (the embedder shares the CPU) within a few runs.
DECAY = 0.5


@dataclass
class IndexProgress:
    running: int = 0  # index_now calls under way
    _units: float = 0.0
    _seconds: float = 0.0

    def record(self, units: int, seconds: float) -> None:
        """A run that embedded `units` in `seconds` (runs that embedded none say nothing
        of the rate)."""
        if units <= 0 or seconds <= 0:
            return
        self._units = self._units * DECAY + units
        self._seconds = self._seconds * DECAY + seconds

    @property
    def rate(self) -> float | None:
        """Units embedded per second, once a run has measured it."""
        return self._units / self._seconds if self._seconds > 0 else None

    def eta_s(self, pending: int) -> int | None:
        rate = self.rate
        return round(pending / rate) if rate and pending else None

"""What a search is restricted to: which corpora and vault, how many rows, which messages
to skip, which days."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from shared.rank.policy import StandingWeights
from shared.time.zones import TimeWindow

SourceFilter = Literal["all", "notes", "messages"]
SOURCES: tuple[SourceFilter, ...] = ("all", "notes", "messages")


@dataclass(frozen=True)
class Filters:
    source: SourceFilter = "all"
    # Notes of the vaults with this name only (None: every vault). Messages belong to no
    # vault: `source` alone decides whether they are searched.
    vault: str | None = None
    limit: int = 10  # hits wanted per corpus (before grouping and the gate)
    # Hits' worth of rows a corpus that lends reads at least (Corpus.lends, rows_read).
    pool: int = 0
    exclude_message_ids: tuple[str, ...] = ()
    conversation_id: str | None = None
    exclude_recent_turns: int = 0
    # At chat time the owner's message is stored before recall runs, so the index already
    # holds it: it would count in every query term's document frequency (and in a small
    # corpus make every term look common, or hide a typo). True removes it from the stats.
    query_text_is_indexed: bool = False
    # Only notes dated, and messages written, within these days of the owner's (a time
    # expression in the query: worker/recall/timeframe.py).
    window: TimeWindow | None = None
    # Lexical rows whose best possible score (relevance × recency × the standing ceiling)
    # is below this are not made candidates: the lexical gate could pass none of them
    # (shared.rank.policy.lexical_pass_floor). 0: every row is a candidate.
    score_floor: float = 0.0
    standing_ceiling: float = 1.0
    # With a score floor, or in a semantic mode (worker/recall/fused_depth.py): the gate
    # weighs the best candidates of this many groups only, and a group sure to rank after
    # that many is not made candidates (worker/recall/depth.py), each row's standing
    # bounded by these weights. 0 or None: none left out.
    depth: int = 0
    standing: StandingWeights | None = None

    def window_params(self, days: bool) -> tuple[int | None, ...]:
        """The window's bounds as the search statements bind them: first and last day
        number (notes only, `days`), then UTC start and end; all NULL without a window."""
        w = self.window
        if w is None:
            return (None,) * (4 if days else 2)
        return (w.first_day, w.last_day, w.start_ms, w.end_ms) if days \
            else (w.start_ms, w.end_ms)

    def wants(self, corpus_name: str) -> bool:
        return self.source in ("all", corpus_name)

"""The retrieval modes, the one list of them (RETRIEVAL_MODE, bench --mode), and the
default. A leaf: what each mode does is worker/recall/modes.py."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RetrievalMode(StrEnum):
    LEXICAL = "lexical"
    HYBRID = "hybrid"
    ADAPTIVE = "adaptive"
    QUALITY = "quality"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ran:
    """The mode a recall actually ran, and why it stepped down from the one asked for."""

    mode: RetrievalMode = RetrievalMode.LEXICAL
    fallback: str | None = None  # a code (worker/recall/modes.py), None: it did not


MODES: tuple[str, ...] = tuple(m.value for m in RetrievalMode)
# The mode used when RETRIEVAL_MODE is not set and an embedder is set up (without one it
# is lexical). Adaptive beat lexical on the held-out split of mixed-vault (53 queries):
# nDCG@10 0.800 against 0.740, automatic hit rate 0.875 against 0.800, false-positive
# rate 0.231 against 0.308 (bench.relevance --split heldout, local MiniLM).
DEFAULT_WITH_EMBEDDER = RetrievalMode.ADAPTIVE

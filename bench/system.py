"""The seam between the benchmarks and the system under test: one retrieval mode, built
on a loaded set, as the two callables a relevance run needs.

    system = build(db, now_ms, "lexical")
    system.ranked("car service")    # explicit search: each hit as the doc ids it holds
    system.injected("car service")  # automatic recall: the hits of the Recall block

A mode is a builder in `BUILDERS`; a mode of DESIGN.md §7 without one is refused with
`ModeUnavailable` before any set is loaded. Adding a mode is adding its builder here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from bench.evalset import doc_id
from local.sqlite_db import SqliteDatabase
from shared.candidate import Candidate
from shared.recall_block import EXCERPT_CHARS, build_recall_block
from shared.recall_policy import EXPLICIT
from shared.snippets import snip
from worker.recall.automatic import Gated, gated, with_replies
from worker.recall.explicit import search

Hit = tuple[str, ...]  # the doc ids one hit holds, its primary id first (bench.metrics)

MODES = ("lexical", "hybrid", "adaptive", "quality")  # DESIGN.md §7 (RETRIEVAL_MODE)
# What a local user gets without choosing: lexical is the only mode this build has, and
# no RETRIEVAL_MODE setting exists yet. When one does, take its default from there.
DEFAULT_MODE = "lexical"
SEARCH_DEPTH = 20  # explicit hits scored per query (Recall@20)


class ModeUnavailable(ValueError):
    """A mode that is unknown, or known but not built yet."""


@dataclass(frozen=True)
class Injection:
    """What automatic recall put in front of the model for one query."""

    hits: list[Hit]
    block: str = ""  # the Recall block; "" for a baseline, which builds none
    parents: tuple[str, ...] = ()  # the note or conversation of each hit, in block order


@dataclass(frozen=True)
class System:
    mode: str
    ranked: Callable[[str], list[Hit]]  # explicit search, best first, SEARCH_DEPTH at most
    injected: Callable[[str], Injection]


def _hit(cand: Candidate) -> Hit:
    return tuple(doc_id(cand.kind, d) for d in cand.covers or (cand.id,))


def parent(cand: Candidate) -> str:
    """The note or conversation a hit belongs to: two hits of one parent repeat it."""
    return f"{cand.kind}:{cand.group}"


async def injection(db: SqliteDatabase, found: Gated) -> Injection:
    """The Recall block of gated hits, built as automatic_recall builds it (replies
    attached, snippets cut, the block's budget applied); tests/bench/test_system.py holds
    the two to the same text."""
    block, injected = build_recall_block(snip(await with_replies(db, found.hits),
                                              found.query.terms, EXCERPT_CHARS))
    cands = [i.candidate for i in injected]
    return Injection([_hit(c) for c in cands], block, tuple(parent(c) for c in cands))


def _lexical(db: SqliteDatabase, now_ms: int) -> System:
    def ranked(text: str) -> list[Hit]:
        result = asyncio.run(search(db, text, now_ms, limit=SEARCH_DEPTH, policy=EXPLICIT))
        return [_hit(h) for h in result.hits]

    def injected(text: str) -> Injection:
        async def recall() -> Injection:
            return await injection(db, await gated(db, text, now_ms))
        return asyncio.run(recall())

    return System("lexical", ranked, injected)


BUILDERS: dict[str, Callable[[SqliteDatabase, int], System]] = {"lexical": _lexical}


def require(mode: str) -> None:
    """Refuse a mode this build cannot run, naming what it can."""
    if mode not in MODES:
        raise ModeUnavailable(f"unknown mode {mode!r}: the modes are {', '.join(MODES)}")
    if mode not in BUILDERS:
        raise ModeUnavailable(f"mode {mode} is not available in this build "
                              f"(available: {', '.join(BUILDERS)})")


def build(db: SqliteDatabase, now_ms: int, mode: str = DEFAULT_MODE) -> System:
    require(mode)
    return BUILDERS[mode](db, now_ms)

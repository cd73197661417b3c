"""The seam between the benchmarks and the system under test: one retrieval mode, built
on a loaded set, as the two callables a relevance run needs.

    system = build(db, now_ms, "lexical")
    system.ranked("car service")    # explicit search: each hit as the doc ids it holds
    system.injected("car service")  # automatic recall: the hits of the Recall block

A mode is a builder in `BUILDERS`; a mode of worker/recall/retrieval_mode.py without one
is refused with `ModeUnavailable` before any set is loaded. Adding a mode is adding its builder
here.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bench.evalset import doc_id
from local.semantic.cache import CachedEmbedder
from local.semantic.model_files import MAX_TOKENS_SETTING
from local.semantic.wiring import local_embedder, local_semantics, stack_installed
from local.sqlite_db import SqliteDatabase
from shared.block.envelope import Injected, build_recall_block, with_excerpts
from shared.rank.candidate import Candidate
from shared.rank.policy import EXPLICIT
from worker.indexing.indexer import index_pending
from worker.recall.automatic import Gated, gated
from worker.recall.explicit import search
from worker.recall.neighbours import with_turns
from worker.recall.retrieval_mode import DEFAULT_WITH_EMBEDDER, MODES, RetrievalMode
from worker.semantic.ports import Embedder
from worker.semantic.semantics import Semantics

Hit = tuple[str, ...]  # the doc ids one hit holds, its primary id first (bench.metrics)

# What a local user gets without choosing (worker/config.Runtime.mode).
DEFAULT_MODE = DEFAULT_WITH_EMBEDDER.value if stack_installed() else "lexical"
# Vectors embedded by earlier runs, keyed by model and text: the local model takes about
# 0.1 s per section, and every run loads the set into a fresh database.
EMBEDDING_CACHE = Path.home() / ".cache" / "mallory" / "bench-embeddings.sqlite"
SEARCH_DEPTH = 20  # explicit hits scored per query (Recall@20)


class ModeUnavailable(ValueError):
    """A mode that is unknown, or known but not built yet."""


@dataclass(frozen=True)
class Injection:
    """What automatic recall put in front of the model for one query."""

    hits: list[Hit]
    block: str = ""  # the Recall block; "" for a baseline, which builds none
    parents: tuple[str, ...] = ()  # the note or conversation of each hit, in block order
    # Every document a line of the block shows (a hit's neighbouring turns too); None
    # for a baseline, which builds no block.
    shown: tuple[str, ...] | None = None


@dataclass(frozen=True)
class System:
    mode: str
    ranked: Callable[[str], list[Hit]]  # explicit search, best first, SEARCH_DEPTH at most
    injected: Callable[[str], Injection]


def _hit(cand: Candidate) -> Hit:
    return tuple(doc_id(cand.identity.kind, d) for d in cand.identity.covers or (cand.identity.id,))


def parent(cand: Candidate) -> str:
    """The note or conversation a hit belongs to: two hits of one parent repeat it."""
    return f"{cand.identity.kind}:{cand.identity.group}"


async def injection(db: SqliteDatabase, found: Gated) -> Injection:
    """The Recall block of gated hits, built as automatic_recall builds it (replies
    attached, snippets cut, the block's budget applied); tests/bench/test_system.py holds
    the two to the same text."""
    hits = await with_turns(db, found.hits)
    block, injected = build_recall_block(with_excerpts(hits, found.found.lexical.query.terms))
    cands = [i.candidate for i in injected]
    return Injection([_hit(c) for c in cands], block, tuple(parent(c) for c in cands),
                     tuple(d for i in injected for d in shown(i)))


def shown(item: Injected) -> Hit:
    """The documents one block entry shows: its hit's, and the turns shown around it."""
    return _hit(item.candidate) + tuple(doc_id("message", t) for t in item.shown_around)


def _system(db: SqliteDatabase, now_ms: int, mode: RetrievalMode,
            semantics: Semantics | None) -> System:
    def ranked(text: str) -> list[Hit]:
        result = asyncio.run(search(db, text, now_ms, limit=SEARCH_DEPTH, policy=EXPLICIT,
                                    semantics=semantics, mode=mode))
        return [_hit(h) for h in result.hits]

    def injected(text: str) -> Injection:
        async def recall() -> Injection:
            return await injection(db, await gated(db, text, now_ms, semantics=semantics,
                                                   mode=mode))
        return asyncio.run(recall())

    return System(mode.value, ranked, injected)


def _lexical(db: SqliteDatabase, now_ms: int) -> System:
    return _system(db, now_ms, RetrievalMode.LEXICAL, None)


# Relevance is measured without the chat-time latency guard (Semantics.budget_s,
# 0.3 s): on a loaded machine a timeout turns a query lexical, and the figures would
# depend on the load. bench.latency measures the guard itself.
RELEVANCE_SEMANTIC_BUDGET_S = 30.0


def turn_embedder() -> Embedder:
    """The local embedder as indexed_semantics sets it up, cached on disk, for a probe
    that embeds texts of its own."""
    found = local_embedder({k: os.environ[k] for k in (MAX_TOKENS_SETTING,)
                            if k in os.environ})
    if found is None:
        raise ModeUnavailable("the probe needs the local embedder: uv sync --group embed")
    return CachedEmbedder(found[0], EMBEDDING_CACHE)


def indexed_semantics(db: SqliteDatabase, now_ms: int) -> Semantics:
    """The local semantic stack on this database, every unit embedded (cached on disk)."""
    found = local_semantics(db, {k: os.environ[k] for k in (MAX_TOKENS_SETTING,)
                                 if k in os.environ})
    if found is None:
        raise ModeUnavailable("semantic modes need the local embedder: uv sync --group embed")
    semantics = replace(found, embedder=CachedEmbedder(found.embedder, EMBEDDING_CACHE),
                        budget_s=RELEVANCE_SEMANTIC_BUDGET_S)

    async def index_all() -> None:
        while (await index_pending(db, semantics, now_ms, limit=1_000)).more:
            pass

    asyncio.run(index_all())
    return semantics


def _semantic(mode: RetrievalMode) -> Callable[[SqliteDatabase, int], System]:
    def builder(db: SqliteDatabase, now_ms: int) -> System:
        return _system(db, now_ms, mode, indexed_semantics(db, now_ms))
    return builder


BUILDERS: dict[str, Callable[[SqliteDatabase, int], System]] = {
    "lexical": _lexical,
    **({m.value: _semantic(m) for m in RetrievalMode if m is not RetrievalMode.LEXICAL}
       if stack_installed() else {}),
}


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

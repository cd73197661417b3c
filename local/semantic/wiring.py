"""The local Runtime's semantic side: the offline MiniLM embedder and the SQLite vector
index beside the database, when the optional stack is installed; or any
OpenAI-compatible embeddings endpoint (EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL,
EMBEDDINGS_DIMENSIONS, EMBEDDINGS_API_KEY) with the same local index."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Coroutine, Mapping
from typing import Any

from local.semantic.model_files import MAX_TOKENS_SETTING
from local.sqlite_db import SqliteDatabase
from worker.semantic.ports import Embedder, VectorIndexError
from worker.semantic.semantics import Semantics

log = logging.getLogger("mallory.semantic")
STACK = ("numpy", "onnxruntime", "tokenizers")
NOTHING_SET_UP = ("no local embedder is installed (uv sync --group embed) and "
                  "EMBEDDINGS_BASE_URL is not set")


def stack_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in STACK)


def semantics_or_problem(db: SqliteDatabase, env: Mapping[str, str]
                         ) -> tuple[Semantics | None, str | None]:
    """The semantics for `mallory serve`, or why there are none: a vector table that
    cannot be opened turns semantic recall off (chat goes on, lexical) instead of stopping
    the server, and /status says how to repair it."""
    try:
        semantics = local_semantics(db, env)
    except VectorIndexError as exc:
        log.warning("semantic recall is off: %s", exc)
        return None, f"the vector index cannot be used ({exc}); run `mallory reindex --vectors`"
    return semantics, None if semantics else NOTHING_SET_UP


def local_embedder(env: Mapping[str, str], threads: int | None = None
                   ) -> tuple[Embedder, str] | None:
    """The configured embedder and where it runs ("openai", "local"), or None. `threads`:
    onnxruntime's for the local model (default: one, leaving a core to the server)."""
    if env.get("EMBEDDINGS_BASE_URL"):
        from worker.semantic.openai_embed import OpenAIEmbedder

        dims = int(env.get("EMBEDDINGS_DIMENSIONS") or 0)
        return OpenAIEmbedder(env["EMBEDDINGS_BASE_URL"], env.get("EMBEDDINGS_MODEL", ""),
                              dims, api_key=env.get("EMBEDDINGS_API_KEY", "")), "openai"
    if not stack_installed():
        log.info("no local embedder installed: recall is lexical "
                 "(install it with: uv sync --group embed)")
        return None
    from local.semantic.embedder import LocalEmbedder
    from local.semantic.model_files import MINILM_L6_INT8, with_max_tokens

    spec = with_max_tokens(MINILM_L6_INT8, env.get(MAX_TOKENS_SETTING))
    return (LocalEmbedder(spec, threads=threads) if threads else LocalEmbedder(spec)), "local"


def local_semantics(db: SqliteDatabase, env: Mapping[str, str]) -> Semantics | None:
    """None when nothing is set up: recall is then lexical, and /status says why. Raises
    VectorIndexError when the vector table cannot be opened (vectors of another size)."""
    found = local_embedder(env)
    if found is None:
        return None
    from local.semantic.vectors import SqliteVectorIndex

    embedder, source = found
    return Semantics(embedder, SqliteVectorIndex.beside(db, embedder.dimensions), source=source)


class SerialScheduler:
    """Runtime.schedule for local serve: indexing runs as background tasks of the server's
    event loop, one at a time (the embedder is CPU-bound; two runs would only fight)."""

    def __init__(self) -> None:
        self._lock: asyncio.Lock | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def __call__(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._serially(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serially(self, work: Coroutine[Any, Any, Any]) -> None:
        self._lock = self._lock or asyncio.Lock()
        try:
            async with self._lock:
                await work
        except asyncio.CancelledError:
            work.close()  # the server stopped with it still queued: it never started
            raise

    async def drain(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

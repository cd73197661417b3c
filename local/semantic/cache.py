"""A persistent cache in front of an embedder, for benchmarks and reindexing runs that
embed the same texts again (the local model takes about 0.1 s per section-sized text).

Keyed by the embedder's model identity and the text's SHA-256, so a model change never
returns an old vector. Not used at the edge: there the index itself is the cache.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path

from worker.semantic.ports import Embedder, EmbedKind

SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, kind TEXT NOT NULL, digest TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, kind, digest))
"""


class CachedEmbedder:
    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.model, self.dimensions, self.max_batch = inner.model, inner.dimensions, \
            inner.max_batch
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._conn.execute(SCHEMA)
        self._lock = threading.Lock()

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        with self._lock:
            found = {d: list(array("f", v)) for d, v in self._conn.execute(
                "SELECT digest, vector FROM embeddings WHERE model = ? AND kind = ? AND "
                f"digest IN ({','.join('?' * len(digests))})", (self.model, kind, *digests))}
        missing = [i for i, d in enumerate(digests) if d not in found]
        if missing:
            fresh = await self.inner.embed([texts[i] for i in missing], kind)
            with self._lock:
                self._conn.executemany(
                    "INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?, ?)",
                    [(self.model, kind, digests[i], array("f", v).tobytes())
                     for i, v in zip(missing, fresh, strict=True)])
                self._conn.commit()
            found.update({digests[i]: v for i, v in zip(missing, fresh, strict=True)})
        return [found[d] for d in digests]

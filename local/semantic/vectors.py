"""The local VectorIndex: rows in a table of the local SQLite file, queries answered by a
numpy scan over matrices kept in step with every write, reloaded from the table on open.

Why not sqlite-vec: CPython builds without loadable-extension support (this machine's
pyenv 3.11 among them) cannot load it into `sqlite3` at all; and where it loads (through
pysqlite3), its scan of the same 110,000 vectors for the top 40 took p50 91 ms unfiltered
against 28 ms here, and its (kind, vault) filter saved nothing: 91 ms against 0.7 ms
here, where each (kind, vault) has its own matrix (bench.vectors).

Its own connection to the database file, not SqliteDatabase's: that connection has no
lock, and a vector write from another thread (embedding runs off the event loop; the hub
syncs in its own thread) would land inside a D1 batch's open transaction. SQLite's WAL
and busy timeout order the two writers. With ":memory:" the two are separate databases,
which costs nothing: no SQL joins vectors to D1 tables. One process owns a file's index:
another process's writes show up only after it reopens.

Scans run with one BLAS thread: with OpenBLAS's two, a 5,000-row scan issued from the
worker thread measured p95 83–188 ms whenever other work held the cores, against
0.7–4 ms with one (110,000 vectors, load average 8 on 2 CPUs). A full 110,000-row scan costs
11.6 ms of CPU on one thread.

Writes are visible to the next query at once (Vectorize takes seconds); scores are
cosines in [-1, 1].
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from local.semantic import INSTALL_HINT

try:
    import numpy as np
    import threadpoolctl  # noqa: F401  (local/semantic/scan_lock.py's BLAS limit)
except ImportError as exc:  # the optional stack is missing: say how to get it
    raise ImportError(f"the local vector index needs {exc.name}; {INSTALL_HINT}") from exc

from local.semantic.scan_lock import ScanLock
from local.semantic.vector_checks import (
    CheckedRecord,
    checked_ids,
    checked_query,
    checked_records,
)
from local.semantic.vector_matrix import EXACT_ROWS, PartitionKey, VectorMatrix, partition_key
from local.semantic.vector_sql import (
    COUNT_BY_METADATA_SQL,
    CREATE_TABLE_SQL,
    DELETE_SQL,
    LOAD_SQL,
    PURGE_OTHER_SIZES_SQL,
    TABLE,
    UPSERT_SQL,
)
from local.sqlite_db import BUSY_TIMEOUT_MS, SqliteDatabase
from worker.semantic.ports import VectorFilter, VectorIndexError, VectorMatch, VectorRecord

VECTOR_DTYPE = np.dtype("<f4")
LOAD_CHUNK_ROWS = 8_192  # rows read per step of a reload (12 MB of 384-dimension vectors)
# A query of at most this many rows, each partition scanned exactly, runs on the caller's
# thread when no write holds or waits for the lock: the hop to a worker thread and back
# cost more than the scan (at 1,000 messages + 100 notes, partitions of ~500 rows: the
# scan 0.1 ms, the awaited query 0.55 ms; an 8,192-row query takes 0.9 ms inline). Medians
# of 200 hybrid recalls, both ways interleaved: 1k 27.5 → 26.8 ms, 10k 27.5 → 26.8 ms.
INLINE_ROWS = EXACT_ROWS


def _opened(path: str) -> sqlite3.Connection:
    """A connection to the file with the table in place."""
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise VectorIndexError(f"cannot open the vector table in {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(CREATE_TABLE_SQL)
        return conn
    except sqlite3.Error as exc:
        conn.close()
        raise VectorIndexError(f"cannot open the vector table in {path}: {exc}") from exc


def purge_other_sizes(path: str | Path, dimensions: int) -> int:
    """Delete the stored vectors that are not `dimensions` long, so an index of that size
    can open the file (`mallory reindex --vectors` then re-embeds their units)."""
    try:
        conn = sqlite3.connect(str(path), isolation_level=None)
    except sqlite3.Error as exc:
        raise VectorIndexError(f"cannot open the vector table in {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute(CREATE_TABLE_SQL)
        return conn.execute(PURGE_OTHER_SIZES_SQL,
                            (dimensions * VECTOR_DTYPE.itemsize,)).rowcount
    except sqlite3.Error as exc:
        raise VectorIndexError(f"cannot clean the vector table in {path}: {exc}") from exc
    finally:
        conn.close()


class SqliteVectorIndex:
    """VectorIndex port on a SQLite file (or ":memory:"); safe to call from any thread.
    `dimensions` is the embedder's (`embedder.dimensions`)."""

    def __init__(self, path: str | Path, dimensions: int) -> None:
        self.path = str(path)
        self.dimensions = dimensions
        self._lock = ScanLock()
        self._matrix = VectorMatrix(dimensions)
        self._conn = _opened(self.path)
        try:
            self._load()
        except sqlite3.Error as exc:
            self._conn.close()
            raise VectorIndexError(f"cannot read the vector table in {self.path}: {exc}") \
                from exc

    @classmethod
    def beside(cls, db: SqliteDatabase, dimensions: int) -> SqliteVectorIndex:
        """The index kept in the same file as a local D1 database."""
        return cls(db.path, dimensions)

    def _load(self) -> None:
        """The table's rows into the matrices, streamed in chunks and put in bulk per
        partition. Each distinct metadata JSON is decoded once and its dict shared by its
        rows (the matrices never change a row's metadata in place; queries copy it)."""
        decoded: dict[str, tuple[dict[str, Any], PartitionKey]] = {}
        reserved: dict[PartitionKey, int] = {}
        for text, count in self._conn.execute(COUNT_BY_METADATA_SQL):
            metadata = json.loads(text)
            key = partition_key(metadata)
            decoded[text] = metadata, key
            reserved[key] = reserved.get(key, 0) + count
        self._matrix.reserve(reserved)
        width = self.dimensions * VECTOR_DTYPE.itemsize
        rows = self._conn.execute(LOAD_SQL)
        while chunk := rows.fetchmany(LOAD_CHUNK_ROWS):
            parts: dict[PartitionKey, tuple[list[str], list[bytes], list[dict[str, Any]]]] = {}
            for vector_id, blob, text in chunk:
                if len(blob) != width:
                    self._conn.close()
                    raise VectorIndexError(
                        f"{TABLE} in {self.path} holds vectors of dimension "
                        f"{len(blob) // VECTOR_DTYPE.itemsize} (id {vector_id!r}); this "
                        f"index expects {self.dimensions}: re-embed into a fresh table or "
                        "database")
                if text not in decoded:  # written since the count
                    metadata = json.loads(text)
                    decoded[text] = metadata, partition_key(metadata)
                metadata, key = decoded[text]
                ids, blobs, metas = parts.setdefault(key, ([], [], []))
                ids.append(vector_id)
                blobs.append(blob)
                metas.append(metadata)
            for key, (ids, blobs, metas) in parts.items():
                vectors = np.frombuffer(b"".join(blobs), VECTOR_DTYPE).reshape(
                    len(ids), self.dimensions)
                self._matrix.load(key, ids, vectors, metas)
        self._matrix.compact()

    def __len__(self) -> int:
        return len(self._matrix)

    @property
    def nbytes(self) -> int:
        """Memory held by the in-memory matrices."""
        return self._matrix.nbytes

    def ids(self) -> set[str]:
        """Every vector id the index holds (for `mallory reindex`'s consistency check)."""
        with self._lock.reading():
            return self._matrix.ids()

    def close(self) -> None:
        with self._lock.writing():
            self._conn.close()

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        checked = checked_records(records, self.dimensions)
        if checked:
            await asyncio.to_thread(self._upsert_now, checked)

    def _upsert_now(self, checked: list[CheckedRecord]) -> None:
        rows = [(r.id, r.vector.astype(VECTOR_DTYPE).tobytes(), r.metadata_json)
                for r in checked]
        with self._lock.writing():
            self._write(UPSERT_SQL, rows)
            for record in checked:
                self._matrix.put(record.id, record.vector, record.metadata)

    async def delete(self, ids: Sequence[str]) -> None:
        wanted = checked_ids(ids)
        if wanted:
            await asyncio.to_thread(self._delete_now, wanted)

    def _delete_now(self, ids: list[str]) -> None:
        with self._lock.writing():
            self._write(DELETE_SQL, [(i,) for i in ids])
            for vector_id in ids:
                self._matrix.remove(vector_id)

    def _write(self, sql: str, rows: list[tuple]) -> None:
        """One transaction: all rows or none (the matrices change only after COMMIT)."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(sql, rows)
            except sqlite3.Error:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise VectorIndexError(f"vector write to {self.path} failed: {exc}") from exc

    async def query(self, vector: Sequence[float], top_k: int,
                    filter: VectorFilter | None = None, *, exact: bool = False
                    ) -> list[VectorMatch]:
        """`exact`: score every row, not only the sign bits' candidates (the reference
        the quantised list is measured against, local/semantic/vector_matrix.py)."""
        unit = checked_query(vector, top_k, self.dimensions)
        wanted = filter.as_dict() if filter is not None else {}
        with self._lock.reading_now(lambda: self._matrix.rows(wanted) <= INLINE_ROWS) as held:
            if held:
                return self._matrix.query(unit, top_k, wanted, exact)
        return await asyncio.to_thread(self._query_now, unit, top_k, wanted, exact)

    def _query_now(self, unit: np.ndarray, top_k: int, wanted: dict[str, str],
                   exact: bool = False) -> list[VectorMatch]:
        with self._lock.reading():
            return self._matrix.query(unit, top_k, wanted, exact)

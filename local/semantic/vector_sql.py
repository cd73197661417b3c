"""The local vector table's SQL. It lives in the same SQLite file as the D1 tables but is
no D1 migration: production keeps vectors in Vectorize, so only this adapter creates it."""

from __future__ import annotations

TABLE = "local_vectors"

# vec: the unit vector as little-endian float32; metadata: the record's JSON object.
# A rowid table: rows of 1.6 KB made a WITHOUT ROWID table 3.0× the vectors' size on
# disk, against 1.4× here (20,000 vectors of 384 dimensions).
CREATE_TABLE_SQL = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id TEXT PRIMARY KEY,
    vec BLOB NOT NULL,
    metadata TEXT NOT NULL
)"""

UPSERT_SQL = f"INSERT OR REPLACE INTO {TABLE} (id, vec, metadata) VALUES (?, ?, ?)"
DELETE_SQL = f"DELETE FROM {TABLE} WHERE id = ?"
LOAD_SQL = f"SELECT id, vec, metadata FROM {TABLE}"
# A reload's rows per distinct metadata (a handful: kind, vault), so that each partition's
# matrix is allocated once, at its size.
COUNT_BY_METADATA_SQL = f"SELECT metadata, count(*) FROM {TABLE} GROUP BY metadata"
# Vectors of another size than the embedder's (left by an earlier model): the index
# cannot load them, and they are stale whatever they were.
PURGE_OTHER_SIZES_SQL = f"DELETE FROM {TABLE} WHERE length(vec) != ?"

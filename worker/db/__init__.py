"""The D1 port: one small async interface for every SQL statement the project runs.

Adapters: `worker.db.binding` (the real D1 binding in a Python Worker), `local.sqlite_db`
(local SQLite that enforces D1's limits) and `local.miniflare` (real D1 in Miniflare).
"""

from worker.db.errors import (
    ConstraintError,
    DatabaseError,
    DatabaseUnavailable,
    LimitExceeded,
    QueryError,
)
from worker.db.port import Database, Result, Statement

__all__ = [
    "ConstraintError",
    "Database",
    "DatabaseError",
    "DatabaseUnavailable",
    "LimitExceeded",
    "QueryError",
    "Result",
    "Statement",
]

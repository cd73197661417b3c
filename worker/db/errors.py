"""Typed errors of the D1 port. Every adapter raises only these.

    DatabaseError               anything the database refused or could not do
     ├── QueryError             bad SQL, FTS5 syntax, missing table: a bug in our SQL
     │    └── ConstraintError   UNIQUE / CHECK / FOREIGN KEY / NOT NULL violated
     ├── LimitExceeded          a D1 limit (bound parameters, statement length, value size)
     └── DatabaseUnavailable    the database cannot be reached or opened
"""

from __future__ import annotations


class DatabaseError(Exception):
    """The database refused a statement or could not run it."""


class QueryError(DatabaseError):
    """The statement is wrong (syntax, missing table or column, FTS5 query syntax)."""


class ConstraintError(QueryError):
    """A UNIQUE, CHECK, NOT NULL or FOREIGN KEY constraint was violated."""


class LimitExceeded(DatabaseError):
    """A D1 limit was exceeded; split the work into smaller statements or batches."""


class DatabaseUnavailable(DatabaseError):
    """The database could not be opened or reached."""


_CONSTRAINT_MARKERS = ("constraint failed", "constraint violation", "SQLITE_CONSTRAINT")
_LIMIT_MARKERS = ("too many SQL variables", "statement too long", "string or blob too big",
                  "SQLITE_TOOBIG")


def classify(message: str) -> DatabaseError:
    """Map a database error message (SQLite's or D1's text) to the port's typed error."""
    if any(marker in message for marker in _CONSTRAINT_MARKERS):
        return ConstraintError(message)
    if any(marker in message for marker in _LIMIT_MARKERS):
        return LimitExceeded(message)
    return QueryError(message)

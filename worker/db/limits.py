"""D1's documented limits, checked before a statement runs, so every adapter refuses
what production D1 would refuse, with a message that says what to do.
(https://developers.cloudflare.com/d1/platform/limits/ and /d1/worker-api/)"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from shared.api.limits import MAX_SAFE_INTEGER
from worker.db.errors import DatabaseError, LimitExceeded
from worker.db.port import MAX_BOUND_PARAMETERS, MAX_STATEMENT_BYTES, MAX_VALUE_BYTES, Value

_TRANSACTION_CONTROL = re.compile(
    r"^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE
)


@functools.lru_cache(maxsize=256)
def _check_sql(sql: str) -> None:
    """The checks of the SQL text alone (a plan sends the same few texts many times)."""
    if _TRANSACTION_CONTROL.match(sql):
        raise DatabaseError(
            "D1 has no interactive transactions: use Database.batch() instead of BEGIN/COMMIT"
        )
    if len(sql.encode()) > MAX_STATEMENT_BYTES:
        raise LimitExceeded(
            f"statement too long: {len(sql.encode())} bytes of SQL, D1 allows "
            f"{MAX_STATEMENT_BYTES}; bind values instead of inlining them"
        )


def check_d1_limits(sql: str, params: Sequence[Value]) -> None:
    """Raise LimitExceeded (or DatabaseError) for what D1 itself would refuse."""
    _check_sql(sql)
    if len(params) > MAX_BOUND_PARAMETERS:
        raise LimitExceeded(
            f"too many SQL variables: {len(params)} bound parameters, D1 allows "
            f"{MAX_BOUND_PARAMETERS}; split the statement"
        )
    for index, value in enumerate(params):
        if isinstance(value, int) and not isinstance(value, bool) \
                and abs(value) > MAX_SAFE_INTEGER:
            raise LimitExceeded(
                f"parameter {index + 1} is {value}: D1 integers are exact only up to 2^53 "
                "(a larger one becomes a BigInt, which D1 rejects); store it as TEXT")
        # UTF-8 takes at most 4 bytes a character: a shorter string is not encoded
        size = len(value.encode()) if isinstance(value, str) \
            and len(value) * 4 > MAX_VALUE_BYTES else (
            len(value) if isinstance(value, bytes) else 0
        )
        if size > MAX_VALUE_BYTES:
            raise LimitExceeded(
                f"string or blob too big: parameter {index + 1} is {size} bytes, D1 allows "
                f"{MAX_VALUE_BYTES} per value"
            )

"""After a forget: clear what the adapter keeps of deleted rows outside the live database.

The deleted content itself is overwritten where the adapter can say so (the local one's
`PRAGMA secure_delete`), and the FTS5 indexes are merged in the forget's own batch
(worker/store/withdrawn.py). What is left is adapter-specific: the local adapter's
write-ahead log still holds the pages as they were until it is checkpointed and
truncated. D1 offers no such hook: it keeps every change for Time Travel (30 days, always
on; developers.cloudflare.com/d1/reference/time-travel), and `secure_delete` is not among
its documented PRAGMAs, so at the edge the words leave every query at once but may stay
in Cloudflare's storage and restorable history until that window ends.
"""

from __future__ import annotations

from typing import Any


async def scrub(db: Any) -> None:
    """Best effort, never raises: a busy log is cleared by a later forget or checkpoint."""
    clear = getattr(db, "clear_freed_pages", None)
    if clear is not None:
        try:
            await clear()
        except Exception:  # a scrub must not turn a forget that is done into a 5xx
            return

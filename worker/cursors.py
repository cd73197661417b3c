"""Paging cursors, parsed with ASCII-only rules.

`str.isdigit()` is true for "²" and "١", which `int()` then refuses (a 500 in the probe),
and a 20-digit timestamp passes `isdigit()` but is beyond D1's 2^53 integers (a 503).
"""

from __future__ import annotations

import re

from shared.api.errors import BadRequest
from shared.api.limits import MAX_SAFE_INTEGER

# `<updated_at ms>.<conversation id>`, as list_conversations returns in next_before.
_CONVERSATION_CURSOR = re.compile(r"([0-9]{1,16})\.([A-Za-z0-9_\-]{1,100})")


def parse_conversation_cursor(raw: str) -> tuple[int, str]:
    match = _CONVERSATION_CURSOR.fullmatch(raw)
    if match is None or int(match.group(1)) > MAX_SAFE_INTEGER:
        raise BadRequest("before must be a cursor returned as next_before", code="bad_cursor")
    return int(match.group(1)), match.group(2)

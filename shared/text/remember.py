""""Remember that …": the fact a chat message asks Mallory to save (README, "Saved
memories"). Only proposed: the owner confirms or edits it before anything is saved."""

from __future__ import annotations

import re

from shared.api.limits import MAX_MEMORY_CHARS

# "Remember that …", "please remember: …", "Mallory, remember that …", "remember this: …"
_ASK = re.compile(
    r"^\s*(?:(?:hey\s+)?mallory[\s,:]+)?(?:please\s+)?(?:can\s+you\s+|could\s+you\s+)?"
    r"remember(?:\s+(?:that|this))?\s*[:,\-–—]?\s+(?P<fact>\S.*)$",
    re.IGNORECASE | re.DOTALL)
# Questions about memory, and reminders, not facts to keep: "remember when …", "remember
# what …", "remember to buy milk".
_NOT_A_FACT = re.compile(r"^(?:when|what|where|who|why|how|which|if|whether|to)\b",
                         re.IGNORECASE)


def proposed_fact(message: str) -> str | None:
    """The fact to propose, or None when the message does not ask to remember one."""
    found = _ASK.match(message)
    if found is None:
        return None
    fact = found["fact"].strip().rstrip("?").strip()
    if not fact or _NOT_A_FACT.match(fact) or fact.lower() in ("that", "this"):
        return None
    fact = fact[0].upper() + fact[1:]
    return fact if len(fact) <= MAX_MEMORY_CHARS else None

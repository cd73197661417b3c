"""The offline responder's own words (worker/providers.py): a greeting, a "you're welcome",
a "found nothing", a "noted", and the header of its list of what recall found.

All but the list are no memory: they say that recall showed nothing. Indexed, they matched
every query about "notes", "memory" or a "language model", and a question asked twice
recalled its own earlier "found nothing" as its only source. So a reply for which
`holds_memory` is false is not indexed as a conversation unit (worker/store/units.py); the
owner message it answered is indexed alone, as a question no answer followed (a bare
question: shared/rank/echoes.py). A list of what recall found is indexed: it quotes its
sources, and recall ranks it as their echo (worker/recall/echoes.py).
"""

from __future__ import annotations

GREETING = ("Hello! I'm running without a language model, so all I can do is look things "
            "up in your notes and our past conversations. Ask me about something you wrote "
            "down or told me.")
WELCOME = "You're welcome!"
NOTHING_FOUND = ("I found nothing in your notes or our past conversations about that. (I'm "
                 "running without a language model, so I can only report what memory "
                 "holds.) Want me to dig deeper later?")
# To "Remember that …" when nothing was recalled: the chat response proposes the fact to
# save (`proposed_memory`), and the message itself is memory from the next turn on.
NOTED = ("Noted: ask me about it any time. (I'm running without a language model, so I "
         "keep what you tell me and report what memory holds.) To keep it as a fact of its "
         "own, save the memory I propose.")
FOUND_HEADER = "Here is what I found in memory:"
DISAGREE = ("These notes disagree or one replaces another: the labels say which is "
            "current.")


# The replies that are no memory, word for word.
NOT_MEMORY: tuple[str, ...] = (GREETING, WELCOME, NOTHING_FOUND, NOTED)


def holds_memory(reply: str) -> bool:
    """Whether a reply of Mallory's says anything beyond "recall showed nothing" (False:
    the offline responder's greeting, "you're welcome", "found nothing" or "noted")."""
    return reply not in NOT_MEMORY

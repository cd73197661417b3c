"""Whether a sentence asks, by its form as well as its mark (pure).

Typed chat leaves the question mark out half the time: "does caspian have any allergies",
"who's Fen's partner", "how many days is the JR pass". A sentence asks when it ends with
"?" or opens as a question does in English:

- a question word and then a verb or a measure ("what is", "who's", "how many", "who owns"),
  or a noun and a verb close behind it ("what time is the train", "which day does the bin
  go out"), not a subject ("when I was in Rome", "what the doctor said was fine" tell);
- an auxiliary and then its subject ("did Fen pay me back", "is the gym open"; a negated
  one only before a pronoun or a determiner: "didn't I pay it", not "can't wait");
- a request for what is known ("remind me", "tell me", "show me", "look up").

Leading fillers and a vocative ("ok so", "hey Mallory,") are skipped first.
"""

from __future__ import annotations

import re

from shared.text.stopwords import PHATIC
from shared.text.tokenizer import fold, normalize

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")


def _lexicon(text: str) -> frozenset[str]:
    return frozenset(text.split())


QUESTION_WORDS = _lexicon("what when where which who whom whose why how")
AUXILIARIES = _lexicon("""
is are was were am do does did can could should would will shall may might must have has
had
""")
NEGATED = _lexicon("""
isn't aren't wasn't weren't don't doesn't didn't can't couldn't shouldn't wouldn't won't
haven't hasn't hadn't
""")
CLITICS = _lexicon("s re d ll")  # who's, what're, where'd, who'll
# "how many", "how long": a measure asked for.
MEASURES = _lexicon("many much long often far old big soon late early")
SUBJECTS = _lexicon("""
i you we they he she it my your our their his her its this that these those there the a an
""")
# "have to call the dentist" and "had better go" tell (so does "will do").
NOT_A_SUBJECT = _lexicon("to better got") | AUXILIARIES
ASKING_VERBS = _lexicon("remind tell show")
FILLERS = PHATIC | _lexicon("so and but also oh um hmm erm hey mallory quick question")
# How far a question word's verb may sit behind it ("which day does", "what size ring is").
VERB_WITHIN = 3


def _words(sentence: str) -> list[str]:
    return [fold(w).replace("\u2019", "'")
            for w in _WORD.findall(normalize(sentence).lower())]


def _opens_a_question(head: str, clitic: str, rest: list[str]) -> bool:
    """A question word (`head`, with its clitic) followed by a verb, a measure or a noun
    and a verb; not by a subject."""
    if clitic in CLITICS:
        return True
    if not rest:
        return False
    after = rest[0]
    if after in AUXILIARIES or after in NEGATED:
        return True
    if head == "how":
        return after in MEASURES
    if after in SUBJECTS:
        return False
    return head == "who" or any(w in AUXILIARIES for w in rest[1:VERB_WITHIN])


def asks(sentence: str) -> bool:
    """The sentence is a question, by its mark or by its form."""
    if sentence.rstrip().endswith("?"):
        return True
    words = _words(sentence)
    while words and words[0] in FILLERS:
        words = words[1:]
    if not words:
        return False
    first, rest = words[0], words[1:]
    head, _, clitic = first.partition("'")
    if head in QUESTION_WORDS:
        return _opens_a_question(head, clitic, rest)
    if first in AUXILIARIES:
        return bool(rest) and rest[0] not in NOT_A_SUBJECT
    if first in NEGATED:
        return bool(rest) and rest[0] in SUBJECTS
    if first in ASKING_VERBS:
        return rest[:1] == ["me"]
    return words[:2] == ["look", "up"]

"""Dialogue acts of a chat message, for automatic recall (pure).

A short social message — a greeting, thanks, an acknowledgement, a farewell, laughter —
often keeps one content word ("thanks, the soup was great"), and that word can match a
note strongly: relevance measured against the query's own one-term ceiling then looks
certain. Such a message asks for nothing from memory, so automatic recall skips it. So
does a request about the conversation itself ("say that again but shorter"). Explicit
search never looks at this: the owner typed a query on purpose.

The test is deliberately narrow: a social marker, no question or request, and at most
MAX_SOCIAL_CONTENT_WORDS other content words. "thanks! what was the oven temperature?"
and "ok, remind me what Marco wanted" are not social.

A request with no topic of its own is about the previous turn too: it points back ("it",
"that", "the other one") and its only content words are things one does to an answer
("rewrite it more formally", "can you fix that for me", "put that in a list"). Whatever
memory such a message matches, it matches on the verb or on the answer's form.
"""

from __future__ import annotations

import re
from typing import Literal

from shared.text.stopwords import PHATIC, RECALL_META, STOPWORDS
from shared.text.tokenizer import fold, normalize

Act = Literal["social", "meta", "request"]

# Content words a social message may carry besides its markers ("nice, baklava for
# dessert tonight": baklava, dessert, tonight).
MAX_SOCIAL_CONTENT_WORDS = 4
MAX_META_CONTENT_WORDS = 3



def _lexicon(text: str) -> frozenset[str]:
    return frozenset(text.split())


SOCIAL_WORDS = PHATIC | _lexicon("""
ha heh hehe haha hahaha lmao lol rofl xd brb gtg ttyl np nvm thx tks ta cya later anyway
anyways btw yay whoa oops ugh meh phew bravo congrats cheers sweet neat lovely wonderful
amazing brilliant fantastic superb fine noted understood roger done enjoy appreciate
appreciated
merci danke gracias grazie obrigado obrigada bonjour bonsoir salut hola ciao hallo tschuss
adios gute nacht buenas noches bonne nuit boa noite moin servus
""")
SOCIAL_PHRASES = (
    "thank you", "good morning", "good evening", "good night", "good afternoon",
    "see you", "talk later", "talk soon", "let's continue", "lets continue", "go on",
    "carry on", "never mind", "no worries", "no problem", "sounds good", "got it",
    "will do", "that's all", "thats all", "all for now", "what's up", "whats up",
    "how are you", "how's it going", "hows it going", "nice one", "well done",
    "merci beaucoup", "bis morgen", "bis bald", "de nada", "à demain", "a demain",
    "hasta luego", "hasta mañana", "muchas gracias", "vielen dank", "danke schön",
    # praise and appreciation
    "you rock", "good job", "great job", "nice work", "great work", "good work",
    "makes sense", "that helps", "that helped", "appreciate it", "much appreciated",
    "i appreciate", "you nailed it", "nailed it",
)
_PRAISE = re.compile(
    r"\byou(?:'re| are) (?:so |really |very |truly |just |simply |such )?"
    r"(?:the best|amazing|awesome|great|brilliant|clever|smart|wonderful|helpful|kind|"
    r"a star|a legend|a lifesaver|a genius|a gem)\b")
# Pointing back at the conversation, and what one does to an answer (with how): a request
# made only of these has no topic to recall.
DEICTIC = _lexicon("it that this these those them above previous last other one ones same again")
ANSWER_WORK = _lexicon("""
fix do make redo rewrite rephrase reword explain elaborate expand shorten simplify summarise
summarize summary translate continue try retry change improve format polish clarify correct
edit finish complete help show give use mean means meant example examples version please
more less better formally formal informally shorter longer simpler clearer properly briefly
differently quickly bit little again right wrong true
put turn list lists table tables bullet bullets point points checklist paragraph paragraphs
sentence sentences outline steps numbered markdown
""")
_META = re.compile(
    r"\b((say|put|write) (that|it|this) (again|differently|shorter|simpler)"
    r"|repeat (that|it|this)|rephrase|in other words|what do you mean"
    r"|(shorter|simpler|briefer|longer) (version|please)|translate (that|it|this)"
    r"|(make|keep) it (shorter|simpler|brief)|say (that|it) again)\b")
_REQUEST = re.compile(
    r"\b(what|when|where|which|who|whom|whose|why|how|remind|recall|remember|find|"
    r"search|look|show|tell|list|check)\b"
    # an auxiliary opening a clause asks a question even without "?" ("did I pay it")
    r"|(^|[,;:.!]\s*)(did|do|does|is|are|was|were|can|could|should|would|will)\b")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Words in double quotes are mentioned, not said to Mallory: 'translate "good night" into
# Greek' is a task, not a farewell.
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')


def _words(text: str) -> list[str]:
    return [fold(w) for w in _WORD.findall(text)]


def _without_phrases(text: str) -> tuple[str, bool]:
    found = False
    for phrase in SOCIAL_PHRASES:
        if phrase in text:
            text, found = text.replace(phrase, " "), True
    return text, found


def dialogue_act(text: str) -> Act:
    """"social" or "meta" (recall skips both), else "request"."""
    lowered = " ".join(fold(w) for w in normalize(text).lower().split())
    if _META.search(lowered) and len(_content(lowered)) <= MAX_META_CONTENT_WORDS:
        return "meta"
    lowered = _PRAISE.sub(" thanks ", _QUOTED.sub(" ", lowered))
    rest, phrase = _without_phrases(lowered)
    words = _words(rest)
    marker = phrase or any(w in SOCIAL_WORDS for w in words)
    content = _content(rest)
    if not content and (marker or not words):
        return "social"  # "what's up?", "thanks!", "ok"
    asking = "?" in rest or bool(_REQUEST.search(rest))
    if marker and not asking and len(content) <= MAX_SOCIAL_CONTENT_WORDS:
        return "social"
    return "meta" if _about_the_last_turn(lowered) else "request"


def _about_the_last_turn(text: str) -> bool:
    """"can you fix that for me", "what about the other one?": it points back and every
    content word is work on an answer."""
    words = _words(text)
    if not any(w in DEICTIC for w in words):
        return False
    return all(w in ANSWER_WORK or w in DEICTIC for w in _content(text))


def _content(text: str) -> list[str]:
    return [w for w in _words(text) if w not in STOPWORDS and w not in SOCIAL_WORDS
            and w not in RECALL_META and len(w) > 1]

"""The sanitiser: any chat text → a safe FTS5 MATCH expression.

Safety comes from construction, not escaping: the expression is built only from tokens
that `shared.text.tokenizer.tokens` produced (runs of letters and digits), each inside double
quotes, joined by OR. No character of the input reaches FTS5 syntax, so quotes,
AND/OR/NOT/NEAR, `*`, `^`, `:`, `-`, `+`, parentheses and column filters are inert.

Chat text is natural language, so:
- stopwords and "remembering" words are dropped (shared.text.stopwords); for automatic recall
  social words ("thanks", "haha") are dropped as well;
- identifiers stay whole: `snake_case`, `dotted.names`, `paths/like/this.md`, `Ctrl+P`,
  `pg:pull`, `v1.2.3` become one phrase of adjacent tokens (how unicode61 indexed them);
- in explicit search the last word gets a prefix match when the text stops mid-word
  (search as you type); a chat message is complete text, so automatic recall never
  prefixes ("gif"* would also match "gift");
- terms are OR-ed: BM25 then ranks by how many and how rare the matched terms are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, lru_cache

from shared.text.porter import stem
from shared.text.stopwords import PHATIC, RECALL_META, STOPWORDS
from shared.text.tokenizer import normalize_query, tokens

MAX_TERMS = 24
MIN_PREFIX_CHARS = 3

# A "chunk" is a run of letters/digits joined by identifier punctuation.
_CHUNK = re.compile(r"[#@]?[^\W_]+(?:(?:[_.:/+\\\-]|'|’)+[^\W_]+)*")
_CONTRACTION = re.compile(r"(?i)['’](s|t|re|ll|ve|d|m)$")
_APOSTROPHE = re.compile(r"['’]")


class Mode(Enum):
    EXPLICIT = "explicit"  # /api/search: the owner typed a query
    AUTOMATIC = "automatic"  # chat-time recall: the owner typed a chat message


@dataclass(frozen=True)
class Term:
    tokens: tuple[str, ...]
    prefix: bool = False

    # Cached: recall reads a term's stems and FTS form for every candidate row (about
    # 100k and 190k reads per 200 recalls at 10k messages, bench.latency).
    @cached_property
    def stems(self) -> tuple[str, ...]:
        return stems_of(self.tokens)

    @cached_property
    def fts(self) -> str:
        quoted = '"' + " ".join(self.tokens) + '"'
        return quoted + "*" if self.prefix else quoted


@dataclass(frozen=True)
class SearchQuery:
    text: str
    terms: tuple[Term, ...]

    @property
    def match(self) -> str:
        """The FTS5 MATCH expression; empty when there is nothing to search for."""
        return " OR ".join(t.fts for t in self.terms)

    @property
    def is_empty(self) -> bool:
        return not self.terms

    # Cached: standing asks whether the query names a note of each row recall bounds
    # (worker/recall/lexical.py; about 60 rows a recall at 100k messages + 10k notes).
    @cached_property
    def stems(self) -> frozenset[tuple[str, ...]]:
        """Its terms' stems, as a set."""
        return frozenset(t.stems for t in self.terms)


def stems_of(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A term's stems, from its tokens (Term.stems; a note's name keys,
    shared/knowledge/names.py)."""
    return tuple(stem(t) for t in tokens)


def _dropped(token: str, mode: Mode, drop: frozenset[str]) -> bool:
    if token in STOPWORDS or token in RECALL_META or token in drop:
        return True
    if mode is Mode.AUTOMATIC and token in PHATIC:
        return True
    return len(token) < 2 and not token.isdigit()


def _chunk_terms(chunk: str, mode: Mode, drop: frozenset[str]) -> list[tuple[str, ...]]:
    """The tokens of each term of one chunk."""
    if chunk.isascii() and chunk.isalnum():
        # One plain word, the usual chunk: what the steps below make of it, without them
        # (no apostrophe to strip, one token, ASCII folds by lower-casing).
        word = chunk.lower()
        return [] if _dropped(word, mode, drop) else [(word,)]
    if chunk[0] in "#@":
        words = tokens(chunk)
        return [tuple(words)] if words else []
    chunk = _CONTRACTION.sub("", chunk)
    chunk = _APOSTROPHE.sub("", chunk)  # "don't" has been handled; "O'Brien" → obrien
    words = tokens(chunk)
    if len(words) > 1:
        return [tuple(words)]
    return [(w,) for w in words if not _dropped(w, mode, drop)]


def term_tokens(text: str, mode: Mode, drop: frozenset[str] = frozenset()
                ) -> tuple[list[tuple[str, ...]], bool]:
    """The tokens of each term of normalised `text`, in order, each once, at most
    MAX_TERMS, and whether the last ends the text: what build_query makes its terms of,
    without them (shared/knowledge/names.py keys every name of every synced note)."""
    terms: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    last_term_ends_text = False
    for match in _CHUNK.finditer(text):
        for term in _chunk_terms(match.group(0), mode, drop):
            if term not in seen and len(terms) < MAX_TERMS:
                seen.add(term)
                terms.append(term)
                last_term_ends_text = match.end() == len(text)
    return terms, last_term_ends_text


# Cached: automatic recall sanitises a message twice (the feedback key, the search); the
# result is immutable.
@lru_cache(maxsize=256)
def build_query(text: str, mode: Mode = Mode.EXPLICIT,
                drop: frozenset[str] = frozenset()) -> SearchQuery:
    """Sanitise chat text into a SearchQuery. Raises QueryTooLong over the length limit.
    `drop`: more words to leave out (a query that names a time: stopwords.TIME_META)."""
    text = normalize_query(text)
    found, last_term_ends_text = term_tokens(text, mode, drop)
    terms = [Term(t) for t in found]
    if last_term_ends_text and mode is Mode.EXPLICIT:
        last = terms[-1]
        if len(last.tokens) == 1 and len(last.tokens[0]) >= MIN_PREFIX_CHARS:
            terms[-1] = Term(last.tokens, prefix=True)
    return SearchQuery(text=text, terms=tuple(terms))

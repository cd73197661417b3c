"""A note's names as the identity check compares them (pure): its title, file name and
each alias, each reduced to a key, the set of its terms' stems as automatic recall
sanitises a query ("The Kitchen Renovations" and "kitchen renovation" share one key), so a query
names the note when its own key is one of them (shared/knowledge/standing.py).

The Worker stores a note's keys when it syncs the note (`stored`, in vault_notes
`name_keys`), so recall does not sanitise every recalled note's names again; a note
synced before keys were stored has none, and its keys are made from its fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from shared.api.errors import QueryTooLong
from shared.text.sanitiser import Mode, stems_of, term_tokens
from shared.text.tokenizer import normalize_query

# The first line of the stored form: keys made by another version of this function (a
# changed sanitiser or stemmer) are not trusted, the fields are read again.
VERSION = "names/1"


def key_of(stems: Iterable[tuple[str, ...]]) -> str:
    """One name's (or a query's) set of term stems as a string: stems hold no
    whitespace, so distinct sets give distinct keys. No terms (a name of stopwords):
    the empty key, which no query has."""
    return "\t".join(sorted({" ".join(s) for s in stems}))


@lru_cache(maxsize=8_192)
def name_key(name: str) -> str:
    """A name's key; none for a name past the query limit once normalised (NFKC can
    lengthen a 500-character title past it): no query can state it. The terms of
    build_query(name, Mode.AUTOMATIC), stemmed as Term.stems, without building the query:
    a first push keys three names a note (0.36 → 0.20 s of CPU at 10,000 notes,
    bench.sync)."""
    try:
        terms, _ = term_tokens(normalize_query(name), Mode.AUTOMATIC)
    except QueryTooLong:
        return ""
    return key_of(stems_of(t) for t in terms)


def keys_of(values: Iterable[str]) -> frozenset[str]:
    """The keys of a note's name fields, an alias a line."""
    return frozenset(k for value in values for name in value.split("\n") if name.strip()
                     if (k := name_key(name)))


def stored(values: Iterable[str]) -> str:
    """The stored form: VERSION, then one key a line."""
    return "\n".join([VERSION, *sorted(keys_of(values))])


def holds(text: str | None, key: str) -> bool | None:
    """Whether keys in the stored form hold `key` (as `read` would, without making the
    set), or None when there are none of this version."""
    if not text:
        return None
    version, _, keys = text.partition("\n")
    if version != VERSION:
        return None
    return bool(key) and f"\n{key}\n" in f"\n{keys}\n"


def read(text: str | None) -> frozenset[str] | None:
    """Keys in the stored form, or None when there are none of this version."""
    if not text:
        return None
    version, _, keys = text.partition("\n")
    return frozenset(keys.split("\n")) - {""} if version == VERSION else None

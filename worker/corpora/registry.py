"""The corpora recall searches, in the order their hits tie-break and their statements
run. Every step of recall reads them from here when it runs, so a corpus registered
(a test's, say) is searched, timelined, judged and embedded like the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from worker.corpora.base import Corpus, VectorCorpus
from worker.corpora.conversations import MESSAGES
from worker.corpora.notes import NOTES

_CORPORA: list[Corpus] = [NOTES, MESSAGES]


def corpora() -> tuple[Corpus, ...]:
    return tuple(_CORPORA)


def by_name(name: str) -> Corpus:
    return next(c for c in _CORPORA if c.name == name)


def by_kind(kind: str) -> Corpus:
    return next(c for c in _CORPORA if c.kind == kind)


def vector_corpora() -> tuple[VectorCorpus, ...]:
    """The corpora semantic recall embeds, each as its record's `vector`."""
    return tuple(c.vector for c in _CORPORA if c.vector)


def vector_by_name(name: str) -> VectorCorpus:
    return next(v for v in vector_corpora() if v.name == name)


@contextmanager
def registered(corpus: Corpus) -> Iterator[Corpus]:
    """`corpus` searched with the others while the block runs."""
    if any(c.name == corpus.name or c.kind == corpus.kind for c in _CORPORA):
        raise ValueError(f"a corpus named {corpus.name!r} or of kind {corpus.kind!r} exists")
    _CORPORA.append(corpus)
    try:
        yield corpus
    finally:
        _CORPORA.remove(corpus)

"""The vector index's lock: queries share it, a write holds it alone.

A hybrid recall queries two partitions at once (notes and messages); numpy releases the
GIL while it scans, so the two scans can use both cores, where one lock for everything ran
them one after the other (at 1M messages + 50k notes, 31 + 13 ms). A waiting write keeps
new queries out, so a stream of queries cannot hold it off.

While any query runs, BLAS is held to one thread (see local/semantic/vectors.py): the
first query in sets the limit and the last one out restores it, since the limit is a
process-wide setting that nested per-query limits would restore out of order.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController


class ScanLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._blas = ThreadpoolController()
        self._limit: Any = None

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._changed:
            while self._writing or self._writers_waiting:
                self._changed.wait()
            if not self._readers:
                self._limit = self._blas.limit(limits=1, user_api="blas")
            self._readers += 1
        try:
            yield
        finally:
            with self._changed:
                self._readers -= 1
                if not self._readers:
                    self._limit.restore_original_limits()
                    self._limit = None
                    self._changed.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._changed:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._changed.wait()
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._changed:
                self._writing = False
                self._changed.notify_all()

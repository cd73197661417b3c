"""The vector index's lock: queries share it, a write holds it alone.

A hybrid recall queries two partitions at once (notes and messages); numpy releases the
GIL while it scans, so the two scans can use both cores, where one lock for everything ran
them one after the other (at 1M messages + 50k notes, 31 + 13 ms). A waiting write keeps
new queries out, so a stream of queries cannot hold it off.

While any query runs, BLAS is held to one thread (see local/semantic/vectors.py). The
limit is a process-wide setting, so one count for the whole process (every index's lock)
sets it when the first query comes in and restores it when the last one leaves: per-query
or per-lock limits would restore one another out of order. The BLAS libraries are listed
once, at the first query: listing them (threadpoolctl's ThreadpoolController) took 1.6 ms
here, on the path of every semantic recall, where setting and restoring the limit with the
list kept takes 16 µs. The scans use numpy's own BLAS, loaded with numpy before any index
exists, so the list the first query makes holds it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import ThreadpoolController


class _OneBlasThread:
    """Process-wide: BLAS at one thread while anyone holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._limit: Any = None
        self._controller: ThreadpoolController | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if not self._holders:
                if self._controller is None:
                    self._controller = ThreadpoolController()
                self._limit = self._controller.limit(limits=1, user_api="blas")
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if not self._holders:
                    self._limit.restore_original_limits()
                    self._limit = None


ONE_BLAS_THREAD = _OneBlasThread()


class ScanLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._changed:
            while self._writing or self._writers_waiting:
                self._changed.wait()
            self._readers += 1
        try:
            with ONE_BLAS_THREAD.held():
                yield
        finally:
            self._leave()

    @contextmanager
    def reading_now(self, wanted: Callable[[], bool] = lambda: True) -> Iterator[bool]:
        """`reading` if it can be had without waiting (no write holds the lock or waits
        for it) and `wanted()`, asked with the lock held, agrees: yields True, held;
        else False, nothing held (nor BLAS limited). For the event loop's own thread,
        which must never wait on a write."""
        with self._changed:
            free = not (self._writing or self._writers_waiting)
            if free:
                self._readers += 1
        if free:
            agreed = False
            try:
                agreed = wanted()
            finally:
                if not agreed:
                    self._leave()
            free = agreed
        if not free:
            yield False
            return
        try:
            with ONE_BLAS_THREAD.held():
                yield True
        finally:
            self._leave()

    def _leave(self) -> None:
        with self._changed:
            self._readers -= 1
            if not self._readers:
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

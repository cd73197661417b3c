"""Queries share the vector index's lock; a write waits for them and holds it alone."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tests import embedder

embedder.require()

from local.semantic.scan_lock import ScanLock

WAIT_S = 10
ROOT = Path(__file__).resolve().parents[3]


def test_queries_run_together_and_a_write_runs_alone() -> None:
    lock, both_in, order = ScanLock(), threading.Barrier(2, timeout=WAIT_S), []
    release = threading.Event()

    def query(name: str) -> None:
        with lock.reading():
            both_in.wait()  # only passes if the two queries hold the lock at once
            release.wait(WAIT_S)
            order.append(name)

    def write() -> None:
        with lock.writing():
            order.append("write")

    queries = [threading.Thread(target=query, args=(n,)) for n in ("q1", "q2")]
    for t in queries:
        t.start()
    writer = threading.Thread(target=write)
    writer.start()
    late_done = threading.Event()

    def late_query() -> None:  # arrives while the write waits: goes after it
        with lock.reading():
            order.append("late")
        late_done.set()

    late = threading.Thread(target=late_query)
    writer.join(0.2)
    late.start()
    late.join(0.2)
    assert order == [] and writer.is_alive() and not late_done.is_set()
    release.set()
    for t in (*queries, writer, late):
        t.join(WAIT_S)
    assert sorted(order[:2]) == ["q1", "q2"] and order[2:] == ["write", "late"]


def test_a_query_on_the_event_loop_never_waits_for_a_write() -> None:
    lock, inside, release = ScanLock(), threading.Event(), threading.Event()

    def write() -> None:
        with lock.writing():
            inside.set()
            release.wait(WAIT_S)

    with lock.reading_now() as held:
        assert held  # nothing writes: held, as `reading` would be
        writer = threading.Thread(target=write)
        writer.start()
        assert not inside.wait(0.2)  # the write waits for it
        with lock.reading_now() as again:
            assert not again  # a write waits: no new query goes ahead of it
    assert inside.wait(WAIT_S)
    with lock.reading_now() as held:
        assert not held  # the write holds it: nothing held, nothing waited for
    release.set()
    writer.join(WAIT_S)
    with lock.reading_now() as held:
        assert held
    # Not wanted (a query too large to scan here): nothing is held, a write goes ahead.
    with lock.reading_now(lambda: False) as held:
        assert not held
        with lock.writing():
            pass
    # A `wanted` that raises leaves nothing held either.
    try:
        with lock.reading_now(lambda: 1 / 0 > 0):
            raise AssertionError("not reached")
    except ZeroDivisionError:
        pass
    with lock.writing():
        pass


# BLAS's thread count is one setting for the whole process, and this test process has run
# other tests' numpy work on its threads: the check runs in a process of its own.
BLAS_CHECK = """
import numpy
from threadpoolctl import ThreadpoolController
from local.semantic.scan_lock import ScanLock

def blas_threads():
    return [i["num_threads"] for i in ThreadpoolController().info() if i["user_api"] == "blas"]

before, lock, other = blas_threads(), ScanLock(), ScanLock()
assert before and set(before) != {1}, before  # two cores: BLAS starts with two threads
with lock.reading():
    with lock.reading():
        assert set(blas_threads()) == {1}, blas_threads()
    assert set(blas_threads()) == {1}  # the other query still runs
    with other.reading():  # another index's query: one count for the process
        pass
    assert set(blas_threads()) == {1}
assert blas_threads() == before, (blas_threads(), before)
with lock.reading():  # the libraries listed at the first query hold the limit again
    assert set(blas_threads()) == {1}, blas_threads()
assert blas_threads() == before, (blas_threads(), before)
print("held")
"""


def test_blas_is_held_to_one_thread_while_any_query_runs() -> None:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    ran = subprocess.run([sys.executable, "-c", BLAS_CHECK], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=60)
    assert ran.returncode == 0 and ran.stdout.strip() == "held", ran.stderr

"""One batch on the wire while the run reads on: settled in order, in the caller's
thread, and a failure is raised to the caller."""

from __future__ import annotations

import threading

import pytest

from hub.pipeline import OneInFlight


def test_items_are_settled_in_order_one_at_a_time_in_the_callers_thread() -> None:
    on_wire: list[int] = []
    settled: list[tuple[int, str, bool]] = []
    lock = threading.Lock()

    def push(item: int) -> str:
        with lock:
            on_wire.append(item)
            assert len(on_wire) == 1  # never two at once
        threading.Event().wait(0.005)
        with lock:
            on_wire.remove(item)
        return f"done {item}"

    def settle(item: int, outcome: str) -> None:
        settled.append((item, outcome, threading.current_thread() is threading.main_thread()))

    with OneInFlight(push, settle) as wire:
        for item in range(5):
            wire.send(item)
            assert [s[0] for s in settled] == list(range(item))  # the one before, settled
        wire.drain()
    assert settled == [(i, f"done {i}", True) for i in range(5)]


def test_a_failure_on_the_wire_is_raised_by_the_next_send_and_nothing_after_it_goes() -> None:
    pushed: list[int] = []

    def push(item: int) -> int:
        pushed.append(item)
        if item == 1:
            raise ConnectionError("the Worker is gone")
        return item

    settled: list[int] = []
    with pytest.raises(ConnectionError), OneInFlight(push, lambda i, _: settled.append(i)) as wire:
        for item in range(4):
            wire.send(item)
    assert (pushed, settled) == ([0, 1], [0])

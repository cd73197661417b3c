"""Sending while reading: at most one batch on the wire while the run reads on.

The hub's parse and the Worker's apply are each about half of a first push (bench.sync
--profile); one after the other they add up, side by side the longer one is the run. The
order stays the sequential one: `send` waits for the batch before it, hands its outcome
to `settle` in the caller's thread (which records it in the state, or resends what the
Worker refused in part, nothing else being on the wire then), and only then starts its
own. A failure that ends the run (HubError) is raised from the next `send` or `drain`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

Item = TypeVar("Item")
Outcome = TypeVar("Outcome")


class OneInFlight(Generic[Item, Outcome]):
    def __init__(self, push: Callable[[Item], Outcome],
                 settle: Callable[[Item, Outcome], None]) -> None:
        self._push, self._settle = push, settle
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hub-send")
        self._pending: tuple[Item, Future[Outcome]] | None = None

    def send(self, item: Item) -> None:
        self.drain()
        self._pending = (item, self._pool.submit(self._push, item))

    def drain(self) -> None:
        """Wait for the batch on the wire, if any, and settle it."""
        if self._pending is None:
            return
        item, future = self._pending
        self._pending = None
        self._settle(item, future.result())

    def close(self) -> None:
        """Stop without settling what is still on the wire (the run failed): the Worker
        may apply it, and the next run's checksum finds it (hub/state.py)."""
        self._pending = None
        self._pool.shutdown(wait=True)

    def __enter__(self) -> OneInFlight[Item, Outcome]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

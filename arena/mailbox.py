"""A seat's inbox or a session's outbox: a FIFO with one waiter and a cheap timed wait.

The referee waits on a seat's inbox once per decision; ``asyncio.Queue`` with
``asyncio.timeout`` costs a cancellation round-trip per wait. A mailbox instead parks one future
and wakes it either from ``put_nowait`` or from its timer: the same semantics at a fraction of
the cost on the referee's hot path.

The timer outlives the wait that armed it. A decision's deadline (move time plus bank, some
20 s) is almost always later than the last one's, and the answer comes long before either: a
fresh ``call_later`` per wait, cancelled at once, cost a heap push (Python-level comparisons of
timer handles) and a cancellation every decision. Instead a wait whose deadline is not earlier
than the armed timer's only notes its deadline; when the timer fires it wakes the waiter if its
deadline has come, else arms itself again for it (at most one spare wake-up per deadline's
length), and lapses when no one waits. A session's writer takes every message the
referee sends from one (:meth:`Mailbox.get`), for less than ``asyncio.Queue``'s bookkeeping.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Mailbox"]

T = TypeVar("T")


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Mailbox(Generic[T]):
    """Items in arrival order; one task at a time may wait for the next."""

    __slots__ = ("_deadline", "_items", "_timer", "_timer_loop", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._deadline = 0.0  # when the timed wait under way ends (loop time); 0: none is
        self._timer: asyncio.TimerHandle | None = None  # armed at or before that deadline
        self._timer_loop: asyncio.AbstractEventLoop | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        if self._waiter is not None:
            _wake(self._waiter)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def get_nowait(self) -> T:
        """The oldest item (IndexError when empty)."""
        return self._items.popleft()

    async def get(self) -> T:
        """The oldest item, once there is one (one task at a time may wait)."""
        while not self._items:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for an item; True when one is there."""
        if self._items:
            return True
        if timeout <= 0:
            return False
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        deadline = loop.time() + timeout
        self._deadline = deadline
        timer = self._timer
        if timer is None or timer.when() > deadline or self._timer_loop is not loop:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._on_timer)
            self._timer_loop = loop
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None
            self._deadline = 0.0
        return bool(self._items)

    def _on_timer(self) -> None:
        timer, self._timer = self._timer, None
        waiter = self._waiter
        if waiter is None or not self._deadline or timer is None or self._timer_loop is None:
            return  # no timed wait under way: the timer lapses
        if self._deadline <= timer.when():
            _wake(waiter)  # the wait it was armed for, or one with the same deadline
            return
        self._timer = self._timer_loop.call_at(self._deadline, self._on_timer)

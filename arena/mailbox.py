"""A seat's inbox or a session's outbox: a FIFO with one waiter and a cheap timed wait.

The referee waits on a seat's inbox once per decision; ``asyncio.Queue`` with
``asyncio.timeout`` costs a cancellation round-trip per wait. A mailbox instead parks one future
and wakes it either from ``put_nowait`` or from a ``call_later`` timer: the same semantics at a
fraction of the cost on the referee's hot path. A session's writer takes every message the
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

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

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
        self._waiter = waiter
        timer = loop.call_later(timeout, _wake, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None
        return bool(self._items)

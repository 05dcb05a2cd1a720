"""Time as the referee reads it, injected so tests can prove timeouts without sleeping.

The referee never calls ``time`` or ``asyncio.wait_for`` directly for time control: it asks its
:class:`Clock`. :class:`SystemClock` is the real one; tests use a fake whose ``wait`` returns at
once, advancing its time by the full timeout when nothing is ready.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, TypeVar

T = TypeVar("T")


class Clock(Protocol):
    """Monotonic seconds and a bounded wait on a queue."""

    def now(self) -> float:
        """Monotonic time in seconds."""
        ...

    async def get(self, queue: asyncio.Queue[T], timeout: float) -> T | None:
        """The next item of ``queue``, or None when ``timeout`` seconds pass first."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic`` and ``asyncio`` timeouts."""

    def now(self) -> float:
        return time.monotonic()

    async def get(self, queue: asyncio.Queue[T], timeout: float) -> T | None:
        if not queue.empty():
            return queue.get_nowait()
        if timeout <= 0:
            return None
        try:
            async with asyncio.timeout(timeout):
                return await queue.get()
        except TimeoutError:
            return None

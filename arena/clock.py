"""Time as the referee reads it, injected so tests can prove timeouts without sleeping.

The referee never reads ``time`` or sets timers directly for time control: it asks its
:class:`Clock`. :class:`SystemClock` is the real one; tests use a fake whose ``get`` returns at
once, advancing its time by the full timeout when nothing is ready.
"""

from __future__ import annotations

import time
from typing import Protocol, TypeVar

from brandeln.arena.mailbox import Mailbox

T = TypeVar("T")


class Clock(Protocol):
    """Monotonic seconds and a bounded wait on a queue."""

    def now(self) -> float:
        """Monotonic time in seconds."""
        ...

    async def get(self, mailbox: Mailbox[T], timeout: float) -> T | None:
        """The next item of ``mailbox``, or None when ``timeout`` seconds pass first."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic`` and ``asyncio`` timeouts."""

    def now(self) -> float:
        return time.monotonic()

    async def get(self, mailbox: Mailbox[T], timeout: float) -> T | None:
        if await mailbox.wait(timeout):
            return mailbox.get_nowait()
        return None

"""Two ways the ladder runs asyncio work that plain ``gather`` and ``to_thread`` get wrong for it.

:func:`all_or_nothing` runs coroutines concurrently and raises the first failure itself (the
season's block workers, a block's matches); :func:`finish_in_thread` runs a database
transaction in a worker thread and lets it end even when the caller is cancelled, so a run
stops with every block recorded or not at all.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

__all__ = ["all_or_nothing", "finish_in_thread"]

_T = TypeVar("_T")


async def finish_in_thread(fn: Callable[..., _T], *args: object) -> _T:
    """``fn(*args)`` (a database transaction) in a worker thread, not abandoned when the caller
    is cancelled: a thread cannot be stopped, so the cancellation waits for the transaction to
    end. A run therefore stops with every finished block recorded (or not at all), and no claim
    lands after the run has released its claims."""
    task = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await task
        raise


async def all_or_nothing(coroutines: Sequence[Awaitable[_T]]) -> list[_T]:
    """Run concurrently; on the first failure cancel the rest and raise that failure itself.

    (``asyncio.TaskGroup`` would wrap it in an ExceptionGroup; the ladder's callers want the
    :class:`LadderError` with its message.)
    """
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

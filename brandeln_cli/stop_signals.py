"""SIGINT and SIGTERM for a long-running asyncio command, with no default-action window.

``loop.add_signal_handler`` is not enough for a process a supervisor signals again and again:
``loop.remove_signal_handler`` (and ``loop.close``) first give the signal back its default
action, so one that lands before the command can ignore it ends the process by signal (-15)
instead of with exit code 0. Here the handler is a plain ``signal.signal`` one that wakes the
loop, and on the way out the signals go straight to ``SIG_IGN``: there is no instant at which
the default action is back.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """Set ``stop`` on every SIGINT/SIGTERM while inside; ignore both once left.

    Must be entered on the main thread, inside the running loop that waits on ``stop``.
    """
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: FrameType | None) -> None:
        # Runs between bytecodes on the main thread; the self-pipe write wakes a loop
        # blocked in select().
        loop.call_soon_threadsafe(stop.set)

    for signum in STOP_SIGNALS:
        signal.signal(signum, handler)
    try:
        yield
    finally:
        # What is left is teardown (the store closed, the port too): a further signal must
        # not end the process by signal.
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)

"""SIGINT and SIGTERM for a long-running asyncio command, with no default-action window.

``loop.add_signal_handler`` is not enough for a process a supervisor signals again and again:
``loop.remove_signal_handler`` (and ``loop.close``) first give the signal back its default
action, so one that lands before the command can ignore it ends the process by signal (-15)
instead of with exit code 0. Here the handler is a plain ``signal.signal`` one that wakes the
loop, and on the way out the signals go straight to ``SIG_IGN``: there is no instant at which
the default action is back.

:class:`SignalLatch` is the same promise for a command whose loop is someone else's (uvicorn's,
for ``brandeln web``): the signals are caught from the moment the command says "Ctrl-C stops
it", before that loop installs its own handlers, and handed over to it once it has.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
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


class SignalLatch:
    """Catches SIGINT/SIGTERM from :meth:`install` on, for a loop that installs its own
    handlers later: :meth:`hand_over` gives it what came meanwhile, and, installed again when
    that loop restores the handlers it found, the latch keeps a late or repeated signal from
    ending the process by signal while it exits.

    A process started with SIGINT ignored (a background job of a shell without job control,
    as CI runs one) would otherwise lose a Ctrl-C sent between "Ctrl-C stops it" and the
    loop's start, and run on.
    """

    def __init__(self) -> None:
        self.received: list[int] = []

    def install(self) -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._record)

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)

    def hand_over(self, handle: Callable[[int, FrameType | None], None]) -> None:
        """Give ``handle`` (the loop's own handler, now installed) every signal caught so far."""
        for signum in self.received:
            handle(signum, None)

"""Where a server's CPU goes, by what its event loop runs: :class:`LoopProfile`.

Every callback an asyncio loop runs goes through ``asyncio.events.Handle._run``, and a task's
step is one such callback; so timing that one method with the thread's CPU clock splits the
loop thread's time by what ran: each task by its coroutine (``Referee._run_table``,
``RefereeServicer._write``, gRPC's ``_handle_exceptions`` around an RPC's handler), and each
plain callback by its function (gRPC's ``PollerCompletionQueue._handle_events``, which hands the
completions of its poller thread to the loop). What is left of the loop thread's CPU is the loop
itself (waiting in ``epoll``, timers, the ready queue), and what is left of the process's is its
other threads (gRPC's poller). The referee benchmark (``brandeln bench referee --loop-profile``)
takes one over each repeat, in the referee's process and in the floor's, and prints both per
decision side by side: that comparison, not a sampling profiler's, says which part of a
decision the referee adds, since a sampler's stacks end in compiled code and in gRPC's Cython.

It costs about a microsecond per callback (two reads of the thread's CPU clock, a system call
each): a profiled run's absolute figures are a little higher than an unprofiled one's.

>>> import asyncio
>>> async def work() -> None:
...     sum(range(10_000))
>>> async def main() -> dict[str, tuple[float, int]]:
...     with LoopProfile() as profile:
...         await asyncio.create_task(work())
...     return profile.by_name()
>>> asyncio.run(main())["work"][1]
1
"""

from __future__ import annotations

import asyncio
import asyncio.events
import functools
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final

__all__ = ["LOOP_ITSELF", "OTHER_THREADS", "LoopProfile", "callback_name"]

# The two rows that are not a callback: the loop thread's CPU outside every callback, and the
# CPU of the process's other threads.
LOOP_ITSELF: Final = "(the event loop itself: epoll, timers)"
OTHER_THREADS: Final = "(other threads: gRPC's poller)"


def callback_name(callback: Callable[..., Any]) -> str:
    """What a ready callback runs: a task's coroutine, else the function's qualified name."""
    while isinstance(callback, functools.partial):
        callback = callback.func
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coroutine = owner.get_coro()
        name = getattr(coroutine, "__qualname__", None)
        return str(name) if name else type(coroutine).__name__
    name = getattr(callback, "__qualname__", None)
    return str(name) if name else type(callback).__name__


class LoopProfile:
    """The loop thread's CPU by callback while installed (a context manager, or
    :meth:`start` and :meth:`stop`); one at a time per process."""

    _active: LoopProfile | None = None

    def __init__(self) -> None:
        self.cpu_s: dict[str, float] = {}
        self.runs: dict[str, int] = {}
        self.thread_cpu_s = 0.0  # the loop thread's CPU while installed
        self.process_cpu_s = 0.0  # the process's, every thread
        self._original: Callable[[asyncio.events.Handle], None] | None = None
        self._started: tuple[float, float] = (0.0, 0.0)

    def start(self) -> None:
        """Install (from the loop's thread): every callback run from now on is timed."""
        if LoopProfile._active is not None:
            raise RuntimeError("a loop profile is already installed in this process")
        original = asyncio.events.Handle._run
        cpu_s, runs = self.cpu_s, self.runs
        clock = time.thread_time

        def timed_run(handle: asyncio.events.Handle) -> None:
            started = clock()
            try:
                original(handle)
            finally:
                spent = clock() - started
                name = callback_name(handle._callback)  # type: ignore[attr-defined]
                cpu_s[name] = cpu_s.get(name, 0.0) + spent
                runs[name] = runs.get(name, 0) + 1

        self._original = original
        LoopProfile._active = self
        self._started = (time.thread_time(), time.process_time())
        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign, assignment]

    def stop(self) -> None:
        """Uninstall (from the loop's thread) and total the threads' CPU."""
        if self._original is None:
            return
        asyncio.events.Handle._run = self._original  # type: ignore[method-assign, assignment]
        self._original = None
        LoopProfile._active = None
        thread_started, process_started = self._started
        self.thread_cpu_s = time.thread_time() - thread_started
        self.process_cpu_s = time.process_time() - process_started

    def __enter__(self) -> LoopProfile:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def by_name(self) -> dict[str, tuple[float, int]]:
        """Each callback's CPU seconds and runs, with the loop's own and the other threads'
        CPU as two more rows (:data:`LOOP_ITSELF`, :data:`OTHER_THREADS`)."""
        rows = {name: (self.cpu_s[name], self.runs[name]) for name in self.cpu_s}
        rows[LOOP_ITSELF] = (max(0.0, self.thread_cpu_s - sum(self.cpu_s.values())), 0)
        rows[OTHER_THREADS] = (max(0.0, self.process_cpu_s - self.thread_cpu_s), 0)
        return rows

    def as_json(self) -> dict[str, list[float]]:
        """:meth:`by_name` as JSON, ``{name: [cpu_s, runs]}``: how a profile crosses a pipe."""
        return {name: list(row) for name, row in self.by_name().items()}

    def per_decision_us(self, decisions: int) -> dict[str, float]:
        """:meth:`by_name`'s CPU in microseconds per decision."""
        return {name: cpu * 1e6 / max(1, decisions) for name, (cpu, _) in self.by_name().items()}

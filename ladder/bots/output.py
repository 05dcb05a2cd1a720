"""A command bot's output: one pipe copied into its log by a thread, up to a cap.

Its stdout and stderr are one pipe, read by a thread of its own (never the event loop) into one
log file: the first :data:`MAX_OUTPUT_BYTES` of each process's output are kept, then a line
saying the rest was cut, and the rest is read and dropped (spliced to /dev/null), so a bot that
floods its output neither fills the disk nor blocks on a full pipe.
:func:`brandeln.ladder.bots.processes.start_bot` makes the pipe and hands its reading end to an
:class:`OutputPump`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import select
import threading
from typing import Final

__all__ = ["MAX_OUTPUT_BYTES", "PIPE_BYTES", "OutputPump"]

MAX_OUTPUT_BYTES: Final = 4 * 1024 * 1024  # kept in the log of each bot process's output
PIPE_BYTES: Final = 1024 * 1024  # a big pipe: fewer wake-ups of the reader under a flood
_CHUNK: Final = 64 * 1024
_CUT_NOTE: Final = (
    "\n--- output cut: only the first {cap} bytes of this process's output are kept\n"
)


class OutputPump:
    """A bot's output pipe copied into its log, up to ``cap`` bytes, by a daemon thread.

    A thread, not the event loop: a flood costs the loop nothing, and past the cap the rest is
    spliced to /dev/null without being copied. It ends at the pipe's end (every writer gone) or
    on :meth:`close`, which closes the pipe: a writer out of reach gets EPIPE.
    """

    def __init__(self, pipe: int, log: int, cap: int = MAX_OUTPUT_BYTES) -> None:
        self._pipe, self._log, self._cap = pipe, log, cap
        self._wake_read, self._wake_write = os.pipe()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._caught_up: concurrent.futures.Future[None] | None = None  # see wait()
        self._deadline = 0.0
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()
        # Callers waiting for what is in the pipe now to reach the log (caught_up).
        self._waiters: list[concurrent.futures.Future[None]] = []
        os.set_blocking(pipe, False)
        self._thread = threading.Thread(target=self._run, name="bot-output", daemon=True)
        self._thread.start()

    def ended(self) -> asyncio.Future[None]:
        """The end of the output (the pipe's end, or :meth:`close`), safe to cancel."""
        return asyncio.shield(asyncio.wrap_future(self._done))

    async def wait(self, timeout_s: float) -> None:
        """Until what was written to the pipe so far is in the log (the writer has exited: its
        last words), or the output has ended; at most ``timeout_s`` from the first call. Every
        caller waits for the same catching-up (several watch one bot), and once it is done, or
        its time is up, later calls return at once: a process out of reach that keeps writing
        must not make each of them wait as long."""
        if self._done.done():
            return
        loop = asyncio.get_running_loop()
        if self._caught_up is None:
            self._caught_up = concurrent.futures.Future()
            self._deadline = loop.time() + timeout_s
            with self._lock:
                if self._closed:
                    return
                self._waiters.append(self._caught_up)
                os.write(self._wake_write, b"w")  # a thread waiting on an empty pipe looks again
        remaining = self._deadline - loop.time()
        if self._caught_up.done() or remaining <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._caught_up)), remaining)

    def close(self) -> None:
        """Stop reading (the thread closes the pipe within one read)."""
        self._stopping.set()
        with self._lock:
            if not self._closed:
                os.write(self._wake_write, b"x")

    def _run(self) -> None:
        kept, devnull = 0, -1
        idle = select.poll()  # not select(): a runner may hold descriptors past FD_SETSIZE
        idle.register(self._pipe, select.POLLIN)
        idle.register(self._wake_read, select.POLLIN)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            while not self._stopping.is_set():
                # Those who asked before this read: once a read finds the pipe empty, what
                # was written before they asked is in the log.
                with self._lock:
                    asked = list(self._waiters)
                try:
                    if kept < self._cap:
                        chunk = os.read(self._pipe, _CHUNK)
                        if not chunk:
                            return
                        kept = self._keep(chunk, kept)
                    elif not _discard(self._pipe, devnull):
                        return
                except BlockingIOError:
                    self._release(asked)
                    if any(fd == self._wake_read for fd, _ in idle.poll()):
                        os.read(self._wake_read, 4096)  # a stop, or a caller's wake-up
            # Stopped: what the pipe held then (a killed bot's last words) still reaches the
            # log; no more than a pipeful, should a writer out of reach keep writing.
            left = PIPE_BYTES + _CHUNK
            while left > 0 and kept < self._cap:
                chunk = os.read(self._pipe, min(_CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
                kept = self._keep(chunk, kept)
        except BlockingIOError:
            pass  # the pipe is empty: all it held is in the log
        except OSError:
            return  # the pipe failed: nothing more will come through it
        finally:
            with self._lock:
                self._closed = True
                for fd in (self._pipe, self._log, devnull, self._wake_read, self._wake_write):
                    if fd >= 0:
                        os.close(fd)
                waiting, self._waiters = self._waiters, []
            for waiter in waiting:
                waiter.set_result(None)
            self._done.set_result(None)

    def _release(self, asked: list[concurrent.futures.Future[None]]) -> None:
        if not asked:
            return
        with self._lock:
            self._waiters = [w for w in self._waiters if w not in asked]
        for waiter in asked:
            waiter.set_result(None)

    def _keep(self, chunk: bytes, kept: int) -> int:
        part = chunk[: self._cap - kept]
        try:
            _write_all(self._log, part)
            if kept + len(part) >= self._cap:
                _write_all(self._log, _CUT_NOTE.format(cap=self._cap).encode())
        except OSError:
            return self._cap  # a log that cannot be written (a full disk): drain from now on
        return kept + len(part)


def _discard(pipe: int, devnull: int) -> bool:
    """Drop what the pipe holds (splice: no copy through user space); False at its end."""
    if hasattr(os, "splice"):
        return os.splice(pipe, devnull, PIPE_BYTES, flags=os.SPLICE_F_NONBLOCK) > 0
    return bool(os.read(pipe, _CHUNK))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

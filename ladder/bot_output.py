"""A command bot's output: one pipe copied into its log by a thread, up to a cap.

Its stdout and stderr are one pipe, read by a thread of its own (never the event loop) into one
log file: the first :data:`MAX_OUTPUT_BYTES` of each process's output are kept, then a line
saying the rest was cut, and the rest is read and dropped (spliced to /dev/null), so a bot that
floods its output neither fills the disk nor blocks on a full pipe.
:func:`ladder.bot_processes.start_bot` makes the pipe and hands its reading end to an
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
        self._waited = False
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()
        os.set_blocking(pipe, False)
        self._thread = threading.Thread(target=self._run, name="bot-output", daemon=True)
        self._thread.start()

    def ended(self) -> asyncio.Future[None]:
        """The end of the output (the pipe's end, or :meth:`close`), safe to cancel."""
        return asyncio.shield(asyncio.wrap_future(self._done))

    async def wait(self, timeout_s: float) -> None:
        """Until the output has ended, or ``timeout_s`` (only once: a pipe a stray process
        holds open would otherwise make every later call wait as long)."""
        if self._done.done() or self._waited:
            return
        self._waited = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ended(), timeout_s)

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
                try:
                    if kept < self._cap:
                        chunk = os.read(self._pipe, _CHUNK)
                        if not chunk:
                            return
                        kept = self._keep(chunk, kept)
                    elif not _discard(self._pipe, devnull):
                        return
                except BlockingIOError:
                    if any(fd == self._wake_read for fd, _ in idle.poll()):
                        return
        except OSError:
            return  # the pipe failed: nothing more will come through it
        finally:
            with self._lock:
                self._closed = True
                for fd in (self._pipe, self._log, devnull, self._wake_read, self._wake_write):
                    if fd >= 0:
                        os.close(fd)
            self._done.set_result(None)

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

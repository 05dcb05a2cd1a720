"""Where a service's log records go (``brandeln serve``, ``brandeln ladder serve``, ``brandeln
web``): stderr, as JSON lines or text, at a chosen level.

The level applies to the project's own loggers (``brandeln`` and every logger below it:
the referee's, the ladder's, the datastore's);
the libraries' (gRPC, SQLAlchemy, Alembic, asyncio) keep to warnings and errors whatever it is,
so ``--log-level debug`` is the service's detail, not every library's. Python's warnings go the
same way (``logging.captureWarnings``), so a JSON stream stays JSON.

As JSON lines, every other way out of the process is one too, from start to exit:

- what the command prints, to stdout or stderr (its address, a library's stray traceback):
  each line one record (:class:`PrintedLines`), on the stream it was printed to;
- an exception nothing handled, in the main thread, another thread or a finalizer: one record
  at level error with the traceback in its ``exception`` field (:func:`log_unexpected`);
- asyncio's own reports (a task's exception never retrieved) already go to its logger.

Only what bypasses Python's streams (a C library writing to file descriptor 2) is not seen.
"""

from __future__ import annotations

import io
import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TextIO

from brandeln.services.logs.formatters import InertTextFormatter, JsonFormatter, ServiceEvent

__all__ = [
    "OWN_LOGGERS",
    "TEXT_FORMAT",
    "PrintedLines",
    "ServiceLog",
    "log_unexpected",
    "service_logging",
]

OWN_LOGGERS = ("brandeln",)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# The logger of the records written for the process itself (an exception nothing handled).
_PROCESS_LOGGER = "brandeln.process"


def log_unexpected(error: BaseException, where: str = "") -> None:
    """One record at level error for an exception nothing handled, its traceback inside."""
    logging.getLogger(_PROCESS_LOGGER).error(
        "unexpected error%s: %s: %s",
        f" in {where}" if where else "",
        type(error).__name__,
        error,
        exc_info=(type(error), error, error.__traceback__),
        extra={"event": ServiceEvent.UNEXPECTED_ERROR},
    )


class PrintedLines(io.TextIOBase):
    """A text stream that writes each line printed to it as one record of ``handler``
    (event ``output``, at ``level``, logger ``name``), whatever the loggers' levels: what a
    command prints for its operator (an address, an admin token shown once) is never dropped.

    Thread-safe; a line waits for its end (a partial one is written at :meth:`close`). A blank
    line is no record.
    """

    def __init__(self, handler: logging.Handler, level: int, name: str, original: TextIO) -> None:
        super().__init__()
        self.handler = handler
        self.level = level
        self.name = name
        self.original = original  # the stream the records go to, for fileno() and a fallback
        self._pending = ""
        self._lock = threading.RLock()
        self._emitting = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        # A library that writes to the descriptor (faulthandler, a child's stderr) bypasses the
        # records, as it would bypass any Python stream.
        return self.original.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is a plain attribute
        return getattr(self.original, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        with self._lock:
            if self._emitting:
                # The handler itself failed and reports it here (logging.Handler.handleError):
                # as it is, not again through the handler.
                self.original.write(text)
                return len(text)
            self._pending += text
            *lines, self._pending = self._pending.split("\n")
            for line in lines:
                self._emit(line)
        return len(text)

    def flush(self) -> None:
        self.handler.flush()

    def close(self) -> None:
        with self._lock:
            if self._pending:
                self._emit(self._pending)
                self._pending = ""
        super().close()

    def _emit(self, line: str) -> None:
        if not line.strip():
            return
        record = logging.LogRecord(self.name, self.level, "", 0, line, None, None)
        record.event = ServiceEvent.OUTPUT
        self._emitting = True
        try:
            self.handler.handle(record)
        finally:
            self._emitting = False


@dataclass(frozen=True)
class ServiceLog:
    """What :func:`service_logging` set up: the handler of stderr's records (and, as JSON
    lines, of stdout's)."""

    handler: logging.StreamHandler[TextIO]
    stdout_handler: logging.StreamHandler[TextIO] | None = None

    def printed_lines(self, level: int, name: str) -> PrintedLines:
        """A stream whose lines are records on stderr, at ``level`` (a console's lines)."""
        return PrintedLines(self.handler, level, name, self.handler.stream)


@contextmanager
def service_logging(
    level: int = logging.WARNING, *, json_lines: bool = False, stream: TextIO | None = None
) -> Iterator[ServiceLog]:
    """Send log records to ``stream`` (stderr) while in the block, then put back what was.

    The handler goes on the root logger, so a library's warning is a line of the same form.
    With ``json_lines``, stdout and stderr are :class:`PrintedLines` too (stdout's records on
    stdout, so a pipe that reads it gets JSON), and an exception nothing handles is one record.
    """
    target = stream if stream is not None else sys.stderr
    handler = logging.StreamHandler(target)
    handler.setFormatter(JsonFormatter() if json_lines else InertTextFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    own = [logging.getLogger(name) for name in OWN_LOGGERS]
    saved = [(logger, logger.level) for logger in (root, *own)]
    root.addHandler(handler)
    root.setLevel(max(level, logging.WARNING))
    for logger in own:
        logger.setLevel(level)
    logging.captureWarnings(True)
    try:
        if not json_lines:
            yield ServiceLog(handler)
            return
        stdout_handler = logging.StreamHandler(sys.stdout)
        stdout_handler.setFormatter(JsonFormatter())
        with ExitStack() as stack:
            stack.enter_context(_printed_as_records(handler, stdout_handler))
            stack.enter_context(_unhandled_as_records())
            yield ServiceLog(handler, stdout_handler)
    finally:
        logging.captureWarnings(False)
        root.removeHandler(handler)
        for logger, saved_level in saved:
            logger.setLevel(saved_level)


@contextmanager
def _printed_as_records(
    handler: logging.StreamHandler[TextIO], stdout_handler: logging.StreamHandler[TextIO]
) -> Iterator[None]:
    """sys.stdout's and sys.stderr's lines as records (at info and warning: whatever writes to
    stderr on its own, a library's stray traceback, is worth a look)."""
    saved = sys.stdout, sys.stderr
    stdout = PrintedLines(stdout_handler, logging.INFO, "stdout", sys.stdout)
    stderr = PrintedLines(handler, logging.WARNING, "stderr", sys.stderr)
    sys.stdout, sys.stderr = stdout, stderr
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        stdout.close()
        stderr.close()


@contextmanager
def _unhandled_as_records() -> Iterator[None]:
    """An exception nothing handled as one record, in place of the traceback Python prints."""
    saved = sys.excepthook, threading.excepthook, sys.unraisablehook

    def main_thread(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        log_unexpected(error.with_traceback(traceback))

    def other_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return  # as Python's own hook: a thread's SystemExit ends it quietly
        thread = args.thread.name if args.thread is not None else "a thread"
        log_unexpected(args.exc_value.with_traceback(args.exc_traceback), f"thread {thread}")

    def unraisable(args: sys.UnraisableHookArgs) -> None:
        if args.exc_value is None:
            return
        where = args.err_msg or f"{args.object!r}"
        log_unexpected(args.exc_value.with_traceback(args.exc_traceback), where)

    sys.excepthook, threading.excepthook, sys.unraisablehook = main_thread, other_thread, unraisable
    try:
        yield
    finally:
        sys.excepthook, threading.excepthook, sys.unraisablehook = saved

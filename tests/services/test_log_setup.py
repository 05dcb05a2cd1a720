"""A service's JSON log (brandeln.services.logs.setup) as the only thing it writes: lines printed to
stdout or stderr become records (stdout's on stdout), whatever the loggers' levels; an
exception nothing handled, in the main thread, another thread or a finalizer, is one record at
level error with its traceback inside; everything is put back after the block."""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
from typing import Any

import pytest

from brandeln.services.logs.setup import service_logging

Record = dict[str, Any]


def _records(text: str) -> list[Record]:
    return [json.loads(line) for line in text.splitlines()]


def test_printed_lines_are_records_on_their_own_stream_at_any_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stderr = io.StringIO()
    with service_logging(logging.ERROR, json_lines=True, stream=stderr):
        print("referee listening on 127.0.0.1:1\nadmin token: x", flush=True)
        sys.stdout.write("half a line, ")
        sys.stdout.write("then its end\n\n")
        print("a stray line", file=sys.stderr)
    printed = _records(capsys.readouterr().out)
    assert [r["message"] for r in printed] == [
        "referee listening on 127.0.0.1:1",
        "admin token: x",
        "half a line, then its end",
    ]
    assert {(r["event"], r["level"], r["logger"]) for r in printed} == {
        ("output", "info", "stdout")
    }
    (stray,) = _records(stderr.getvalue())
    assert (stray["event"], stray["level"], stray["message"]) == (
        "output",
        "warning",
        "a stray line",
    )


def test_a_thread_s_unhandled_exception_is_one_error_record_with_its_traceback() -> None:
    stderr = io.StringIO()

    def fail() -> None:
        raise ValueError("from a thread")

    with service_logging(json_lines=True, stream=stderr):
        thread = threading.Thread(target=fail, name="worker")
        thread.start()
        thread.join()
    (record,) = _records(stderr.getvalue())
    assert record["level"] == "error"
    assert record["event"] == "unexpected_error"
    assert "worker" in record["message"]
    assert record["exception"].startswith("Traceback (most recent call last):")
    assert record["exception"].endswith("ValueError: from a thread")


def test_the_main_thread_s_and_a_finalizer_s_unhandled_exceptions_are_records() -> None:
    stderr = io.StringIO()

    class Finalizer:
        def __del__(self) -> None:
            raise OSError("from a finalizer")

    with service_logging(json_lines=True, stream=stderr):
        try:
            raise KeyError("from the main thread")
        except KeyError:
            sys.excepthook(*sys.exc_info())  # as Python calls it
        Finalizer()  # collected at once: its exception cannot be raised, only reported
    main, finalizer = _records(stderr.getvalue())
    assert (main["level"], main["event"]) == ("error", "unexpected_error")
    assert main["exception"].endswith("KeyError: 'from the main thread'")
    assert (finalizer["level"], finalizer["event"]) == ("error", "unexpected_error")
    assert finalizer["exception"].endswith("OSError: from a finalizer")


def test_the_block_puts_back_the_streams_and_hooks_it_found() -> None:
    found = (sys.stdout, sys.stderr, sys.excepthook, threading.excepthook, sys.unraisablehook)
    with service_logging(json_lines=True, stream=io.StringIO()):
        assert sys.stdout is not found[0]
    assert (sys.stdout, sys.stderr, sys.excepthook, threading.excepthook) == found[:4]
    assert sys.unraisablehook is found[4]


def test_a_handler_that_fails_reports_it_as_text_not_in_a_loop() -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("disk full")

    original = sys.stderr
    written = io.StringIO()
    sys.stderr = written  # what logging's report of the failure reaches in the end
    try:
        with service_logging(json_lines=True, stream=Broken()):
            print("a line", file=sys.stderr)
    finally:
        sys.stderr = original
    assert "OSError: disk full" in written.getvalue()

"""The referee's log lines (brandeln.services.logs.formatters, brandeln.services.logs.setup): one
JSON object per line with the record's extra fields, bot-supplied text inert in both forms, the
level applied to the project's loggers only."""

from __future__ import annotations

import enum
import io
import json
import logging
import sys
import warnings
from pathlib import Path

from brandeln.services.logs.formatters import InertTextFormatter, JsonFormatter, inert
from brandeln.services.logs.setup import service_logging

# What a bot may try to put in a line: a terminal command (ESC, CSI as a C1 control), a new
# line of its own, Unicode's line separator and a bidirectional override, a NUL and a DEL.
HOSTILE = 'x\x1b[2J\x9b31m\r\n{"event":"forged"}\u2028\u202e\x00\x7f\U0001f0a1"'


def _record(
    message: str = "penalty",
    *args: object,
    level: int = logging.INFO,
    extra: dict[str, object] | None = None,
) -> logging.LogRecord:
    logger = logging.getLogger("brandeln.arena.table")
    return logger.makeRecord(
        logger.name, level, __file__, 1, message, args, None, extra=extra or {}
    )


def test_a_record_is_one_json_object_with_ts_level_event_and_its_extra_fields() -> None:
    record = _record(
        "match %s: seat %d penalized",
        "m_1",
        2,
        extra={"event": "penalty", "match_id": "m_1", "seat": 2, "bot_id": "b_x", "strikes": 1},
    )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["ts"].endswith("Z")
    assert entry["ts"][:4].isdigit()
    assert "T" in entry["ts"]
    assert entry["level"] == "info"
    assert entry["event"] == "penalty"
    assert (entry["match_id"], entry["seat"], entry["bot_id"], entry["strikes"]) == (
        "m_1",
        2,
        "b_x",
        1,
    )
    assert entry["logger"] == "brandeln.arena.table"
    assert entry["message"] == "match m_1: seat 2 penalized"
    assert list(entry)[:3] == ["ts", "level", "event"]


def test_a_record_without_an_event_is_a_log_event_and_keeps_its_exception() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("grpc").makeRecord(
            "grpc", logging.ERROR, __file__, 1, "failed", (), sys.exc_info()
        )
    entry = json.loads(JsonFormatter().format(record))
    assert entry["event"] == "log"
    assert entry["level"] == "error"
    assert "ValueError: boom" in entry["exception"]


def test_an_extra_field_cannot_replace_the_formatters_own_keys() -> None:
    record = _record(extra={"event": "penalty", "ts": "forged", "level": "forged"})
    entry = json.loads(JsonFormatter().format(record))
    assert entry["ts"] != "forged"
    assert entry["level"] == "info"


def test_values_json_cannot_hold_are_written_as_their_text() -> None:
    class Code(enum.Enum):
        TIMEOUT = 3

    record = _record(extra={"event": "x", "path": Path("/tmp/a"), "code": Code.TIMEOUT})
    entry = json.loads(JsonFormatter().format(record))
    assert entry["path"] == "/tmp/a"
    assert entry["code"] == "Code.TIMEOUT"


def test_bot_text_in_a_json_line_is_escaped_and_reads_back_unchanged() -> None:
    record = _record(
        "seat 1 penalized: %s",
        HOSTILE,
        extra={"event": "penalty", "reason": HOSTILE, "hello_name": HOSTILE},
    )
    line = JsonFormatter().format(record)
    # One line, printable ASCII only: no control character, nothing past ASCII.
    assert all(" " <= char <= "~" for char in line), line
    entry = json.loads(line)
    assert entry["event"] == "penalty"  # the forged event stays inside its string
    assert entry["reason"] == HOSTILE
    assert entry["hello_name"] == HOSTILE
    assert entry["message"] == f"seat 1 penalized: {HOSTILE}"


def test_bot_text_in_a_text_line_is_escaped() -> None:
    record = _record("seat 1 penalized: %s", HOSTILE)
    line = InertTextFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert line.isprintable(), line
    assert line.startswith("INFO brandeln.arena.table: seat 1 penalized: x\\x1b[2J\\x9b31m\\r\\n")
    assert "\\u2028\\u202e\\x00\\x7f" in line
    assert "\U0001f0a1" in line  # printable text stays as it is
    assert inert("Grüß Gott") == "Grüß Gott"


def test_the_level_applies_to_the_projects_loggers_and_libraries_keep_to_warnings() -> None:
    stream = io.StringIO()
    with service_logging(logging.INFO, json_lines=True, stream=stream):
        logging.getLogger("brandeln.arena.referee").info("ours", extra={"event": "match_started"})
        logging.getLogger("brandeln.arena.referee").debug("not at info")
        logging.getLogger("brandeln.datastore").info("ours too")
        logging.getLogger("alembic.runtime.migration").info("a library's detail")
        logging.getLogger("grpc").warning("a library's warning")
        warnings.warn("a Python warning", RuntimeWarning, stacklevel=1)
    logging.getLogger("brandeln.arena.referee").warning("after the block")
    lines = stream.getvalue().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["message"] for e in entries[:3]] == ["ours", "ours too", "a library's warning"]
    assert entries[0]["event"] == "match_started"
    assert "a Python warning" in entries[3]["message"]
    assert len(entries) == 4


def test_the_block_puts_back_the_levels_and_handlers_it_found() -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    arena_level = logging.getLogger("brandeln").level
    with service_logging(logging.DEBUG, stream=io.StringIO()):
        assert logging.getLogger("brandeln").level == logging.DEBUG
    assert root.handlers == handlers
    assert root.level == level
    assert logging.getLogger("brandeln").level == arena_level


def test_text_lines_by_default() -> None:
    stream = io.StringIO()
    with service_logging(stream=stream):
        logging.getLogger("brandeln.arena.connection_guard").warning("closed %d", 3)
    line = stream.getvalue()
    assert line.endswith(" WARNING brandeln.arena.connection_guard: closed 3\n")

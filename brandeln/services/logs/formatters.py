r"""A service's log records (the referee's, the always-on ladder's) as lines an operator's
tools read: one JSON object per line, or text with its control characters escaped.

A record's ``extra`` fields (``event``, ``match_id``, ``bot_id``, ``session_id``, ``seat``...)
become keys of its object, beside ``ts`` (UTC, RFC 3339, milliseconds), ``level``, ``event``
(``log`` for a record that names none: a library's), ``logger`` and ``message``. Some fields
carry what a bot sent (the name and version its Hello gave, a penalty's reason quoting its
answer): written with ``ensure_ascii``, every control character and every character past ASCII
(C1 controls, bidirectional overrides, line separators) is a ``\u`` escape, so a line is one
line and nothing in it reaches a terminal as a command. The text form escapes the same
characters (what :meth:`str.isprintable` refuses) in its message.

>>> record = logging.makeLogRecord({"msg": "seat %d: %s", "args": (2, "a\x1b[2J\nb"),
...     "name": "brandeln.arena.table", "levelname": "INFO", "created": 0.0, "event": "penalty"})
>>> line = JsonFormatter().format(record)
>>> line.startswith('{"ts":"1970-01-01T00:00:00.000Z","level":"info","event":"penalty",')
True
>>> line.endswith(r'"logger":"brandeln.arena.table","message":"seat 2: a\u001b[2J\nb"}')
True
>>> print(InertTextFormatter("%(message)s").format(record))
seat 2: a\x1b[2J\nb
"""

from __future__ import annotations

import enum
import json
import logging
from datetime import UTC, datetime

__all__ = ["InertTextFormatter", "JsonFormatter", "ServiceEvent", "inert"]


class ServiceEvent(enum.StrEnum):
    """The events a service's logging writes itself, beside those of the referee
    (``brandeln.arena.operator_log``) and of the ladder (``brandeln.ladder.living.ladder``)."""

    LOG = "log"  # a record that names no event: a library's (gRPC, uvicorn, asyncio)
    OUTPUT = "output"  # a line the command printed (its address...), under --log-json
    UNEXPECTED_ERROR = "unexpected_error"  # an exception nothing handled, its traceback inside


# What every LogRecord has (its own attributes, and those Formatter.format adds): the rest of a
# record's attributes are the caller's extra fields.
_RECORD_ATTRIBUTES = frozenset(
    {
        *vars(logging.LogRecord("", logging.INFO, "", 0, "", None, None)),
        "message",
        "asctime",
        "taskName",  # Python 3.12
    }
)
# The keys the formatter writes itself: an extra field of the same name does not replace them.
_OWN_KEYS = frozenset({"ts", "level", "event", "logger", "message", "exception", "stack"})
# Extra fields left out: uvicorn's copy of its message with terminal colours in it.
_NOISE_KEYS = frozenset({"color_message"})


def _timestamp(created: float) -> str:
    moment = datetime.fromtimestamp(created, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (see the module's text)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = vars(record)
        entry: dict[str, object] = {
            "ts": _timestamp(record.created),
            "level": record.levelname.lower(),
            "event": fields.get("event", ServiceEvent.LOG),
        }
        for key, value in fields.items():
            if key not in _RECORD_ATTRIBUTES and key not in _OWN_KEYS and key not in _NOISE_KEYS:
                entry[key] = value
        entry["logger"] = record.name
        entry["message"] = record.getMessage()
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # ensure_ascii: every control and non-ASCII character escaped (inert, one line);
        # default=str: an extra field of any other type (an enum, a path) as its text.
        return json.dumps(entry, ensure_ascii=True, separators=(",", ":"), default=str)


def inert(text: str) -> str:
    r"""``text`` with each character :meth:`str.isprintable` refuses (control and format
    characters, line separators) written as its escape.

    >>> print(inert("ok"), inert("a\tb\x9b\u202e"))
    ok a\tb\x9b\u202e
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


class InertTextFormatter(logging.Formatter):
    """A text formatter whose line (the traceback below it aside) is made :func:`inert`."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        return inert(super().formatMessage(record))

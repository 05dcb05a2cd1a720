"""A match's log as the pages read it: typed (:class:`brandeln.arena.logreader.MatchLog`),
validated, and for a running match only its deals that have ended.

A log that cannot be read is a :class:`~brandeln.web.data.DataError` naming it, the line and what is
wrong, which the match page shows in one line (and the bot page beside the match).
"""

from __future__ import annotations

from brandeln.arena.errors import StoreError
from brandeln.arena.logreader import MatchLog, MatchLogError, read_log
from brandeln.arena.logrecords import DealRecord, MatchStatus
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.store.match_index import MatchRecord
from brandeln.protocol.events import DealEndedRecord
from brandeln.web.data import DataError

__all__ = ["finished_deals", "parse_log", "read_match_log"]


def _log_text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise DataError(f"{name}, line {line}: not UTF-8 text") from None


def parse_log(text: str, name: str) -> MatchLog:
    """A log read and validated; :class:`DataError` naming ``name``, the line and what is
    wrong with it."""
    try:
        return read_log(text, name)
    except MatchLogError as error:
        raise DataError(str(error)) from None


def read_match_log(store: RefereeStore, record: MatchRecord) -> MatchLog:
    """The log of ``record`` from the store that indexes it (a file beside an SQLite referee,
    the database itself on PostgreSQL); :class:`DataError` saying what is wrong."""
    try:
        data = store.read_log(record.log_path)
    except StoreError as error:
        raise DataError(f"the log of this match is unreadable: {error}") from None
    except OSError as error:
        raise DataError(f"the log of this match is unreadable: {error.strerror or error}") from None
    text = _log_text(data, record.log_path)
    if record.status is MatchStatus.RUNNING:
        # The referee may be appending to the file as it is read: stop at the last whole line.
        text = text[: text.rfind("\n") + 1]
    return parse_log(text, record.log_path)


def finished_deals(log: MatchLog) -> MatchLog:
    """A running match's log up to its first deal that has not ended.

    The referee writes a deal's records only once it has ended, but a log read while it
    appends them may stop inside them: such a deal is taken for one still in play, whose hands
    no page may show before it ends.
    """
    ended = {event.deal for event in log.public_events() if isinstance(event.body, DealEndedRecord)}
    for index, record in enumerate(log.records):
        if isinstance(record, DealRecord) and record.deal_number not in ended:
            return MatchLog(log.source, log.records[:index], log.header, None)
    return log

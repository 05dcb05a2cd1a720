"""What one match's log says about one bot (chips as soloist and as defender, bids and
contracts, decision latencies), and an app's cache of it: a bot page reads up to a hundred
logs, and a finished log never changes."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from brandeln.arena.logreader import MatchLog
from brandeln.arena.logrecords import DecisionRecord
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.store.match_index import MatchRecord
from brandeln.protocol.events import BidMadeRecord, DealEndedRecord
from brandeln.web.data import DataError
from brandeln.web.match_logs import read_match_log

__all__ = ["CACHED_LOGS", "FiguresCache", "LogFigures", "log_figures"]

CACHED_LOGS: Final = 512


@dataclass
class LogFigures:
    """What one match's log says about one bot (one or more seats)."""

    soloist_chips: int = 0
    soloist_deals: int = 0
    defender_chips: int = 0
    defender_deals: int = 0
    bids: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)
    made: Counter[str] = field(default_factory=Counter)
    latencies: list[int] = field(default_factory=list)

    def add(self, other: LogFigures) -> None:
        self.soloist_chips += other.soloist_chips
        self.soloist_deals += other.soloist_deals
        self.defender_chips += other.defender_chips
        self.defender_deals += other.defender_deals
        self.bids.update(other.bids)
        self.played.update(other.played)
        self.made.update(other.made)
        self.latencies.extend(other.latencies)


def log_figures(log: MatchLog, bot_id: str) -> LogFigures:
    """Chips as soloist and as defender, bids and contracts, decision latencies of the seats
    ``bot_id`` held in one match."""
    figures = LogFigures()
    seats = {seat.seat for seat in log.header.seats if seat.bot_id == bot_id}
    for record in log.records:
        # A request id of 0: no request was sent (a forfeited seat's fallback), no latency.
        if isinstance(record, DecisionRecord) and record.seat in seats and record.request_id:
            figures.latencies.append(record.latency_ms)
    for event in log.public_events():
        body = event.body
        if isinstance(body, BidMadeRecord) and body.seat in seats and body.bid != "pass":
            figures.bids[body.bid] += 1
        elif isinstance(body, DealEndedRecord) and body.soloist is not None:
            for seat in seats:
                chips = body.payments[seat]
                if seat == body.soloist:
                    figures.soloist_chips += chips
                    figures.soloist_deals += 1
                    contract = body.contract or "-"
                    figures.played[contract] += 1
                    figures.made[contract] += int(bool(body.made))
                else:
                    figures.defender_chips += chips
                    figures.defender_deals += 1
    return figures


# (log path, bot id, and what changes when the log does: a file's size and modification
# time, or a log in the database's match status and deals played)
_Key = tuple[str, str, int, int]


class FiguresCache:
    """The figures of the logs an app read lately (at most :data:`CACHED_LOGS`), by log and
    bot. One per app: a log in a database is named by its match id alone, which another
    database may hold too."""

    def __init__(self, size: int = CACHED_LOGS) -> None:
        self.size = size
        self._figures: OrderedDict[_Key, LogFigures] = OrderedDict()
        self._lock = threading.Lock()  # pages are served by several worker threads

    def figures_of(self, store: RefereeStore, record: MatchRecord, bot_id: str) -> LogFigures:
        """The figures for ``bot_id`` of the log of ``record`` (held by ``store``), read once
        per version of the log; :class:`DataError` when it cannot be read."""
        key = self._key(store, record, bot_id)
        with self._lock:
            cached = self._figures.get(key)
            if cached is not None:
                self._figures.move_to_end(key)
                return cached
        figures = log_figures(read_match_log(store, record), bot_id)
        with self._lock:
            self._figures[key] = figures
            while len(self._figures) > self.size:
                self._figures.popitem(last=False)
        return figures

    @staticmethod
    def _key(store: RefereeStore, record: MatchRecord, bot_id: str) -> _Key:
        if store.shared:
            return (record.log_path, bot_id, hash(record.status), record.deals_played)
        try:
            stat = Path(record.log_path).stat()
        except OSError as error:
            raise DataError(f"the log is unreadable: {error.strerror or error}") from None
        return (record.log_path, bot_id, stat.st_size, stat.st_mtime_ns)

"""Match logs: one self-contained JSON Lines file per match, and their replay through the engine.

Layout (one JSON object per line, ``type`` first):

- ``header``: match id, ruleset and its options, players, deals, seed, first dealer, the dealers
  of any fixed deals, suit permutation, seats with bot ids, registered names (``bot_name``), the
  names their Hello gave (``hello_name``) and versions, time control, software versions.
- ``deal``: a deal's number, dealer, seed and every hand as dealt (after the suit permutation), so
  the log replays without the RNG. It comes before the deal's other records, but reaches the
  file only with them, once the deal has ended.
- ``decision``: who was asked (``seat``, ``req``), the action taken, its latency ``ms`` and,
  unless it was ``ok``, how it ended (``status``: ``timeout``, ``forfeited``...). A decision
  record also stands for the public event its action caused (``bid_made``, ``trump_named`` or
  ``card_played``) and carries that event's ``seq``: one line instead of two per action keeps a
  deal under 4 KB. :func:`public_events` gives every event back, these included.
- ``event``: every other public event (``contract_set``, ``trick_taken``, ``deal_ended``,
  ``seat_penalized``... ) with its sequence number, in a compact form.
- ``penalty``: a strike or a forfeit, with its reason. ``bot_log``: a bot's debug text (capped).
- ``footer``: status, balances, ranks, forfeited seats, strikes, deals played.

A deal's records (its ``deal`` record first) reach the file only when the deal has ended, and
the log is flushed then: no hand of a live deal is ever on disk. A referee that dies mid-match
leaves a log of whole deals without a footer, which readers report as incomplete; a match
aborted mid-deal ends with the records of the deal cut short, then its footer. The header's
``fixed_deals`` lists only their dealers: their hands are in each ``deal`` record.

:func:`brandeln.arena.logreader.read_log` reads a log back as typed records, each validated once
(:mod:`brandeln.arena.logschema`), raising :class:`MatchLogError` with the file, line and what is
wrong; :func:`brandeln.arena.replay.replay_log` replays the decisions through the engine and checks
every result the log shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from brandeln.arena.logschema import MatchLogError

__all__ = ["MatchLogError", "MatchLogWriter", "running_log"]

if TYPE_CHECKING:
    from brandeln.arena.logrecords import HeaderRecord
    from brandeln.arena.store.logs import LogSink


# One encoder for every line: json.dumps with custom separators builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"))


class MatchLogWriter:
    """Appends a match's records to its log (:mod:`brandeln.arena.store.logs`: a 0600 file, or
    chunks in the referee's PostgreSQL database).

    A deal's records are held in memory from :meth:`start_deal` to :meth:`end_deal` and only
    then appended, its ``deal`` record (every hand) first: while a deal is live its hands are
    nowhere in the store, however much a bot logs, and the log always ends with a whole deal.
    :attr:`committed` counts the bytes in the store, so a reader of a running match's log can
    stop at the last finished deal.
    """

    def __init__(self, sink: LogSink) -> None:
        self._sink: LogSink | None = sink
        self._held: list[str] | None = None  # the live deal's lines, its deal record first
        self._pending: list[str] = []  # lines written, not yet appended to the store
        self.committed = 0  # bytes in the store (lines are ASCII: characters = bytes)

    def write(self, record: Mapping[str, Any]) -> None:
        if self._sink is not None:
            self.write_line(_ENCODER.encode(record))

    def write_line(self, text: str) -> None:
        """Write a record already encoded as its line (JSON, ASCII, no newline)."""
        if self._sink is None:
            return
        line = text + "\n"
        if self._held is not None:
            self._held.append(line)
        else:
            self._pending.append(line)

    def start_deal(self, record: Mapping[str, Any]) -> None:
        """Hold the deal's record, and every record written after it, until :meth:`end_deal`."""
        if self._sink is None:
            return
        self._release()
        self._held = [_ENCODER.encode(record) + "\n"]

    def end_deal(self) -> None:
        """The deal ended (``DealEnded`` is published): append it, so a finished deal is in
        the store."""
        self._release()
        self.flush()

    def _release(self) -> None:
        held, self._held = self._held, None
        if held:
            self._pending += held

    def flush(self) -> None:
        """Append what was written since the last flush, as one piece."""
        if self._sink is not None and self._pending:
            data = "".join(self._pending).encode()
            self._sink.append(data)
            self._pending = []
            self.committed += len(data)

    def close(self) -> None:
        """Append what is held (a deal cut short: the match is over, its cards may be told)
        and close."""
        if self._sink is not None:
            self._release()
            self.flush()
            self._sink.close()
            self._sink = None


def running_log(data: bytes, header: HeaderRecord | None) -> bytes:
    """A running match's log up to its last finished deal, from the first ``committed`` bytes
    of its store (``data``) behind the header held in memory; the seed is only in the footer,
    so nothing in it tells a deal to come. Nothing before the header is written."""
    if header is None:
        return b""
    _, _, deals = data.partition(b"\n")
    return _ENCODER.encode(header.to_json()).encode() + b"\n" + deals

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

:func:`read_log` validates every record once (:mod:`arena.logschema`), raising
:class:`MatchLogError` with the file, line and what is wrong; :func:`arena.replay.replay_log`
replays the decisions through the engine and checks every result the log shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.logschema import MatchLogError, validate_records
from engine.cards import format_cards
from engine.dealing import Deal
from engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)

__all__ = [
    "MatchLogError",
    "MatchLogWriter",
    "event_record",
    "hands_record",
    "iter_deals",
    "public_events",
    "read_log",
    "running_log",
]

if TYPE_CHECKING:
    from arena.logstore import LogSink

Record = dict[str, Any]


def event_record(event: Event, seq: int, deal_number: int) -> Record:
    """A public engine event as a compact log record."""
    record: Record = {"type": "event", "seq": seq, "deal": deal_number}
    if isinstance(event, BidMade):
        record.update(kind="bid_made", seat=event.seat, bid=event.bid.contract)
    elif isinstance(event, ContractSet):
        record.update(
            kind="contract_set",
            soloist=event.soloist,
            contract=event.contract,
            passed_out=event.passed_out,
        )
    elif isinstance(event, TrumpNamed):
        record.update(kind="trump_named", suit=event.suit.letter)
    elif isinstance(event, CardPlayed):
        record.update(kind="card_played", seat=event.seat, card=str(event.card))
    elif isinstance(event, TrickTaken):
        record.update(
            kind="trick_taken",
            trick=event.trick_number,
            leader=event.leader,
            cards=format_cards(event.cards),
            winner=event.winner,
        )
    elif isinstance(event, DealEnded):
        outcome = event
        record.update(
            kind="deal_ended",
            soloist=outcome.soloist,
            contract=outcome.contract,
            trump=None if outcome.trump is None else outcome.trump.letter,
            passed_out=outcome.passed_out,
            tricks_won=list(outcome.tricks_won),
            made=outcome.made,
            payments=list(outcome.payments),
        )
    return record


# One encoder for every line: json.dumps with custom separators builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"))


class MatchLogWriter:
    """Appends a match's records to its log (:mod:`arena.logstore`: a 0600 file, or chunks in
    the referee's PostgreSQL database).

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


def running_log(data: bytes, header: Mapping[str, Any]) -> bytes:
    """A running match's log up to its last finished deal, from the first ``committed`` bytes
    of its store (``data``) behind the header held in memory; the seed is only in the footer,
    so nothing in it tells a deal to come."""
    _, _, deals = data.partition(b"\n")
    return _ENCODER.encode(header).encode() + b"\n" + deals


def read_log(text: str, source: str = "match log") -> list[Record]:
    """Parse a log's lines and validate every record (:mod:`arena.logschema`).

    ``source`` names the log in errors (its file, usually). Raises :class:`MatchLogError`
    (a ``ValueError``) naming the line and what is wrong: not JSON, no ``type``, a key missing
    or of the wrong kind, a seat out of range, records out of order.
    """
    records: list[Record] = []
    lines: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise MatchLogError(source, number, f"not JSON: {error}") from None
        except RecursionError:
            raise MatchLogError(source, number, "not JSON: nested too deeply") from None
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise MatchLogError(source, number, "not a record: an object with a 'type'")
        records.append(record)
        lines.append(number)
    validate_records(records, source, lines)
    return records


def action_event(decision: Record, deal: int) -> Record:
    """The public event a decision record stands for, as an ``event`` record."""
    action = str(decision["action"])
    event: Record = {"type": "event", "seq": decision["seq"], "deal": deal}
    if action.startswith("trump "):
        event.update(kind="trump_named", suit=action.removeprefix("trump "))
    elif len(action) == 2 and action[0] in "CSHD" and action[1] in "789TJQKA":
        event.update(kind="card_played", seat=decision["seat"], card=action)
    else:
        event.update(kind="bid_made", seat=decision["seat"], bid=action)
    return event


def public_events(records: Sequence[Record]) -> list[Record]:
    """Every public event of a log in order, those that decision records stand for included."""
    events: list[Record] = []
    deal = 0
    for record in records:
        if record["type"] == "deal":
            deal = int(record["deal_number"])
        elif record["type"] == "event":
            events.append(record)
        elif record["type"] == "decision" and "seq" in record:
            events.append(action_event(record, deal))
    return events


def iter_deals(records: Sequence[Record]) -> Iterator[tuple[Record, list[Record]]]:
    """Each ``deal`` record with the decision records that follow it."""
    current: Record | None = None
    decisions: list[Record] = []
    for record in records:
        if record["type"] == "deal":
            if current is not None:
                yield current, decisions
            current, decisions = record, []
        elif record["type"] == "decision" and current is not None:
            decisions.append(record)
    if current is not None:
        yield current, decisions


def hands_record(deal: Deal) -> dict[str, Any]:
    """The hands of a deal in notation, for the ``deal`` record."""
    return {
        "hands": [format_cards(hand) for hand in deal.hands],
        "blind": format_cards(deal.blind) if deal.blind else "",
    }

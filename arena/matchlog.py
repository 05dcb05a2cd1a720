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
:class:`MatchLogError` with the file, line and what is wrong; :func:`replay_log` replays the
decisions through the engine and checks every result the log shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.logschema import MatchLogError, validate_records
from arena.private_files import open_private, private_dir
from engine.actions import parse_action
from engine.cards import CardSet, format_cards, parse_cards
from engine.dealing import Deal, fixed_deal
from engine.errors import EngineError, IllegalActionError
from engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from engine.match import MatchState
from engine.rulesets import find_ruleset
from engine.state import DealState

__all__ = [
    "MatchLogError",
    "MatchLogWriter",
    "ReplayReport",
    "event_record",
    "read_log",
    "replay_log",
]

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
    """Appends a match's records to its JSONL file (0600, in a 0700 folder).

    A deal's records are held in memory from :meth:`start_deal` to :meth:`end_deal` and only
    then written and flushed, its ``deal`` record (every hand) first: while a deal is live its
    hands are nowhere on disk, however much a bot logs, and the file always ends with a whole
    deal. :attr:`committed` counts the bytes on disk, so a reader of a running match's file can
    stop at the last finished deal.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        private_dir(path.parent)
        self._file: IO[str] | None = open_private(path)
        self._held: list[str] | None = None  # the live deal's lines, its deal record first
        self._pending = 0  # bytes written to the file object, not yet flushed
        self.committed = 0  # bytes flushed to the file (lines are ASCII: characters = bytes)

    def write(self, record: Mapping[str, Any]) -> None:
        if self._file is None:
            return
        line = _ENCODER.encode(record) + "\n"
        if self._held is not None:
            self._held.append(line)
        else:
            self._file.write(line)
            self._pending += len(line)

    def start_deal(self, record: Mapping[str, Any]) -> None:
        """Hold the deal's record, and every record written after it, until :meth:`end_deal`."""
        if self._file is None:
            return
        self._release()
        self._held = [_ENCODER.encode(record) + "\n"]

    def end_deal(self) -> None:
        """The deal ended (``DealEnded`` is published): write it and flush, so a finished deal
        is on disk."""
        self._release()
        self.flush()

    def _release(self) -> None:
        held, self._held = self._held, None
        if held and self._file is not None:
            text = "".join(held)
            self._file.write(text)
            self._pending += len(text)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()
            self.committed += self._pending
            self._pending = 0

    def close(self) -> None:
        """Write what is held (a deal cut short: the match is over, its cards may be told),
        flush and close."""
        if self._file is not None:
            self._release()
            self.flush()
            self._file.close()
            self._file = None


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


@dataclass(frozen=True)
class ReplayReport:
    """What replaying a log through the engine found.

    ``problems`` lists, in the log's order, every result the log shows that the replay does not
    give (``deal 2, trick 3: winner: the log says 1, the replay gives 2``), and anything that
    stopped the replay; the first one is the first field that differs.
    """

    match_id: str
    deals_replayed: int
    complete: bool
    reproduced: bool
    recorded_balances: tuple[int, ...] | None
    replayed_balances: tuple[int, ...]
    problems: tuple[str, ...]


# Penalty codes that are strikes (arena.table.SeatOutcome; forfeits and disconnects are not).
STRIKE_CODES = frozenset({"timeout", "illegal", "malformed", "protocol_error"})
# The events the engine derives from the decisions; the others stand for a decision's action.
_DERIVED_EVENTS = ("contract_set", "trick_taken", "deal_ended")
_FIELD_NAMES = {"tricks_won": "tricks won", "passed_out": "passed out"}


def _event_label(record: Record) -> str:
    kind = record["kind"]
    if kind == "trick_taken":
        return f"trick {record['trick']}"
    return {"contract_set": "auction", "deal_ended": "result"}.get(kind, str(kind))


def _differs(where: str, field: str, logged: Any, replayed: Any) -> str:
    name = _FIELD_NAMES.get(field, field)
    return f"{where}: {name}: the log says {logged!r}, the replay gives {replayed!r}"


class _Replay:
    """One pass over a validated log: replays each deal, checks each shown result on the way."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = records
        self.header = records[0]
        self.footer = records[-1] if records[-1]["type"] == "footer" else None
        self.players = int(self.header["players"])
        self.max_strikes = int((self.header.get("time_control") or {}).get("max_strikes", 3))
        self.problems: list[str] = []
        self.strikes = [0] * self.players
        self.forfeited: set[int] = set()
        self.timeouts_unmatched = [0] * self.players
        self.deals = 0
        self.number = 0
        self.state: DealState | None = None
        self.expected: list[Record] = []  # derived events the replay gave, not yet in the log
        self.ruleset = find_ruleset(str(self.header["ruleset"]), self.header.get("options") or {})
        if self.ruleset.players != self.players:
            raise ValueError(
                f"the header seats {self.players} players; ruleset {self.ruleset.id!r} "
                f"has {self.ruleset.players}"
            )
        self.match = MatchState.new(
            self.ruleset, int(self.header["deals"]), int(self.header.get("first_dealer", 0))
        )

    def run(self) -> None:
        """Replay every record in order; stops at the first record the engine cannot apply."""
        for record in self.records:
            handler = {
                "deal": self._deal,
                "decision": self._decision,
                "event": self._event,
                "penalty": self._penalty,
            }.get(record["type"])
            if handler is not None and not handler(record):
                return
        self._end_of_deal(last=True)
        self._check_footer()

    # --- deals and decisions ---------------------------------------------------------------
    def _deal(self, record: Record) -> bool:
        self._end_of_deal(last=False)
        self.number = int(record["deal_number"])
        where = f"deal {self.number}"
        if self.match.is_over:
            self.problems.append(f"{where}: the match was over after {self.deals} deals")
            return False
        if record["dealer"] != self.match.dealer_of_next_deal:
            self.problems.append(
                _differs(where, "dealer", record["dealer"], self.match.dealer_of_next_deal)
            )
            return False
        try:
            hands = [parse_cards(text) for text in record["hands"]]
            blind = parse_cards(record.get("blind") or "")
            deal = fixed_deal(self.ruleset, int(record["dealer"]), hands, blind)
        except (EngineError, ValueError) as error:
            self.problems.append(f"{where}: the hands cannot be dealt: {error}")
            return False
        self.state = self.match.start_deal(deal)
        return True

    def _decision(self, record: Record) -> bool:
        seq = record.get("seq", "?")
        where = f"deal {self.number}, decision {seq}"
        state = self.state
        if state is None or state.is_over():
            self.problems.append(f"{where}: no deal is being played")
            return False
        self._missing_events()
        seat = int(record["seat"])
        if state.to_act != seat:
            self.problems.append(_differs(where, "seat to act", seat, state.to_act))
            return False
        status = record.get("status", "ok")
        fallback = state.legal_actions()[0]  # R12.3: what the referee plays for a failed seat
        if status == "timeout":
            if self.timeouts_unmatched[seat] != 1:
                self.problems.append(f"{where}: a timeout of seat {seat} without its penalty")
            self.timeouts_unmatched[seat] = 0
        elif self.timeouts_unmatched[seat]:
            self.problems.append(f"{where}: seat {seat} has a timeout penalty but answered")
            self.timeouts_unmatched[seat] = 0
        if seat in self.forfeited and status == "ok":
            self.problems.append(f"{where}: status: seat {seat} had forfeited, yet it answered")
        elif status in ("forfeited", "disconnected") and seat not in self.forfeited:
            self.problems.append(f"{where}: status: {status}, but seat {seat} had not forfeited")
        try:
            action = parse_action(str(record["action"]))
        except EngineError as error:
            self.problems.append(f"{where}: {error}")
            return False
        if status != "ok" and action != fallback:
            self.problems.append(
                f"{where}: a {status} decision plays the fallback {fallback}, the log has {action}"
            )
        try:
            state, events = state.step(action)
        except IllegalActionError as error:
            self.problems.append(f"{where}: {action} is illegal: {error}")
            return False
        self.state = state
        for event in events:
            if isinstance(event, DealEnded):
                outcome = state.outcome()
                assert outcome is not None
                self.match = self.match.record(outcome)
                self.deals += 1
            if not isinstance(event, BidMade | TrumpNamed | CardPlayed):
                self.expected.append(event_record(event, 0, self.number))
        return True

    def _event(self, record: Record) -> bool:
        if record["kind"] not in _DERIVED_EVENTS:
            return True
        where = f"deal {self.number}, {_event_label(record)}"
        if not self.expected:
            self.problems.append(
                f"{where}: the log has a {record['kind']} event the replay does not give"
            )
            return True
        expected = self.expected.pop(0)
        if expected["kind"] != record["kind"]:
            self.problems.append(_differs(where, "event", record["kind"], expected["kind"]))
            return True
        for key, value in expected.items():
            if key not in ("type", "seq") and record.get(key) != value:
                self.problems.append(_differs(where, key, record.get(key), value))
                break  # the first field of an event that differs; the others follow from it
        return True

    def _missing_events(self) -> None:
        for expected in self.expected:
            self.problems.append(
                f"deal {self.number}, {_event_label(expected)}: the log lacks the "
                f"{expected['kind']} event the replay gives"
            )
        self.expected.clear()

    def _end_of_deal(self, last: bool) -> None:
        self._missing_events()
        state = self.state
        if state is None or state.is_over():
            return
        aborted = self.footer is None or self.footer["status"] != "finished"
        if not (last and aborted):
            # Only the last deal of a match cut short may stop before its end.
            self.problems.append(f"deal {self.number}: the decisions stop before the deal ends")

    # --- penalties and the footer ----------------------------------------------------------
    def _penalty(self, record: Record) -> bool:
        seat, code = int(record["seat"]), str(record["code"])
        where = f"deal {record['deal']}, penalty of seat {seat} ({code})"
        if code in STRIKE_CODES:
            self.strikes[seat] += 1
            if code == "timeout":
                self.timeouts_unmatched[seat] += 1
        elif code == "forfeited":
            if self.strikes[seat] < self.max_strikes or seat in self.forfeited:
                self.problems.append(
                    f"{where}: a forfeit at {self.strikes[seat]} strikes "
                    f"(max_strikes {self.max_strikes})"
                )
            self.forfeited.add(seat)
        elif code == "disconnected":
            self.forfeited.add(seat)
        if record["strikes"] != self.strikes[seat]:
            self.problems.append(_differs(where, "strikes", record["strikes"], self.strikes[seat]))
        return True

    def _check_footer(self) -> None:
        footer = self.footer
        if footer is None:
            self.problems.append("the log has no footer (the match did not finish)")
            return
        finished = footer["status"] == "finished"
        if finished and not self.match.is_over:
            self.problems.append(
                _differs("footer", "status", "finished", f"running after {self.deals} deals")
            )
        forfeited = sorted(
            self.forfeited | {s for s in range(self.players) if self.strikes[s] >= self.max_strikes}
        )
        replayed: list[tuple[str, object]] = [
            ("balances", list(self.replayed_balances())),
            ("ranks", list(self.match.ranks(forfeited)) if finished else []),
            ("forfeited", forfeited),
            ("strikes", self.strikes),
            ("deals_played", self.deals),
            ("pool", self.match.pool),
        ]
        for key, value in replayed:
            if key in footer and footer[key] != value:
                self.problems.append(_differs("footer", key, footer[key], value))

    def replayed_balances(self) -> tuple[int, ...]:
        """The balances the footer should show: with the pool shared out once finished."""
        if self.footer is not None and self.footer["status"] == "finished":
            return self.match.final_balances()
        return self.match.balances


def replay_log(text: str, source: str = "match log") -> ReplayReport:
    """Replay a match log through the engine and check every result it shows.

    Every deal is rebuilt from its recorded hands and every recorded decision applied in order;
    each result the log shows is compared with what the engine gives: the auction's contract,
    trump, each trick's leader, cards and winner, each deal's tricks won and payments, and the
    footer's balances, ranks, strikes, forfeited seats and deal count (strikes and forfeits
    recomputed from the penalty records and the time control). A failed seat's decision must
    be the fallback. Raises :class:`MatchLogError` when the log cannot be read at all.
    """
    records = read_log(text, source)
    header = records[0]
    match_id = str(header["match_id"])
    footer = records[-1] if records[-1]["type"] == "footer" else None
    try:
        replay = _Replay(records)
    except (EngineError, ValueError) as error:
        recorded = tuple(footer["balances"]) if footer is not None else None
        return ReplayReport(match_id, 0, False, False, recorded, (), (f"header: {error}",))
    replay.run()
    complete = footer is not None and footer["status"] == "finished"
    return ReplayReport(
        match_id=match_id,
        deals_replayed=replay.deals,
        complete=complete,
        reproduced=complete and not replay.problems,
        recorded_balances=tuple(footer["balances"]) if footer is not None else None,
        replayed_balances=replay.replayed_balances(),
        problems=tuple(replay.problems),
    )


def hands_record(deal: Deal) -> dict[str, Any]:
    """The hands of a deal in notation, for the ``deal`` record."""
    return {
        "hands": [format_cards(hand) for hand in deal.hands],
        "blind": format_cards(deal.blind) if deal.blind else "",
    }


def cardset(text: str) -> CardSet:
    return CardSet(parse_cards(text))

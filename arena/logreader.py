"""A match log read back as typed records (layout: :mod:`brandeln.arena.matchlog`).

:func:`read_log` parses every line, validates it once (:mod:`brandeln.arena.logschema`) and reads
each record into its class (:mod:`brandeln.arena.logrecords`, :mod:`arena.logevents`), so every
reader (the replay, ``matches show``, ``watch``, the web pages) takes fields by name and never
guards a key. :class:`MatchLog` gives the header (and with it the ruleset), the footer, the deals
with what happened in each, and every public event in order.

>>> log = read_log(
...     '{"type":"header","match_id":"m1","ruleset":"standard","players":4,"deals":1,'
...     '"seats":[{"seat":0,"bot_id":"a","bot_name":"a"},{"seat":1,"bot_id":"b","bot_name":"b"},'
...     '{"seat":2,"bot_id":"c","bot_name":"c"},{"seat":3,"bot_id":"d","bot_name":"d"}]}')
>>> log.header.match_id, log.ruleset().players, log.footer, log.deals()
('m1', 4, None, [])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from brandeln.arena.logrecords import (
    BotLogRecord,
    DealRecord,
    DecisionRecord,
    FooterRecord,
    HeaderRecord,
    MatchStatus,
    OtherRecord,
    Penalty,
)
from brandeln.arena.logschema import MatchLogError, validate_records
from brandeln.engine.actions import Action, parse_action
from brandeln.engine.dealing import Deal
from brandeln.engine.errors import EngineError
from brandeln.engine.rulesets import Ruleset
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    EventRecord,
    TrumpNamedRecord,
)

__all__ = [
    "LogRecord",
    "LoggedDeal",
    "MatchLog",
    "MatchLogError",
    "decision_event",
    "read_log",
]

LogRecord: TypeAlias = (
    HeaderRecord
    | DealRecord
    | DecisionRecord
    | EventRecord
    | Penalty
    | BotLogRecord
    | FooterRecord
    | OtherRecord
)

_READERS: dict[str, Any] = {
    "header": HeaderRecord.from_json,
    "deal": DealRecord.from_json,
    "decision": DecisionRecord.from_json,
    "event": EventRecord.from_json,
    "penalty": Penalty.from_json,
    "bot_log": BotLogRecord.from_json,
    "footer": FooterRecord.from_json,
}
_CARD_RANKS = "789TJQKA"


def decision_event(decision: DecisionRecord, deal: int) -> EventRecord | None:
    """The public event a decision record stands for (a bid, the trump, a card), or None
    for a line written without its event's number."""
    if decision.seq is None:
        return None
    action = decision.action
    if action.startswith("trump "):
        body: Any = TrumpNamedRecord(action.removeprefix("trump "))
    elif len(action) == 2 and action[0] in "CSHD" and action[1] in _CARD_RANKS:
        body = CardPlayedRecord(decision.seat, action)
    else:
        body = BidMadeRecord(decision.seat, action)
    return EventRecord(decision.seq, deal, body)


@dataclass(frozen=True)
class LoggedDeal:
    """One deal of a log: its ``deal`` record and the records that follow it, in order."""

    record: DealRecord
    decisions: tuple[DecisionRecord, ...] = ()
    # Every public event of the deal in order, those its decisions stand for included.
    events: tuple[EventRecord, ...] = ()
    penalties: tuple[Penalty, ...] = ()
    bot_logs: tuple[BotLogRecord, ...] = ()

    @property
    def number(self) -> int:
        return self.record.deal_number

    def actions(self) -> list[Action]:
        """The actions its decisions applied, in order, up to the first that does not parse
        (a damaged log)."""
        actions = []
        for decision in self.decisions:
            try:
                actions.append(parse_action(decision.action))
            except EngineError:
                break
        return actions

    def engine(self, ruleset: Ruleset) -> tuple[Deal, list[Action]]:
        """The deal as the engine deals it and the actions played on it (an EngineError or
        ValueError when its hands cannot be dealt)."""
        return self.record.deal(ruleset), self.actions()


@dataclass(frozen=True)
class MatchLog:
    """A validated log's records, in order, the header first."""

    source: str
    records: tuple[LogRecord, ...]
    header: HeaderRecord
    footer: FooterRecord | None
    _deals: list[LoggedDeal] = field(default_factory=list, repr=False, compare=False)

    @property
    def finished(self) -> bool:
        return self.footer is not None and self.footer.status is MatchStatus.FINISHED

    def ruleset(self) -> Ruleset:
        """The match's ruleset (an EngineError when the log names one this engine lacks)."""
        return self.header.ruleset()

    def deals(self) -> list[LoggedDeal]:
        """Each deal with what happened in it, in order (computed once)."""
        if not self._deals and any(isinstance(r, DealRecord) for r in self.records):
            self._deals.extend(_group_deals(self.records))
        return self._deals

    def deal(self, number: int) -> LoggedDeal:
        """Deal ``number``; KeyError naming the deals the log has."""
        deals = self.deals()
        for logged in deals:
            if logged.number == number:
                return logged
        known = ", ".join(str(logged.number) for logged in deals)
        raise KeyError(f"match has no deal {number}; deals: {known}")

    def public_events(self) -> list[EventRecord]:
        """Every public event of the match in order (those decisions stand for included)."""
        return [event for logged in self.deals() for event in logged.events]

    def penalties(self) -> list[Penalty]:
        return [record for record in self.records if isinstance(record, Penalty)]


def _group_deals(records: Sequence[LogRecord]) -> list[LoggedDeal]:
    deals: list[LoggedDeal] = []
    current: DealRecord | None = None
    parts: dict[str, list[Any]] = {}

    def close() -> None:
        if current is not None:
            deals.append(
                LoggedDeal(
                    current,
                    tuple(parts["decisions"]),
                    tuple(parts["events"]),
                    tuple(parts["penalties"]),
                    tuple(parts["bot_logs"]),
                )
            )

    for record in records:
        if isinstance(record, DealRecord):
            close()
            current = record
            parts = {"decisions": [], "events": [], "penalties": [], "bot_logs": []}
        elif current is None:
            continue
        elif isinstance(record, DecisionRecord):
            parts["decisions"].append(record)
            event = decision_event(record, current.deal_number)
            if event is not None:
                parts["events"].append(event)
        elif isinstance(record, EventRecord):
            parts["events"].append(record)
        elif isinstance(record, Penalty):
            parts["penalties"].append(record)
        elif isinstance(record, BotLogRecord):
            parts["bot_logs"].append(record)
    close()
    return deals


def read_log(text: str, source: str = "match log") -> MatchLog:
    """Parse a log's lines, validate every record (:mod:`brandeln.arena.logschema`) and read it.

    ``source`` names the log in errors (its file, usually). Raises :class:`MatchLogError`
    (a ``ValueError``) naming the line and what is wrong: not JSON, no ``type``, a key missing
    or of the wrong kind, a seat out of range, records out of order, a status or a penalty
    code the log format does not have.
    """
    raw: list[dict[str, Any]] = []
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
        raw.append(record)
        lines.append(number)
    validate_records(raw, source, lines)
    typed = [_typed(record, source, line) for record, line in zip(raw, lines, strict=True)]
    header = typed[0]
    assert isinstance(header, HeaderRecord)  # validate_records: the first record is the header
    footer = typed[-1] if isinstance(typed[-1], FooterRecord) else None
    return MatchLog(source, tuple(typed), header, footer)


def _typed(record: Mapping[str, Any], source: str, line: int) -> LogRecord:
    reader = _READERS.get(record["type"])
    if reader is None:
        values = {k: v for k, v in record.items() if k != "type"}
        return OtherRecord(record["type"], values)
    try:
        typed: LogRecord = reader(record)
    except (ValueError, TypeError) as error:  # a status or code the format lacks
        raise MatchLogError(source, line, f"the {record['type']} record: {error}") from None
    return typed

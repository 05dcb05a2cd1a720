"""Replaying a match log through the engine, checking every result the log shows.

The log's layout is in :mod:`brandeln.arena.matchlog`; :func:`replay_log` reads it (validated),
rebuilds each deal from its recorded hands, applies every recorded decision in order and compares
each shown result with what the engine gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from brandeln.arena.logreader import LoggedDeal, MatchLog, MatchLogError, read_log
from brandeln.arena.logrecords import DealRecord, DecisionRecord, FooterRecord, MatchStatus, Penalty
from brandeln.arena.seat import SeatOutcome
from brandeln.engine.actions import Action, parse_action
from brandeln.engine.dealing import Deal
from brandeln.engine.errors import EngineError, IllegalActionError
from brandeln.engine.events import BidMade, CardPlayed, DealEnded, TrumpNamed
from brandeln.engine.match import MatchState
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    EventRecord,
    TrickTakenRecord,
    TrumpNamedRecord,
)

__all__ = ["MatchLogError", "ReplayReport", "engine_deal", "logged_deal", "replay_log"]


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
    # The rest of the result the footer should show, recomputed: a view shows these, not the
    # log's own, so an edited footer cannot pass for the result.
    replayed_ranks: tuple[int, ...] = ()
    replayed_forfeited: tuple[int, ...] = ()
    replayed_strikes: tuple[int, ...] = ()

    def index_problems(self, recorded: Mapping[str, Any]) -> list[str]:
        """What a match index row (``balances``, ``ranks``, ``forfeited``, ``strikes``,
        ``deals_played``) says that the replay does not give: the row is what lists, ratings
        and leaderboards show, so it is checked like the footer. Only for a finished match."""
        if not self.complete:
            return []
        replayed: dict[str, object] = {
            "balances": list(self.replayed_balances),
            "ranks": list(self.replayed_ranks),
            "forfeited": list(self.replayed_forfeited),
            "strikes": list(self.replayed_strikes),
            "deals_played": self.deals_replayed,
        }
        problems = []
        for key, value in replayed.items():
            shown = recorded[key]
            shown = list(shown) if isinstance(shown, tuple | list) else shown
            if shown != value:
                problems.append(
                    f"the match index: {_FIELD_NAMES.get(key, key)}: the database says "
                    f"{shown!r}, the replay gives {value!r}"
                )
        return problems


# Penalty codes that are strikes (forfeits and disconnects are not).
STRIKES = frozenset(
    {SeatOutcome.TIMEOUT, SeatOutcome.ILLEGAL, SeatOutcome.MALFORMED, SeatOutcome.PROTOCOL_ERROR}
)
# The events that stand for a decision's action; the engine derives the others from them.
_ACTION_EVENTS = (BidMadeRecord, TrumpNamedRecord, CardPlayedRecord)
_FIELD_NAMES = {
    "tricks_won": "tricks won",
    "passed_out": "passed out",
    "deals_played": "deals played",
}


def _event_label(event: EventRecord) -> str:
    body = event.body
    if isinstance(body, TrickTakenRecord):
        return f"trick {body.trick}"
    return {"contract_set": "auction", "deal_ended": "result"}.get(body.kind, body.kind)


def _differs(where: str, field: str, logged: Any, replayed: Any) -> str:
    name = _FIELD_NAMES.get(field, field)
    return f"{where}: {name}: the log says {logged!r}, the replay gives {replayed!r}"


class _Replay:
    """One pass over a read log: replays each deal, checks each shown result on the way."""

    def __init__(self, log: MatchLog) -> None:
        self.log = log
        self.footer: FooterRecord | None = log.footer
        self.players = log.header.players
        self.max_strikes = log.header.time_control.max_strikes
        self.problems: list[str] = []
        self.strikes = [0] * self.players
        self.forfeited: set[int] = set()
        self.timeouts_unmatched = [0] * self.players
        self.deals = 0
        self.number = 0
        self.state: DealState | None = None
        self.expected: list[EventRecord] = []  # derived events the replay gave, not yet logged
        self.ruleset = log.ruleset()
        if self.ruleset.players != self.players:
            raise ValueError(
                f"the header seats {self.players} players; ruleset {self.ruleset.id!r} "
                f"has {self.ruleset.players}"
            )
        self.match = MatchState.new(self.ruleset, log.header.deals, log.header.first_dealer)

    @property
    def finished(self) -> bool:
        return self.footer is not None and self.footer.status is MatchStatus.FINISHED

    def run(self) -> None:
        """Replay every record in order; stops at the first record the engine cannot apply."""
        for record in self.log.records:
            if isinstance(record, DealRecord):
                go_on = self._deal(record)
            elif isinstance(record, DecisionRecord):
                go_on = self._decision(record)
            elif isinstance(record, EventRecord):
                go_on = self._event(record)
            elif isinstance(record, Penalty):
                go_on = self._penalty(record)
            else:
                go_on = True
            if not go_on:
                return
        self._end_of_deal(last=True)
        self._check_footer()

    # --- deals and decisions ---------------------------------------------------------------
    def _deal(self, record: DealRecord) -> bool:
        self._end_of_deal(last=False)
        self.number = record.deal_number
        where = f"deal {self.number}"
        if self.match.is_over:
            self.problems.append(f"{where}: the match was over after {self.deals} deals")
            return False
        if record.dealer != self.match.dealer_of_next_deal:
            self.problems.append(
                _differs(where, "dealer", record.dealer, self.match.dealer_of_next_deal)
            )
            return False
        try:
            deal = record.deal(self.ruleset)
        except (EngineError, ValueError) as error:
            self.problems.append(f"{where}: the hands cannot be dealt: {error}")
            return False
        self.state = self.match.start_deal(deal)
        return True

    def _decision(self, record: DecisionRecord) -> bool:
        seq = "?" if record.seq is None else record.seq
        where = f"deal {self.number}, decision {seq}"
        state = self.state
        if state is None or state.is_over():
            self.problems.append(f"{where}: no deal is being played")
            return False
        self._missing_events()
        seat = record.seat
        if state.to_act != seat:
            self.problems.append(_differs(where, "seat to act", seat, state.to_act))
            return False
        status = record.outcome
        fallback = state.legal_actions()[0]  # R12.3: what the referee plays for a failed seat
        if status is SeatOutcome.TIMEOUT:
            if self.timeouts_unmatched[seat] != 1:
                self.problems.append(f"{where}: a timeout of seat {seat} without its penalty")
            self.timeouts_unmatched[seat] = 0
        elif self.timeouts_unmatched[seat]:
            self.problems.append(f"{where}: seat {seat} has a timeout penalty but answered")
            self.timeouts_unmatched[seat] = 0
        if seat in self.forfeited and status is SeatOutcome.OK:
            self.problems.append(f"{where}: status: seat {seat} had forfeited, yet it answered")
        elif (
            status in (SeatOutcome.FORFEITED, SeatOutcome.DISCONNECTED)
            and seat not in self.forfeited
        ):
            self.problems.append(
                f"{where}: status: {status.value}, but seat {seat} had not forfeited"
            )
        try:
            action = parse_action(record.action)
        except EngineError as error:
            self.problems.append(f"{where}: {error}")
            return False
        if status is not SeatOutcome.OK and action != fallback:
            self.problems.append(
                f"{where}: a {status.value} decision plays the fallback {fallback}, "
                f"the log has {action}"
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
                self.expected.append(EventRecord.of(event, 0, self.number))
        return True

    def _event(self, record: EventRecord) -> bool:
        if isinstance(record.body, _ACTION_EVENTS) or record.kind not in _DERIVED_KINDS:
            return True
        where = f"deal {self.number}, {_event_label(record)}"
        if not self.expected:
            self.problems.append(
                f"{where}: the log has a {record.kind} event the replay does not give"
            )
            return True
        expected = self.expected.pop(0)
        if expected.kind != record.kind:
            self.problems.append(_differs(where, "event", record.kind, expected.kind))
            return True
        logged = record.to_json()
        for key, value in expected.to_json().items():
            if key not in ("type", "seq") and logged.get(key) != value:
                self.problems.append(_differs(where, key, logged.get(key), value))
                break  # the first field of an event that differs; the others follow from it
        return True

    def _missing_events(self) -> None:
        for expected in self.expected:
            self.problems.append(
                f"deal {self.number}, {_event_label(expected)}: the log lacks the "
                f"{expected.kind} event the replay gives"
            )
        self.expected.clear()

    def _end_of_deal(self, last: bool) -> None:
        self._missing_events()
        state = self.state
        if state is None or state.is_over():
            return
        if not (last and not self.finished):
            # Only the last deal of a match cut short may stop before its end.
            self.problems.append(f"deal {self.number}: the decisions stop before the deal ends")

    # --- penalties and the footer ----------------------------------------------------------
    def _penalty(self, record: Penalty) -> bool:
        seat, code = record.seat, record.code
        where = f"deal {record.deal}, penalty of seat {seat} ({code.value})"
        if code in STRIKES:
            self.strikes[seat] += 1
            if code is SeatOutcome.TIMEOUT:
                self.timeouts_unmatched[seat] += 1
        elif code is SeatOutcome.FORFEITED:
            if self.strikes[seat] < self.max_strikes or seat in self.forfeited:
                self.problems.append(
                    f"{where}: a forfeit at {self.strikes[seat]} strikes "
                    f"(max_strikes {self.max_strikes})"
                )
            self.forfeited.add(seat)
        elif code is SeatOutcome.DISCONNECTED:
            self.forfeited.add(seat)
        if record.strikes != self.strikes[seat]:
            self.problems.append(_differs(where, "strikes", record.strikes, self.strikes[seat]))
        return True

    def _check_footer(self) -> None:
        footer = self.footer
        if footer is None:
            self.problems.append("the log has no footer (the match did not finish)")
            return
        if self.finished and not self.match.is_over:
            self.problems.append(
                _differs("footer", "status", "finished", f"running after {self.deals} deals")
            )
        shown = footer.to_json()
        replayed: list[tuple[str, object]] = [
            ("balances", list(self.replayed_balances())),
            ("ranks", list(self.replayed_ranks())),
            ("forfeited", self.replayed_forfeited()),
            ("strikes", self.strikes),
            ("deals_played", self.deals),
            ("pool", self.match.pool),
        ]
        for key, value in replayed:
            if shown[key] is not None and shown[key] != value:
                self.problems.append(_differs("footer", key, shown[key], value))

    def replayed_forfeited(self) -> list[int]:
        strikes_out = {s for s in range(self.players) if self.strikes[s] >= self.max_strikes}
        return sorted(self.forfeited | strikes_out)

    def replayed_ranks(self) -> tuple[int, ...]:
        """The ranks a finished match's footer should show (none before it finishes)."""
        if not self.finished:
            return ()
        return self.match.ranks(self.replayed_forfeited())

    def replayed_balances(self) -> tuple[int, ...]:
        """The balances the footer should show: with the pool shared out once finished."""
        if self.finished:
            return self.match.final_balances()
        return self.match.balances


_DERIVED_KINDS = ("contract_set", "trick_taken", "deal_ended")


def replay_log(text: str, source: str = "match log") -> ReplayReport:
    """Replay a match log through the engine and check every result it shows.

    Every deal is rebuilt from its recorded hands and every recorded decision applied in order;
    each result the log shows is compared with what the engine gives: the auction's contract,
    trump, each trick's leader, cards and winner, each deal's tricks won and payments, and the
    footer's balances, ranks, strikes, forfeited seats and deal count (strikes and forfeits
    recomputed from the penalty records and the time control). A failed seat's decision must
    be the fallback. Raises :class:`MatchLogError` when the log cannot be read at all.
    """
    return replay(read_log(text, source))


def replay(log: MatchLog) -> ReplayReport:
    """:func:`replay_log` of a log already read."""
    footer = log.footer
    recorded = footer.balances if footer is not None else None
    try:
        replayed = _Replay(log)
    except (EngineError, ValueError) as error:
        return ReplayReport(
            log.header.match_id, 0, False, False, recorded, (), (f"header: {error}",)
        )
    replayed.run()
    complete = replayed.finished
    return ReplayReport(
        match_id=log.header.match_id,
        deals_replayed=replayed.deals,
        complete=complete,
        reproduced=complete and not replayed.problems,
        recorded_balances=recorded,
        replayed_balances=replayed.replayed_balances(),
        problems=tuple(replayed.problems),
        replayed_ranks=replayed.replayed_ranks(),
        replayed_forfeited=tuple(replayed.replayed_forfeited()),
        replayed_strikes=tuple(replayed.strikes),
    )


def logged_deal(log: MatchLog, number: int) -> tuple[Ruleset, Deal, list[Action]]:
    """Deal ``number`` of a log as the engine takes it: the match's ruleset, the recorded
    hands, and the actions its decisions applied, in order (up to the first that does not
    parse). Raises KeyError naming the deals the log has when it has no such deal, and an
    EngineError or ValueError when its hands cannot be dealt.
    """
    return engine_deal(log, log.deal(number))


def engine_deal(log: MatchLog, logged: LoggedDeal) -> tuple[Ruleset, Deal, list[Action]]:
    """One deal of ``log`` as :func:`logged_deal` gives it."""
    ruleset = log.ruleset()
    deal, actions = logged.engine(ruleset)
    return ruleset, deal, actions

"""Replaying a match log through the engine, checking every result the log shows.

The log's layout is in :mod:`arena.matchlog`; :func:`replay_log` reads it (validated), rebuilds
each deal from its recorded hands, applies every recorded decision in order and compares each
shown result with what the engine gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.logschema import MatchLogError
from arena.matchlog import Record, event_record, iter_deals, read_log
from engine.actions import Action, parse_action
from engine.cards import CardSet, parse_cards
from engine.dealing import Deal, fixed_deal
from engine.errors import EngineError, IllegalActionError
from engine.events import BidMade, CardPlayed, DealEnded, TrumpNamed
from engine.match import MatchState
from engine.rulesets import Ruleset, find_ruleset
from engine.state import DealState

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


# Penalty codes that are strikes (arena.seat.SeatOutcome; forfeits and disconnects are not).
STRIKE_CODES = frozenset({"timeout", "illegal", "malformed", "protocol_error"})
# The events the engine derives from the decisions; the others stand for a decision's action.
_DERIVED_EVENTS = ("contract_set", "trick_taken", "deal_ended")
_FIELD_NAMES = {
    "tricks_won": "tricks won",
    "passed_out": "passed out",
    "deals_played": "deals played",
}


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
        forfeited = self.replayed_forfeited()
        replayed: list[tuple[str, object]] = [
            ("balances", list(self.replayed_balances())),
            ("ranks", list(self.replayed_ranks())),
            ("forfeited", forfeited),
            ("strikes", self.strikes),
            ("deals_played", self.deals),
            ("pool", self.match.pool),
        ]
        for key, value in replayed:
            if key in footer and footer[key] != value:
                self.problems.append(_differs("footer", key, footer[key], value))

    def replayed_forfeited(self) -> list[int]:
        strikes_out = {s for s in range(self.players) if self.strikes[s] >= self.max_strikes}
        return sorted(self.forfeited | strikes_out)

    def replayed_ranks(self) -> tuple[int, ...]:
        """The ranks a finished match's footer should show (none before it finishes)."""
        if self.footer is None or self.footer["status"] != "finished":
            return ()
        return self.match.ranks(self.replayed_forfeited())

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
        replayed_ranks=replay.replayed_ranks(),
        replayed_forfeited=tuple(replay.replayed_forfeited()),
        replayed_strikes=tuple(replay.strikes),
    )


def cardset(text: str) -> CardSet:
    return CardSet(parse_cards(text))


def logged_deal(records: Sequence[Record], number: int) -> tuple[Ruleset, Deal, list[Action]]:
    """Deal ``number`` of a validated log (:func:`arena.matchlog.read_log`) as the engine
    takes it: the match's ruleset, the recorded hands, and the actions its decisions applied, in
    order (up to the first that does not parse). Raises KeyError naming the deals the log has
    when it has no such deal, and an EngineError or ValueError when its hands cannot be dealt.
    """
    numbers = []
    for record, decisions in iter_deals(records):
        numbers.append(int(record["deal_number"]))
        if numbers[-1] == number:
            return engine_deal(records[0], record, decisions)
    raise KeyError(f"match has no deal {number}; deals: {', '.join(map(str, numbers))}")


def engine_deal(
    header: Record, record: Record, decisions: Sequence[Record]
) -> tuple[Ruleset, Deal, list[Action]]:
    """One ``deal`` record of a log with the ``header`` it follows and the decisions after it
    (:func:`arena.matchlog.iter_deals`), as :func:`logged_deal` gives it."""
    ruleset = find_ruleset(str(header["ruleset"]), header.get("options") or {})
    hands = [parse_cards(text) for text in record["hands"]]
    blind = parse_cards(record.get("blind") or "")
    deal = fixed_deal(ruleset, int(record["dealer"]), hands, blind)
    actions = []
    for decision in decisions:
        try:
            actions.append(parse_action(str(decision["action"])))
        except EngineError:
            break
    return ruleset, deal, actions

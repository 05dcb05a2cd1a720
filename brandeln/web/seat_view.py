"""One person's seat as its page shows it: the fold of what the referee told that seat.

:class:`SeatView` takes the seat session's messages (:mod:`brandeln.services.play.messages`) in
order and :meth:`SeatView.snapshot` gives the JSON its page draws
(``brandeln/web/static/table.js``). It holds only what the seat was told: its own hand
(``DealStarted``, then each request's view), the public events, its own requests and the referee's
answers to them; every hand of a deal only once ``DealEnded`` has revealed them to everyone. So the
page of a seat can show nothing that seat may not know (docs/RULES.md R12.1), whatever the page's
script does.

Each request's view is a full snapshot of what the seat may know: when one comes, the deal's
state is taken from it; between requests the public events move it on (the other seats'
bids and cards). The buttons of a decision are every bid, suit or card of its kind, the legal
ones (the referee's list, in its order) to press, the others with the rule that forbids them
(:func:`brandeln.engine.seat_choices.seat_choices`, from this seat's view alone).

The snapshot::

    {"seat", "match": {"match_id", "players", "ruleset", "deals", "hand_size", "move_ms",
     "bank_ms", "max_strikes"} | None, "balances",
     "deal": {"number", "dealer", "forehand", "hand", "held", "auction", "contract",
      "soloist", "passed_out", "trump", "trick": {"cards": [{"seat", "card"}], "winner"},
      "tricks_won"} | None,
     "request": {"id", "phase", "choices": [{"action", "legal", "reason"}], "move_ms",
      "bank_ms", "strikes", "sent"} | None,
     "rejected": {"code", "reason"} | None, "penalties": [{"deal", "seat", "code", "reason",
     "strikes"}], "last_deal": {...} | None, "result": {...} | None, "ended": str | None}
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from brandeln.engine.actions import Action
from brandeln.engine.cards import Card, CardSet, Suit, parse_card, parse_cards
from brandeln.engine.phase import Phase
from brandeln.engine.seat_choices import NOT_OFFERED, seat_choices
from brandeln.engine.trick_rules import canonical_cards
from brandeln.protocol.decode import LivePenalty
from brandeln.protocol.events import (
    BidMadeRecord,
    CardPlayedRecord,
    ContractSetRecord,
    DealEndedRecord,
    EventRecord,
    TrickTakenRecord,
    TrumpNamedRecord,
)
from brandeln.services.play.messages import (
    Asked,
    DealBegan,
    MatchBegan,
    MatchOver,
    Rejected,
    SeatMessage,
    SessionEnded,
    Welcomed,
)

__all__ = ["PHASE_NAMES", "SeatView"]

Json = dict[str, Any]
PHASE_NAMES = {Phase.AUCTION: "auction", Phase.TRUMP: "trump", Phase.PLAY: "play"}


@dataclass
class _Deal:
    """The deal in play as this seat knows it."""

    number: int
    dealer: int
    forehand: int
    hand: CardSet
    played: list[int]  # cards played by each seat so far
    auction: list[Json] = field(default_factory=list)
    contract: str | None = None
    soloist: int | None = None
    passed_out: bool = False
    trump: Suit | None = None
    trick: list[Json] = field(default_factory=list)
    winner: int | None = None  # set once the trick on the table is taken
    tricks_won: list[int] = field(default_factory=list)


@dataclass
class _Open:
    """The decision asked of this seat, when it came, and whether an answer is on its way."""

    asked: Asked
    at: float
    sent: bool = False


class SeatView:
    """The fold of one seat's messages (see the module docstring); ``clock`` (seconds) dates
    each request, for the time left that a snapshot shows."""

    def __init__(self, seat: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.seat = seat
        self.clock = clock
        self.match: MatchBegan | None = None
        self.balances: list[int] = []
        self.deal: _Deal | None = None
        self.open: _Open | None = None
        self.rejected: Rejected | None = None
        self.penalties: list[Json] = []
        self.last_deal: Json | None = None
        self.result: MatchOver | None = None
        self.ended: str | None = None

    # -- folding ----------------------------------------------------------------------------

    def add(self, message: SeatMessage) -> None:
        if isinstance(message, Asked):
            self._asked(message)
        elif isinstance(message, EventRecord):
            self.open = None  # it was another seat's turn, or this seat's answer was taken
            self._event(message)
        elif isinstance(message, LivePenalty):
            penalty = message.penalty
            self.penalties.append(
                {
                    "deal": penalty.deal,
                    "seat": penalty.seat,
                    "code": str(penalty.code),
                    "reason": penalty.reason,
                    "strikes": penalty.strikes,
                }
            )
        elif isinstance(message, Rejected):
            if self.open is not None and self.open.asked.request_id == message.request_id:
                self.open.sent = False  # the request stays open: answer again
            self.rejected = message
        elif isinstance(message, DealBegan):
            players = self._players()
            self.deal = _Deal(
                message.deal,
                message.dealer,
                message.forehand,
                CardSet(message.hand),
                [0] * players,
                tricks_won=[0] * players,
            )
        elif isinstance(message, MatchBegan):
            self.match = message
            self.balances = [0] * len(message.players)
        elif isinstance(message, MatchOver):
            self.open, self.result = None, message
            self.balances = list(message.balances)
        elif isinstance(message, SessionEnded):
            self.open = None
            if self.result is None:
                self.ended = message.reason
        else:
            assert isinstance(message, Welcomed)  # nothing to show: the lobby

    def sent(self) -> None:
        """An answer to the open request went to the referee: no second one until it says."""
        if self.open is not None:
            self.open.sent = True
            self.rejected = None

    def _players(self) -> int:
        return len(self.match.players) if self.match is not None else 0

    def _asked(self, asked: Asked) -> None:
        self.open, self.rejected = _Open(asked, self.clock()), None
        view = asked.view
        deal = self.deal
        if deal is None or deal.number != asked.deal:
            return  # a request without its deal's start: nothing to show it against
        deal.hand = view.hand
        deal.auction = [{"seat": made.seat, "bid": made.bid.contract} for made in view.auction]
        deal.contract, deal.soloist, deal.trump = view.contract, view.soloist, view.trump
        if view.current_trick and view.current_trick_leader is not None:
            players = self._players()
            leader = view.current_trick_leader
            deal.trick = [
                {"seat": (leader + n) % players, "card": str(card)}
                for n, card in enumerate(view.current_trick)
            ]
            deal.winner = None
        deal.tricks_won = list(view.tricks_won)
        if asked.balances:
            self.balances = list(asked.balances)

    def _event(self, record: EventRecord) -> None:
        body, deal = record.body, self.deal
        if deal is None:
            return
        if isinstance(body, BidMadeRecord):
            deal.auction.append({"seat": body.seat, "bid": body.bid})
        elif isinstance(body, ContractSetRecord):
            deal.soloist, deal.contract = body.soloist, body.contract
            deal.passed_out = body.passed_out
        elif isinstance(body, TrumpNamedRecord):
            deal.trump = Suit.parse(body.suit)
        elif isinstance(body, CardPlayedRecord):
            if deal.winner is not None:
                deal.trick, deal.winner = [], None
            deal.trick.append({"seat": body.seat, "card": body.card})
            deal.played[body.seat] += 1
            if body.seat == self.seat:
                deal.hand = deal.hand - CardSet([parse_card(body.card)])
        elif isinstance(body, TrickTakenRecord):
            deal.winner = body.winner
            deal.tricks_won[body.winner] += 1
        elif isinstance(body, DealEndedRecord):
            self._deal_ended(deal, body)

    def _deal_ended(self, deal: _Deal, ended: DealEndedRecord) -> None:
        # Every hand is public now (R12.1): the deal as it was dealt, by seat (the blind after).
        self.last_deal = {
            "number": deal.number,
            "contract": ended.contract,
            "soloist": ended.soloist,
            "trump": ended.trump,
            "passed_out": ended.passed_out,
            "made": ended.made,
            "tricks_won": list(ended.tricks_won),
            "payments": list(ended.payments),
            "hands": [[str(card) for card in parse_cards(hand)] for hand in ended.hands],
        }
        if ended.balances:
            self.balances = list(ended.balances)
        deal.tricks_won = list(ended.tricks_won)

    # -- the snapshot ----------------------------------------------------------------------

    @property
    def final(self) -> bool:
        """Nothing more will change: the match is over, or the session ended."""
        return self.result is not None or self.ended is not None

    def snapshot(self) -> Json:
        match = self.match
        return {
            "seat": self.seat,
            "match": None
            if match is None
            else {
                "match_id": match.match_id,
                "players": list(match.players),
                "ruleset": match.ruleset.id,
                "deals": match.deals,
                "hand_size": match.ruleset.hand_size,
                "move_ms": match.move_ms,
                "bank_ms": match.bank_ms,
                "max_strikes": match.max_strikes,
            },
            "balances": list(self.balances),
            "deal": self._deal_json(),
            "request": self._request_json(),
            "rejected": None
            if self.rejected is None
            else {"code": str(self.rejected.code), "reason": self.rejected.reason},
            "penalties": list(self.penalties),
            "last_deal": self.last_deal,
            "result": None
            if self.result is None
            else {
                "match_id": self.result.match_id,
                "status": str(self.result.status),
                "balances": list(self.result.balances),
                "ranks": list(self.result.ranks),
                "forfeited": list(self.result.forfeited),
            },
            "ended": self.ended,
        }

    def _deal_json(self) -> Json | None:
        deal, match = self.deal, self.match
        if deal is None or match is None:
            return None
        order = match.ruleset.trump_order
        hand: list[Card] = canonical_cards(deal.hand, deal.trump, order)
        return {
            "number": deal.number,
            "dealer": deal.dealer,
            "forehand": deal.forehand,
            "hand": [str(card) for card in hand],
            "held": [match.ruleset.hand_size - played for played in deal.played],
            "auction": list(deal.auction),
            "contract": deal.contract,
            "soloist": deal.soloist,
            "passed_out": deal.passed_out,
            "trump": deal.trump.letter if deal.trump is not None else None,
            "trick": {"cards": list(deal.trick), "winner": deal.winner},
            "tricks_won": list(deal.tricks_won),
        }

    def _request_json(self) -> Json | None:
        if self.open is None or self.match is None:
            return None
        asked = self.open.asked
        # The time left now: the move's first, then the bank (brandeln.arena.timecontrol's order).
        elapsed = max(0, round((self.clock() - self.open.at) * 1000))
        move = max(0, asked.move_ms - elapsed)
        bank = max(0, asked.bank_ms - max(0, elapsed - asked.move_ms))
        choices = seat_choices(self.match.ruleset, asked.view, asked.phase, asked.legal)
        return {
            "id": asked.request_id,
            "phase": PHASE_NAMES.get(asked.phase, asked.phase.value),
            "choices": [
                {"action": str(choice.action), "legal": choice.legal, "reason": choice.reason}
                for choice in choices
            ],
            "move_ms": move,
            "bank_ms": bank,
            "strikes": asked.strikes,
            "sent": self.open.sent,
        }

    def why_not(self, action: Action) -> str:
        """Why ``action`` may not answer the open decision (the rule's reason, from this seat's
        view alone)."""
        if self.open is None or self.match is None:
            return "no decision is yours now"
        asked = self.open.asked
        for choice in seat_choices(self.match.ruleset, asked.view, asked.phase, asked.legal):
            if choice.action == action and choice.reason is not None:
                return choice.reason
        return NOT_OFFERED

    def open_request(self) -> tuple[Asked, bool] | None:
        """The decision open now and whether an answer to it is on its way."""
        return None if self.open is None else (self.open.asked, self.open.sent)

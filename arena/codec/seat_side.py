"""The seat's side of the wire: what a seat session receives, read back into engine values.

The referee writes a ``DecisionRequest`` from engine values (:mod:`brandeln.arena.codec.snapshots`);
a client that holds a seat session for someone else (the web front's seat for a person,
``brandeln.services.play.seat``) reads it back here, with the same codec, so there is one mapping
between the messages and the engine both ways. Reading is defensive as on the referee's side:
a card outside the deck, an unset enum or a choice of the wrong kind raises
:class:`~brandeln.arena.codec.values.CodecError`.

>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.state import DealState
>>> from brandeln.arena.codec.snapshots import view_to_pb
>>> ruleset = find_ruleset("standard")
>>> view = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5)).view(0)
>>> view_from_pb(view_to_pb(view), ruleset, Phase.AUCTION) == view
True
"""

from __future__ import annotations

from collections.abc import Iterable

from brandeln.arena.codec.values import CodecError, card_from_pb, choice_to_action, suit_from_pb
from brandeln.engine.actions import Action, Bid
from brandeln.engine.cards import Card, CardSet
from brandeln.engine.errors import EngineError
from brandeln.engine.events import BidMade, TrickTaken
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import SWITCHES, Ruleset, find_ruleset
from brandeln.engine.view import PlayerView
from brandeln.v1 import cards_pb2

__all__ = ["cards_from_pb", "legal_from_pb", "phase_from_pb", "ruleset_from_pb", "view_from_pb"]

_PHASES: dict[int, Phase] = {
    cards_pb2.PHASE_BID: Phase.AUCTION,
    cards_pb2.PHASE_TRUMP: Phase.TRUMP,
    cards_pb2.PHASE_CARD: Phase.PLAY,
}


def phase_from_pb(value: int) -> Phase:
    phase = _PHASES.get(value)
    if phase is None:
        raise CodecError(f"phase {value} is not a decision's phase")
    return phase


def ruleset_from_pb(message: cards_pb2.Ruleset) -> Ruleset:
    """The ruleset a ``MatchStarted`` names, with its switches (its other options describe the
    named ruleset and are not switches)."""
    switches = {name: value for name, value in message.options.items() if name in SWITCHES}
    try:
        return find_ruleset(message.id, switches)
    except EngineError as error:
        raise CodecError(str(error)) from None


def cards_from_pb(cards: Iterable[cards_pb2.Card]) -> tuple[Card, ...]:
    return tuple(card_from_pb(card) for card in cards)


def legal_from_pb(legal: Iterable[cards_pb2.Choice], phase: Phase) -> tuple[Action, ...]:
    """A request's legal choices as engine actions, in the order sent (R12.3)."""
    return tuple(choice_to_action(choice, phase) for choice in legal)


def view_from_pb(message: cards_pb2.PlayerView, ruleset: Ruleset, phase: Phase) -> PlayerView:
    """A request's view (``phase``: the request's; the leader of the current trick is set in
    the play only, as the engine's view has it)."""
    hand = cards_from_pb(message.hand)
    return PlayerView(
        seat=message.seat,
        dealer=message.dealer,
        forehand=message.forehand,
        hand=CardSet(hand),
        auction=tuple(BidMade(bid.seat, Bid(bid.bid.contract)) for bid in message.auction),
        soloist=message.soloist if message.HasField("soloist") else None,
        contract=message.contract or None,
        trump=None if message.trump == cards_pb2.SUIT_UNSPECIFIED else suit_from_pb(message.trump),
        tricks=tuple(
            TrickTaken(trick.trick_number, trick.leader, cards_from_pb(trick.cards), trick.winner)
            for trick in message.tricks
        ),
        current_trick_leader=message.current_trick_leader if phase is Phase.PLAY else None,
        current_trick=cards_from_pb(message.current_trick),
        tricks_won=tuple(message.tricks_won),
        deal_payments=tuple(message.deal_payments),
        trump_order=ruleset.trump_order,
    )

"""The one place where protobuf messages and engine values meet.

Every conversion between `brandeln.v1` messages and engine values goes through this module, so the
rest of the arena speaks either protocol or engine, never both (ARCHITECTURE.md). Decoding what a
bot sent is defensive: an unset enum, a card outside the deck or a missing oneof raises
:class:`CodecError` with a reason fit to send back in an ``ActionRejected``.

The protocol's enums start at 1 (0 is ``*_UNSPECIFIED``); the engine's start at 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from brandeln.v1 import bot_pb2, cards_pb2
from engine.actions import Action, Bid, NameTrump, PlayCard
from engine.cards import Card, CardSet, Rank, Suit
from engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    Event,
    TrickTaken,
    TrumpNamed,
)
from engine.phase import Phase
from engine.rulesets import Ruleset
from engine.view import PlayerView

__all__ = [
    "CodecError",
    "action_to_choice",
    "card_from_pb",
    "card_to_pb",
    "cards_to_pb",
    "choice_to_action",
    "event_to_pb",
    "hands_to_pb",
    "phase_to_pb",
    "ruleset_to_pb",
    "suit_from_pb",
    "suit_to_pb",
    "view_to_pb",
]

# The proto enum value of an engine enum member is its value + 1 (0 is UNSPECIFIED).
_ENUM_OFFSET = 1


class CodecError(ValueError):
    """A protocol message that does not decode to an engine value (the message says why)."""


def suit_to_pb(suit: Suit) -> cards_pb2.Suit.ValueType:
    return cards_pb2.Suit.ValueType(int(suit) + _ENUM_OFFSET)


def suit_from_pb(value: int) -> Suit:
    if value == cards_pb2.SUIT_UNSPECIFIED:
        raise CodecError("suit is unset (SUIT_UNSPECIFIED)")
    try:
        return Suit(value - _ENUM_OFFSET)
    except ValueError:
        raise CodecError(f"suit {value} is not a Suit value") from None


def card_to_pb(card: Card) -> cards_pb2.Card:
    return cards_pb2.Card(
        suit=cards_pb2.Suit.ValueType(int(card.suit) + _ENUM_OFFSET),
        rank=cards_pb2.Rank.ValueType(int(card.rank) + _ENUM_OFFSET),
    )


def cards_to_pb(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    return [card_to_pb(card) for card in cards]


def card_from_pb(message: cards_pb2.Card) -> Card:
    suit = suit_from_pb(message.suit)
    if message.rank == cards_pb2.RANK_UNSPECIFIED:
        raise CodecError("card rank is unset (RANK_UNSPECIFIED)")
    try:
        rank = Rank(message.rank - _ENUM_OFFSET)
    except ValueError:
        raise CodecError(f"rank {message.rank} is not a Rank value") from None
    return Card(suit, rank)


_PHASES: dict[Phase, cards_pb2.Phase.ValueType] = {
    Phase.AUCTION: cards_pb2.PHASE_BID,
    Phase.TRUMP: cards_pb2.PHASE_TRUMP,
    Phase.PLAY: cards_pb2.PHASE_CARD,
}


def phase_to_pb(phase: Phase) -> cards_pb2.Phase.ValueType:
    return _PHASES[phase]


def action_to_choice(action: Action) -> cards_pb2.Choice:
    if isinstance(action, Bid):
        return cards_pb2.Choice(bid=cards_pb2.Bid(contract=action.contract))
    if isinstance(action, NameTrump):
        return cards_pb2.Choice(trump=suit_to_pb(action.suit))
    return cards_pb2.Choice(card=card_to_pb(action.card))


_CHOICE_FOR_PHASE = {Phase.AUCTION: "bid", Phase.TRUMP: "trump", Phase.PLAY: "card"}


class WrongPhaseError(CodecError):
    """A well-formed choice of the wrong kind for the request's phase."""


def choice_to_action(choice: cards_pb2.Choice, phase: Phase) -> Action:
    """Decode a bot's choice for a request of ``phase``.

    Raises :class:`WrongPhaseError` for a choice of another kind and :class:`CodecError` for a
    malformed one. Legality is the engine's business, not the codec's.
    """
    kind = choice.WhichOneof("kind")
    if kind is None:
        raise CodecError("choice is empty: set one of bid, trump, card")
    expected = _CHOICE_FOR_PHASE.get(phase)
    if kind != expected:
        raise WrongPhaseError(f"the request asks for a {expected}, the choice holds a {kind}")
    if kind == "bid":
        if not choice.bid.contract:
            raise CodecError('bid.contract is empty: name a contract id or "pass"')
        return Bid(choice.bid.contract)
    if kind == "trump":
        return NameTrump(suit_from_pb(choice.trump))
    return PlayCard(card_from_pb(choice.card))


def ruleset_to_pb(ruleset: Ruleset) -> cards_pb2.Ruleset:
    return cards_pb2.Ruleset(
        id=ruleset.id,
        players=ruleset.players,
        tricks=ruleset.tricks,
        contracts=[
            cards_pb2.ContractInfo(
                id=contract.id,
                goal=str(contract.goal),
                tricks=contract.tricks,
                trump=contract.trump,
                value=contract.value,
            )
            for contract in ruleset.contracts
        ],
        options=ruleset.options(),
    )


def hands_to_pb(hands: Sequence[CardSet], blind: CardSet) -> list[cards_pb2.Hand]:
    """Every seat's hand, then the blind (seat = players) where the ruleset has one."""
    messages = [
        cards_pb2.Hand(seat=seat, cards=cards_to_pb(hand)) for seat, hand in enumerate(hands)
    ]
    if blind:
        messages.append(cards_pb2.Hand(seat=len(hands), cards=cards_to_pb(blind)))
    return messages


def _trick_to_pb(trick: TrickTaken) -> cards_pb2.TrickTaken:
    return cards_pb2.TrickTaken(
        trick_number=trick.trick_number,
        leader=trick.leader,
        cards=cards_to_pb(trick.cards),
        winner=trick.winner,
    )


def _bid_made_to_pb(event: BidMade) -> cards_pb2.BidMade:
    return cards_pb2.BidMade(seat=event.seat, bid=cards_pb2.Bid(contract=event.bid.contract))


def event_to_pb(
    event: Event,
    seq: int,
    deal_number: int,
    balances: Sequence[int] = (),
    pool: int = 0,
) -> cards_pb2.GameEvent:
    """A public engine event as a numbered GameEvent.

    ``balances`` and ``pool`` are match-level facts the engine's deal events do not carry; they
    fill ``DealEnded``.
    """
    message = cards_pb2.GameEvent(seq=seq, deal_number=deal_number)
    if isinstance(event, BidMade):
        message.bid_made.CopyFrom(_bid_made_to_pb(event))
    elif isinstance(event, ContractSet):
        message.contract_set.contract = event.contract or ""
        message.contract_set.passed_out = event.passed_out
        if event.soloist is not None:
            message.contract_set.soloist = event.soloist
    elif isinstance(event, TrumpNamed):
        message.trump_named.suit = suit_to_pb(event.suit)
    elif isinstance(event, CardPlayed):
        message.card_played.seat = event.seat
        message.card_played.card.CopyFrom(card_to_pb(event.card))
    elif isinstance(event, TrickTaken):
        message.trick_taken.CopyFrom(_trick_to_pb(event))
    elif isinstance(event, DealEnded):
        ended = message.deal_ended
        ended.deal_number = deal_number
        outcome = event
        if outcome.soloist is not None:
            ended.soloist = outcome.soloist
        ended.contract = outcome.contract or ""
        if outcome.trump is not None:
            ended.trump = suit_to_pb(outcome.trump)
        ended.tricks_won.extend(outcome.tricks_won)
        ended.made = bool(outcome.made)
        ended.payments.extend(outcome.payments)
        ended.balances.extend(balances)
        ended.hands.extend(hands_to_pb(event.hands, event.blind))
        ended.pool = pool
    else:  # pragma: no cover - the Event union is closed
        raise TypeError(f"unknown engine event {event!r}")
    return message


def view_to_pb(view: PlayerView) -> cards_pb2.PlayerView:
    message = cards_pb2.PlayerView(
        seat=view.seat,
        dealer=view.dealer,
        forehand=view.forehand,
        hand=cards_to_pb(view.hand),
        auction=[_bid_made_to_pb(bid) for bid in view.auction],
        contract=view.contract or "",
        tricks=[_trick_to_pb(trick) for trick in view.tricks],
        current_trick_leader=view.current_trick_leader or 0,
        current_trick=cards_to_pb(view.current_trick),
        tricks_won=view.tricks_won,
        deal_payments=view.deal_payments,
        match_balances=view.match_balances,
        deal_number=view.deal_number,
    )
    if view.soloist is not None:
        message.soloist = view.soloist
    if view.trump is not None:
        message.trump = suit_to_pb(view.trump)
    return message


def decision_request(
    request_id: int,
    phase: Phase,
    legal: Sequence[Action],
    view: PlayerView,
    move_ms: int,
    bank_ms: int,
    strikes: int,
    last_rtt_ms: int,
) -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(
        request=bot_pb2.DecisionRequest(
            request_id=request_id,
            phase=phase_to_pb(phase),
            legal=[action_to_choice(action) for action in legal],
            view=view_to_pb(view),
            move_ms=move_ms,
            bank_ms=bank_ms,
            strikes=strikes,
            last_rtt_ms=last_rtt_ms,
        )
    )

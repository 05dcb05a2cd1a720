"""What the servicers read off the wire, as the referee's orders (:mod:`brandeln.arena.orders`): a
``Hello``, and a ``RunMatchRequest`` (a card or a suit that does not decode is an
:class:`InvalidRequestError` naming where it is; the rest is checked by
:func:`brandeln.arena.orders.build_spec`)."""

from __future__ import annotations

from brandeln.arena.codec.values import CodecError, card_from_pb, suit_from_pb
from brandeln.arena.errors import InvalidRequestError
from brandeln.arena.orders import FixedDealOrder, HelloRequest, MatchOrder, TimeControlOrder
from brandeln.engine.cards import Card, Suit
from brandeln.v1 import admin_pb2, bot_pb2

__all__ = ["hello_from_pb", "match_order_from_pb"]


def hello_from_pb(hello: bot_pb2.Hello) -> HelloRequest:
    """A Hello as it was sent (the referee checks its fields against their caps)."""
    return HelloRequest(
        token=hello.token,
        protocol_version=hello.protocol_version,
        bot_name=hello.bot_name,
        bot_version=hello.bot_version,
        rulesets=tuple(hello.rulesets),
        resume_match_id=hello.resume_match_id,
        snapshot_only=hello.snapshot_only,
    )


def match_order_from_pb(request: admin_pb2.RunMatchRequest) -> MatchOrder:
    """A RunMatchRequest as the referee's order (InvalidRequestError for a card or a suit that
    is not one)."""
    tc = request.time_control
    return MatchOrder(
        bot_ids=tuple(request.bot_ids),
        ruleset=request.ruleset or "standard",
        options=dict(request.options),
        deals=request.deals,
        seed=request.seed,
        first_dealer=request.first_dealer,
        fixed_deals=tuple(
            _fixed_deal(fixed, number) for number, fixed in enumerate(request.fixed_deals, 1)
        ),
        time_control=TimeControlOrder(tc.move_ms, tc.bank_ms, tc.max_strikes, tc.reconnect_ms),
        suit_permutation=_permutation(request),
        seat_wait_ms=request.seat_wait_ms,
        summary_updates=request.summary_updates,
    )


def _fixed_deal(fixed: admin_pb2.FixedDeal, number: int) -> FixedDealOrder:
    try:
        hands: dict[int, list[Card]] = {
            hand.seat: [card_from_pb(card) for card in hand.cards] for hand in fixed.hands
        }
    except CodecError as error:
        raise InvalidRequestError(f"fixed deal {number}: {error}") from None
    return FixedDealOrder(fixed.dealer, hands)


def _permutation(request: admin_pb2.RunMatchRequest) -> tuple[Suit, ...]:
    try:
        return tuple(suit_from_pb(suit) for suit in request.suit_permutation)
    except CodecError as error:
        raise InvalidRequestError(f"suit_permutation: {error}") from None

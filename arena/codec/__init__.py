"""The one place where protobuf messages and engine values meet.

Every conversion between `brandeln.v1` messages and engine values goes through this package, so
the rest of the arena speaks either protocol or engine, never both (ARCHITECTURE.md; a layering
test checks it). Decoding what a bot sent is defensive: an unset enum, a card outside the deck or
a missing oneof raises :class:`CodecError` with a reason fit to send back in an
``ActionRejected``.

- :mod:`brandeln.arena.codec.values`: cards, suits, phases, choices and actions, rulesets, hands.
- :mod:`brandeln.arena.codec.snapshots`: events, views and decision requests (the hot path).
- :mod:`brandeln.arena.codec.wire`: the hot path's messages written as bytes by hand.
- :mod:`brandeln.arena.codec.messages`: the match-level messages a table sends, ``ActionRejected``.
- :mod:`brandeln.arena.codec.requests`: a Hello and a RunMatchRequest as the referee's orders.

The protocol's enums start at 1 (0 is ``*_UNSPECIFIED``); the engine's start at 0.
"""

from __future__ import annotations

from brandeln.arena.codec.messages import (
    BotMessage,
    GameEvent,
    MatchStarted,
    MatchSummary,
    MatchUpdate,
    RefereeMessage,
    Rejection,
    deal_started,
    match_ended,
    match_started,
    match_summary,
    rejected,
    seat_penalized,
)
from brandeln.arena.codec.requests import hello_from_pb, match_order_from_pb
from brandeln.arena.codec.snapshots import (
    deal_started_bytes,
    decision_request,
    decision_request_bytes,
    event_bytes,
    event_kind,
    event_message_bytes,
    event_to_pb,
    view_to_pb,
)
from brandeln.arena.codec.values import (
    CodecError,
    WrongPhaseError,
    action_to_choice,
    card_from_pb,
    card_to_pb,
    cards_to_pb,
    choice_to_action,
    hands_to_pb,
    phase_to_pb,
    ruleset_to_pb,
    suit_from_pb,
    suit_to_pb,
)

__all__ = [
    "BotMessage",
    "CodecError",
    "GameEvent",
    "MatchStarted",
    "MatchSummary",
    "MatchUpdate",
    "RefereeMessage",
    "Rejection",
    "WrongPhaseError",
    "action_to_choice",
    "card_from_pb",
    "card_to_pb",
    "cards_to_pb",
    "choice_to_action",
    "deal_started",
    "deal_started_bytes",
    "decision_request",
    "decision_request_bytes",
    "event_bytes",
    "event_kind",
    "event_message_bytes",
    "event_to_pb",
    "hands_to_pb",
    "hello_from_pb",
    "match_ended",
    "match_order_from_pb",
    "match_started",
    "match_summary",
    "phase_to_pb",
    "rejected",
    "ruleset_to_pb",
    "seat_penalized",
    "suit_from_pb",
    "suit_to_pb",
    "view_to_pb",
]

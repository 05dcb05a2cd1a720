"""The match-level messages a table sends and the requests it is built from.

Each builder takes plain values (the table's, the engine's) and returns the message; the table
itself never names a protobuf type but through the aliases below.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from brandeln.arena.codec.values import cards_to_pb, ruleset_to_pb
from brandeln.arena.latency import SeatLatency
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.dealing import Deal
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import forehand_of
from brandeln.protocol.events import Penalty
from brandeln.protocol.statuses import MatchStatus, match_status_to_pb, seat_outcome_to_pb
from brandeln.v1 import admin_pb2, bot_pb2, cards_pb2

__all__ = [
    "BotMessage",
    "GameEvent",
    "MatchStarted",
    "MatchSummary",
    "MatchUpdate",
    "RefereeMessage",
    "Rejection",
    "deal_started",
    "match_ended",
    "match_started",
    "match_summary",
    "rejected",
    "seat_penalized",
]

# The protocol types the table passes around, named here so that it imports no stub.
GameEvent = cards_pb2.GameEvent
MatchSummary = admin_pb2.MatchSummary
MatchUpdate = admin_pb2.MatchUpdate
BotMessage = bot_pb2.BotMessage
RefereeMessage = bot_pb2.RefereeMessage
MatchStarted = bot_pb2.MatchStarted


class Rejection(enum.Enum):
    """Why an answer was rejected: the ActionRejected code it is sent with."""

    MALFORMED = bot_pb2.REJECT_CODE_MALFORMED
    STALE_REQUEST = bot_pb2.REJECT_CODE_STALE_REQUEST
    WRONG_PHASE = bot_pb2.REJECT_CODE_WRONG_PHASE
    ILLEGAL = bot_pb2.REJECT_CODE_ILLEGAL


def rejected(request_id: int, rejection: Rejection, reason: str) -> bot_pb2.RefereeMessage:
    """An ``ActionRejected`` (the one place it is built)."""
    return bot_pb2.RefereeMessage(
        rejected=bot_pb2.ActionRejected(request_id=request_id, code=rejection.value, reason=reason)
    )


def match_started(
    match_id: str,
    seat: int,
    players: Sequence[tuple[str, str]],
    ruleset: Ruleset,
    deals: int,
    tc: TimeControlSettings,
) -> bot_pb2.MatchStarted:
    """``players`` are (registered name, Hello name) by seat."""
    return bot_pb2.MatchStarted(
        match_id=match_id,
        seat=seat,
        players=[
            cards_pb2.Player(seat=index, bot_name=bot_name, hello_name=hello_name)
            for index, (bot_name, hello_name) in enumerate(players)
        ],
        ruleset=ruleset_to_pb(ruleset),
        deals=deals,
        time_control=cards_pb2.TimeControl(
            move_ms=tc.move_ms,
            bank_ms=tc.bank_ms,
            max_strikes=tc.max_strikes,
            reconnect_ms=tc.reconnect_ms,
        ),
    )


def deal_started(deal_number: int, deal: Deal, seat: int, players: int) -> bot_pb2.RefereeMessage:
    """A seat's ``DealStarted``: its own hand only."""
    return bot_pb2.RefereeMessage(
        deal_started=bot_pb2.DealStarted(
            deal_number=deal_number,
            dealer=deal.dealer,
            forehand=forehand_of(deal.dealer, players),
            hand=cards_to_pb(deal.hands[seat]),
        )
    )


def seat_penalized(seq: int, penalty: Penalty) -> cards_pb2.GameEvent:
    message = cards_pb2.GameEvent(seq=seq, deal_number=penalty.deal)
    message.seat_penalized.seat = penalty.seat
    message.seat_penalized.reason = penalty.reason
    message.seat_penalized.code = penalty.code.value  # the word, for clients before the enum
    message.seat_penalized.strikes = penalty.strikes
    message.seat_penalized.outcome = seat_outcome_to_pb(penalty.code)
    return message


def match_ended(
    match_id: str,
    balances: Sequence[int],
    ranks: Sequence[int],
    forfeited: Sequence[int],
    status: MatchStatus,
) -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(
        match_ended=bot_pb2.MatchEnded(
            match_id=match_id,
            balances=balances,
            ranks=ranks,
            forfeited=forfeited,
            status=status.value,
            match_status=match_status_to_pb(status),
        )
    )


def match_summary(
    *,
    match_id: str,
    ruleset_id: str,
    bot_ids: Sequence[str],
    bot_names: Sequence[str],
    balances: Sequence[int],
    ranks: Sequence[int],
    forfeited: Sequence[int],
    strikes: Sequence[int],
    status: MatchStatus,
    deals_played: int,
    started_at: int,
    ended_at: int,
    latency: Sequence[SeatLatency] = (),
) -> admin_pb2.MatchSummary:
    """The wire summary; ``latency`` by seat (empty where the decisions are not at hand)."""
    return admin_pb2.MatchSummary(
        match_id=match_id,
        ruleset=ruleset_id,
        bot_ids=bot_ids,
        balances=balances,
        ranks=ranks,
        forfeited=forfeited,
        # The word for clients before the enum ("running", "finished", "aborted"), and the enum.
        status=status.value,
        match_status=match_status_to_pb(status),
        deals_played=deals_played,
        started_at=started_at,
        ended_at=ended_at,
        bot_names=bot_names,
        strikes=strikes,
        latency=[
            admin_pb2.SeatLatency(
                decisions=seat.decisions,
                p50_ms=seat.p50_ms,
                p95_ms=seat.p95_ms,
                max_ms=seat.max_ms,
            )
            for seat in latency
        ],
    )

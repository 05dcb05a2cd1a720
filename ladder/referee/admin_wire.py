"""The ladder's protobuf edge: its values as the Admin service's messages and back.

The ladder reaches a referee only through ``Admin`` (``brandeln.ladder.referee.admin_client``);
everything it sends or reads there is converted here, so the rest of the ladder speaks values
(ladder config, :mod:`brandeln.ladder.referee.records`, the protocol's records of
:mod:`brandeln.protocol.events`). :func:`run_match_request` is the one builder of a
``RunMatchRequest``.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from brandeln.engine.cards import Suit
from brandeln.ladder.errors import RefereeCallError, RefereeError, RefereeNotFoundError
from brandeln.ladder.referee.records import RefereeMatch
from brandeln.ladder.season.config import TimeControl
from brandeln.ladder.season.duplicate import DecisionLatency
from brandeln.protocol.decode import LiveEvent, event_from_pb
from brandeln.protocol.statuses import match_status_from_pb
from brandeln.v1 import admin_pb2, cards_pb2

__all__ = [
    "call_error",
    "describe_rpc_error",
    "latency_of",
    "match_of",
    "read_event",
    "run_match_request",
    "suit_permutation_message",
    "time_control_message",
    "time_control_of",
]


def suit_permutation_message(images: str) -> list[cards_pb2.Suit.ValueType]:
    """The protobuf form of a permutation written as the images of C S H D ("SHDC").

    >>> suit_permutation_message("SHDC") == [cards_pb2.SUIT_SPADES, cards_pb2.SUIT_HEARTS,
    ...     cards_pb2.SUIT_DIAMONDS, cards_pb2.SUIT_CLUBS]
    True
    """
    # By name (SUIT_HEARTS for Suit.HEARTS): no enum offset is computed outside the codec.
    return [cards_pb2.Suit.Value(f"SUIT_{Suit.parse(letter).name}") for letter in images]


def time_control_message(time_control: TimeControl) -> cards_pb2.TimeControl:
    """The ladder's time control as the protocol's message: the one conversion that way.

    >>> time_control_message(TimeControl(move_ms=200, max_strikes=3)).move_ms
    200
    """
    return cards_pb2.TimeControl(
        move_ms=time_control.move_ms,
        bank_ms=time_control.bank_ms,
        max_strikes=time_control.max_strikes,
        reconnect_ms=time_control.reconnect_ms,
    )


def time_control_of(message: cards_pb2.TimeControl) -> TimeControl:
    """The protocol's time control as the ladder's: the one conversion back (0 stays "the
    referee's default", as in a season file).

    >>> time_control_of(time_control_message(TimeControl(bank_ms=5000)))
    TimeControl(move_ms=0, bank_ms=5000, max_strikes=0, reconnect_ms=0)
    """
    return TimeControl(
        move_ms=message.move_ms,
        bank_ms=message.bank_ms,
        max_strikes=message.max_strikes,
        reconnect_ms=message.reconnect_ms,
    )


def latency_of(summary: admin_pb2.MatchSummary) -> tuple[DecisionLatency, ...]:
    """The summary's latency by seat (empty from a referee that does not report it)."""
    return tuple(
        DecisionLatency(seat.decisions, seat.p50_ms, seat.p95_ms, seat.max_ms)
        for seat in summary.latency
    )


def match_of(summary: admin_pb2.MatchSummary) -> RefereeMatch:
    """A ``MatchSummary`` as the ladder's value (its status from the enum, or the word an
    older referee sent; a status this side does not know: RefereeCallError)."""
    try:
        status = match_status_from_pb(summary.match_status, summary.status)
    except ValueError:
        raise RefereeCallError(
            f"match {summary.match_id}: unknown status {summary.status!r}"
        ) from None
    return RefereeMatch(
        match_id=summary.match_id,
        ruleset=summary.ruleset,
        bot_ids=tuple(summary.bot_ids),
        status=status,
        bot_names=tuple(summary.bot_names),
        balances=tuple(summary.balances),
        ranks=tuple(summary.ranks),
        forfeited=tuple(summary.forfeited),
        strikes=tuple(summary.strikes),
        deals_played=summary.deals_played,
        started_at=summary.started_at,
        ended_at=summary.ended_at,
        latency=latency_of(summary),
    )


def run_match_request(
    bot_ids: list[str] | tuple[str, ...],
    *,
    ruleset: str,
    deals: int,
    seed: int,
    time_control: TimeControl,
    first_dealer: int = 0,
    suit_permutation: str = "",
    seat_wait_ms: int = 0,
    options: Mapping[str, str] | None = None,
    summary_updates: bool = False,
) -> admin_pb2.RunMatchRequest:
    """The one ``RunMatchRequest`` builder: bots by seat, the ruleset and its switches,
    deals, seed, time control (0: the referee's default) and the permutation of the suits
    written as the images of C S H D ("" for none)."""
    return admin_pb2.RunMatchRequest(
        summary_updates=summary_updates,
        bot_ids=list(bot_ids),
        ruleset=ruleset,
        deals=deals,
        seed=seed,
        first_dealer=first_dealer,
        time_control=time_control_message(time_control),
        suit_permutation=suit_permutation_message(suit_permutation),
        seat_wait_ms=seat_wait_ms,
        options=dict(options or {}),
    )


def read_event(address: str, message: cards_pb2.GameEvent) -> LiveEvent | None:
    """A streamed event as the protocol's record (None: a kind this side does not know)."""
    try:
        return event_from_pb(message)
    except ValueError as error:
        raise RefereeCallError(f"referee {address}: an event that does not read: {error}") from None


def describe_rpc_error(address: str, what: str, error: grpc.aio.AioRpcError) -> RefereeError:
    code = error.code()
    details = error.details() or ""
    if code == grpc.StatusCode.UNAUTHENTICATED:
        hint = "the referee refused the admin token (check BRANDELN_ADMIN_TOKEN)"
    elif code == grpc.StatusCode.UNAVAILABLE:
        # Either the referee is unreachable or (RunMatch) a bot had no free session in time.
        hint = f"unavailable at {address}: {details}"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        hint = f"the referee at {address} did not answer in time"
    else:
        hint = f"{code.name}: {details}"
    return RefereeError(f"{what}: {hint}")


def call_error(address: str, error: grpc.aio.AioRpcError) -> RefereeCallError:
    """``referee ADDRESS: STATUS: details``: the status name stays in the message, so a user
    who reads records through ``--referee`` sees what the referee said (UNAUTHENTICATED...)."""
    code = error.code()
    kind = RefereeNotFoundError if code == grpc.StatusCode.NOT_FOUND else RefereeCallError
    return kind(f"referee {address}: {code.name}: {error.details()}")

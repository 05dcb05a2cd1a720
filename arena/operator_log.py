"""The referee's log records for its operator, one function per event: sessions opened and
closed, matches started and ended, penalties, the drain.

Each record carries its ``event`` and the ids it is about as ``extra`` fields, which
brandeln.services.logs.formatters writes as JSON keys (and the text form beside the message); what a
bot said of itself (its Hello's name and version, a penalty's reason quoting its answer) is in
them as it came: the formatters make it inert. The logger is ``brandeln.arena.referee``'s, as
before.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping, Sequence

from brandeln.protocol.events import Penalty

__all__ = [
    "RefereeEvent",
    "draining",
    "match_ended",
    "match_started",
    "penalty",
    "session_closed",
    "session_opened",
]

_log = logging.getLogger("brandeln.arena.referee")


class RefereeEvent(enum.StrEnum):
    """The ``event`` of the referee's records for its operator (a JSON line's key)."""

    SESSION_OPENED = "session_opened"
    SESSION_CLOSED = "session_closed"  # with its reason
    MATCH_STARTED = "match_started"
    MATCH_ENDED = "match_ended"  # with its status
    PENALTY = "penalty"
    DRAINING = "draining"  # a stop begins


def session_opened(
    session_id: str,
    bot_id: str,
    bot_name: str,
    *,
    hello_name: str,
    bot_version: str,
    peer: str,
    resumed: Mapping[str, object],
) -> None:
    if not _log.isEnabledFor(logging.INFO):
        return
    _log.info(
        "session %s of bot %s (%s) opened%s",
        session_id,
        bot_id,
        bot_name,
        f", resuming seat {resumed['seat']} of {resumed['match_id']}" if resumed else "",
        extra={
            "event": RefereeEvent.SESSION_OPENED,
            "session_id": session_id,
            "bot_id": bot_id,
            "bot_name": bot_name,
            "hello_name": hello_name,
            "bot_version": bot_version,
            "peer": peer,
            **resumed,
        },
    )


def session_closed(
    session_id: str, bot_id: str, reason: str, detail: str, seat: tuple[str, int] | None
) -> None:
    """``seat``: the match and seat the session held, if any."""
    if not _log.isEnabledFor(logging.INFO):
        return
    _log.info(
        "session %s of bot %s closed (%s)%s",
        session_id,
        bot_id,
        reason,
        f": {detail}" if detail else "",
        extra={
            "event": RefereeEvent.SESSION_CLOSED,
            "session_id": session_id,
            "bot_id": bot_id,
            "reason": reason,
            "detail": detail,
            **({"match_id": seat[0], "seat": seat[1]} if seat is not None else {}),
        },
    )


def match_started(
    match_id: str, ruleset: str, deals: int, bot_ids: Sequence[str], bot_names: Sequence[str]
) -> None:
    if not _log.isEnabledFor(logging.INFO):
        return
    _log.info(
        "match %s started: %s, %d deals, bots %s",
        match_id,
        ruleset,
        deals,
        ", ".join(bot_ids),
        extra={
            "event": RefereeEvent.MATCH_STARTED,
            "match_id": match_id,
            "ruleset": ruleset,
            "deals": deals,
            "bots": list(bot_ids),
            "bot_names": list(bot_names),
        },
    )


def match_ended(
    match_id: str,
    status: str,
    deals_played: int,
    bot_ids: Sequence[str],
    penalties: int,
    forfeited: Sequence[int],
) -> None:
    if not _log.isEnabledFor(logging.INFO):
        return
    _log.info(
        "match %s ended %s after %d deal(s)",
        match_id,
        status,
        deals_played,
        extra={
            "event": RefereeEvent.MATCH_ENDED,
            "match_id": match_id,
            "status": status,
            "deals_played": deals_played,
            "bots": list(bot_ids),
            "penalties": penalties,
            "forfeited": list(forfeited),
        },
    )


def penalty(match_id: str, bot_id: str, given: Penalty) -> None:
    """A seat penalized; its reason may quote what the bot sent (the formatter makes it
    inert)."""
    if not _log.isEnabledFor(logging.INFO):
        return
    _log.info(
        "match %s: seat %d (%s) penalized, %s: %s",
        match_id,
        given.seat,
        bot_id,
        given.code,
        given.reason,
        extra={
            "event": RefereeEvent.PENALTY,
            "match_id": match_id,
            "seat": given.seat,
            "bot_id": bot_id,
            "deal": given.deal,
            "code": str(given.code),
            "strikes": given.strikes,
            "reason": given.reason,
        },
    )


def draining(matches: int, sessions: int) -> None:
    _log.info(
        "draining: %d match(es) to abort, %d session(s) to end",
        matches,
        sessions,
        extra={"event": RefereeEvent.DRAINING, "matches": matches, "sessions": sessions},
    )

"""The arena's exception hierarchy, mapped to gRPC status codes in one place."""

from __future__ import annotations

import enum

import grpc

__all__ = [
    "ArenaError",
    "BotNameTakenError",
    "BotProtocolError",
    "BotRevokedError",
    "CloseReason",
    "CorruptDataError",
    "DamagedLogError",
    "DataInUseError",
    "HelloTimeoutError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "SeatUnavailableError",
    "ShuttingDownError",
    "StoreError",
    "TooManySessionsError",
    "UnauthenticatedError",
    "UnsupportedVersionError",
    "status_code_for",
]


class ArenaError(Exception):
    """Base of every error the referee reports to a caller."""


class UnauthenticatedError(ArenaError):
    """A missing, unknown or revoked token."""


class UnsupportedVersionError(ArenaError):
    """A protocol version the referee does not speak."""


class BotProtocolError(ArenaError):
    """A bot broke the stream's rules (first message not hello, a second hello, oversize)."""


class HelloTimeoutError(BotProtocolError):
    """A stream that sent no hello in time."""


class InvalidRequestError(ArenaError):
    """An Admin request with bad arguments (unknown ruleset, wrong seat count, bad hands...)."""


class NotFoundError(ArenaError):
    """An unknown match or bot id."""


class PermissionDeniedError(ArenaError):
    """A bot asked for something that is not its own (another bot's match)."""


class BotNameTakenError(ArenaError):
    """RegisterBot with a name already in use."""


class BotRevokedError(ArenaError):
    """A request about a revoked bot that only a live identity can serve (a token rotation)."""


class SeatUnavailableError(ArenaError):
    """RunMatch could not find a free session of a bot in time."""


class TooManySessionsError(ArenaError):
    """A bot tried to open more seat sessions than one bot may have."""


class ShuttingDownError(ArenaError):
    """The referee is draining for a stop: no new session or match."""


class StoreError(ArenaError):
    """The database cannot be opened or used."""


class CorruptDataError(ArenaError):
    """Stored data (a match log) is damaged and cannot be served as it is."""


class DamagedLogError(StoreError):
    """A match log in the database has a piece missing, or none at all
    (``brandeln.arena.store.logs``)."""


class DataInUseError(StoreError):
    """Another live referee owns this database (see ``brandeln.arena.datalock``)."""


class CloseReason(enum.StrEnum):
    """Why the referee ended a seat session's stream; the value prefixes the detail text."""

    PROTOCOL = "protocol"  # the bot broke the stream's rules
    TOKEN_ROTATED = "token rotated"  # the token it said hello with was replaced
    SHUTDOWN = "shutdown"  # the referee is stopping: a client retries on UNAVAILABLE
    SLOW_READER = "slow reader"  # the bot stopped reading its messages
    DROPPED = "dropped"  # a deliberate fault (brandeln.arena.faults) cut it: a client retries


_CODES: dict[type[ArenaError] | CloseReason, grpc.StatusCode] = {
    CloseReason.PROTOCOL: grpc.StatusCode.INVALID_ARGUMENT,
    CloseReason.TOKEN_ROTATED: grpc.StatusCode.UNAUTHENTICATED,
    CloseReason.SHUTDOWN: grpc.StatusCode.UNAVAILABLE,
    CloseReason.SLOW_READER: grpc.StatusCode.RESOURCE_EXHAUSTED,
    CloseReason.DROPPED: grpc.StatusCode.UNAVAILABLE,
    HelloTimeoutError: grpc.StatusCode.DEADLINE_EXCEEDED,
    UnauthenticatedError: grpc.StatusCode.UNAUTHENTICATED,
    UnsupportedVersionError: grpc.StatusCode.FAILED_PRECONDITION,
    BotProtocolError: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidRequestError: grpc.StatusCode.INVALID_ARGUMENT,
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    BotNameTakenError: grpc.StatusCode.ALREADY_EXISTS,
    BotRevokedError: grpc.StatusCode.FAILED_PRECONDITION,
    SeatUnavailableError: grpc.StatusCode.UNAVAILABLE,
    TooManySessionsError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ShuttingDownError: grpc.StatusCode.UNAVAILABLE,
    StoreError: grpc.StatusCode.INTERNAL,
    CorruptDataError: grpc.StatusCode.DATA_LOSS,
    DamagedLogError: grpc.StatusCode.DATA_LOSS,
}


def status_code_for(error: ArenaError | CloseReason) -> grpc.StatusCode:
    """The gRPC status a caller gets for an error, or for the end of its session's stream."""
    if isinstance(error, CloseReason):
        return _CODES[error]
    for cls in type(error).__mro__:
        if cls in _CODES:
            return _CODES[cls]
    return grpc.StatusCode.INTERNAL

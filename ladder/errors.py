"""The ladder's exception hierarchy.

Every error the ladder raises on purpose derives from :class:`LadderError`, so the CLI can print
its message (which names the file, key, bot or match concerned) without a traceback.

>>> try:
...     raise SeasonConfigError("season.toml: blocks: expected an integer, got 'ten'")
... except LadderError as error:
...     print(error)
season.toml: blocks: expected an integer, got 'ten'
"""

from __future__ import annotations

__all__ = [
    "BlockFailedError",
    "BotStartError",
    "LadderError",
    "MatchUnavailableError",
    "RefereeBotNameTakenError",
    "RefereeError",
    "ScheduleError",
    "SeasonConfigError",
    "SeasonMismatchError",
    "StorageError",
    "UnknownSeasonError",
    "VersusError",
]


class LadderError(Exception):
    """Base class of every error the ladder raises on purpose."""


class SeasonConfigError(LadderError, ValueError):
    """A season file that cannot be read or is invalid (message names the file and the key)."""


class ScheduleError(LadderError, ValueError):
    """A season that cannot be scheduled, e.g. fewer bots than seats."""


class StorageError(LadderError):
    """The ladder database is missing, corrupt or of an unknown schema version."""


class UnknownSeasonError(StorageError, KeyError):
    """A season name the ladder database does not hold (message lists the known ones)."""

    def __str__(self) -> str:
        # KeyError.__str__ would show the repr of the message, quotes and all.
        return str(self.args[0]) if self.args else ""


class SeasonMismatchError(StorageError):
    """A season file whose settings no longer match the season already stored under its name."""


class RefereeError(LadderError):
    """The referee refused or failed an Admin call (unreachable, bad admin token, ...)."""


class RefereeCallError(RefereeError):
    """A read of the referee's records (ListBots, ListMatches, GetMatch) answered with an error
    status; the message names the referee, the status and its details."""


class RefereeNotFoundError(RefereeCallError):
    """The referee has no such match or bot (``NOT_FOUND``)."""


class RefereeBotNameTakenError(RefereeError):
    """RegisterBot refused a name that is already registered at the referee."""


class BotStartError(LadderError):
    """A bot process that could not be started, exited early, or never connected in time."""


class BlockFailedError(LadderError):
    """A match of a block did not finish (aborted by the referee or its stream broke off)."""


class MatchUnavailableError(BlockFailedError):
    """A match broke off as unavailable: the referee unreachable, or a seat's bot without a
    session, which is how a bot process's death reaches the runner (brandeln.ladder.season.runner
    then waits a moment for the death itself, the cause, to be reaped and reported)."""


class VersusError(LadderError, ValueError):
    """A head to head (``ratings --versus``) whose sides are not two groups of the season's
    bots (message names the bots concerned)."""

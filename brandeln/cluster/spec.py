"""What a cluster worker needs to play a season's blocks: plain values, sent to each actor."""

from __future__ import annotations

from dataclasses import dataclass, field

from brandeln.ladder.season.config import SeasonConfig

__all__ = ["WorkerSpec"]


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """The season, the bots' identities at the referees (the same on every node: the referees
    share one PostgreSQL database) and where the worker keeps its files on its node.

    The tokens travel to the actors in Ray's task arguments: run Ray on a network you trust,
    as Ray itself asks (its ports have no authentication).
    """

    config: SeasonConfig
    bot_ids: dict[str, str]  # by season bot name
    # Secrets (the tokens, the URL's password) are left out of the repr: Ray prints an
    # actor's arguments in some of its errors, and a log must not carry them.
    tokens: dict[str, str] = field(repr=False)  # command bots' tokens, by season bot name
    database: str = field(repr=False)  # the referees' PostgreSQL URL
    work_dir: str  # on the worker's node: the embedded referee's folder and the bots' logs

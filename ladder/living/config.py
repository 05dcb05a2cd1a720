"""An always-on ladder's settings and what it tells of its work
(:mod:`brandeln.ladder.living.ladder`): the settings kept with the ladder and those of one run, its
events, a new version's rating.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from brandeln.ladder.living.periods import DEFAULT_PERIOD_BLOCKS
from brandeln.ladder.ratings.trueskill_model import Rating, RatingModel
from brandeln.ladder.season.settings import ExternalBot, RatingParams, SeasonConfig, TimeControl
from brandeln.ladder.store.database import LadderVersion

__all__ = [
    "VERSION_WIDEN",
    "EventKind",
    "LadderConfig",
    "LadderEvent",
    "Listener",
    "new_version_rating",
    "players_of",
    "served_at",
    "with_players",
]

# A new version's uncertainty starts as the one before's widened by this share of the initial
# sigma (in quadrature): a rebuild is usually close to what it replaces, not the same bot.
VERSION_WIDEN: Final = 0.5
_SERVER: Final = "server"  # the key of the run's settings that says where versions connect


def players_of(ruleset: str, options: Mapping[str, str]) -> int:
    """The seats of a ruleset (the engine's count)."""
    from brandeln.engine.rulesets import find_ruleset  # noqa: PLC0415 - the engine's tables load once

    return find_ruleset(ruleset, dict(options)).players


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """An always-on ladder's settings. ``ruleset``, ``options``, ``deals_per_match``,
    ``seed`` and ``rating`` decide its blocks and ratings, so they are kept with it and may not
    change; the rest may, between runs."""

    name: str = "ladder"
    ruleset: str = "standard"
    options: Mapping[str, str] = field(default_factory=dict)
    deals_per_match: int = 8
    seed: int = 0
    rating: RatingParams = field(default_factory=RatingParams)
    time_control: TimeControl = field(default_factory=TimeControl)
    blocks_at_once: int = 1
    # A block's matches played at once: each version needs as many seat sessions.
    matches_at_once: int = 1
    interval_s: float = 5.0  # how long to wait when no block can be planned
    seat_wait_ms: int = 10_000  # a match's wait for a session of each bot
    challenges_per_hour: int = 6  # per bot
    players: int = 4
    # Blocks per seed period: each period's deals follow from a seed of its own, committed
    # before its first block and revealed after its last (brandeln.ladder.living.periods).
    period_blocks: int = DEFAULT_PERIOD_BLOCKS
    # Where its versions connect (its referee's HOST:PORT; "" on a cluster, where each node
    # has its own): kept with the run, so `bots version add` prints where to connect.
    server: str = ""

    def run_settings(self) -> dict[str, Any]:
        """What may change between runs, kept with the ladder for the other commands to read
        (the store's ``run``)."""
        return {"challenges_per_hour": self.challenges_per_hour, _SERVER: self.server}

    def settings(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(sorted(self.options.items())),
            "deals_per_match": self.deals_per_match,
            "seed": self.seed,
            "players": self.players,
            "rating": {
                "mu": self.rating.mu,
                "sigma": self.rating.sigma,
                "beta": self.rating.beta,
                "tau": self.rating.tau,
                "draw_probability": self.rating.draw_probability,
            },
        }

    def season(self, versions: Sequence[LadderVersion]) -> SeasonConfig:
        """The ladder as a season's settings, for the season's block player."""
        return SeasonConfig(
            name=self.name,
            seed=self.seed,
            blocks=0,
            bots=tuple(ExternalBot(version.name, version.bot_id) for version in versions),
            players=self.players,
            deals_per_match=self.deals_per_match,
            ruleset=self.ruleset,
            options=dict(self.options),
            time_control=self.time_control,
            concurrency=self.matches_at_once,
            seat_wait_ms=self.seat_wait_ms,
            rating=self.rating,
        )


class EventKind(StrEnum):
    """What happened, for the ladder's log and metrics."""

    PLANNED = "planned"  # a block is about to be played
    RECORDED = "recorded"  # a block is recorded (and rated, unless it is an unrated challenge)
    GIVEN_BACK = "given_back"  # a block could not be played; it is played again later
    REFUSED = "refused"  # a challenge names a version no longer active
    WAITING = "waiting"  # too few versions connected to plan a block
    COMMITTED = "committed"  # a seed period's commitment, published before its first block


@dataclass(frozen=True, slots=True)
class LadderEvent:
    """What the ladder did, for its log and its metrics."""

    kind: EventKind
    block: int | None = None
    bots: tuple[str, ...] = ()
    detail: str = ""
    challenge: int | None = None  # the challenge the block plays
    rated: bool = True


Listener = Callable[[LadderEvent], None]


def served_at(settings: Mapping[str, Any]) -> str:
    """Where the versions of the ladder of ``settings`` (as stored) connect, as its last run
    kept it; "" when no run said (a cluster's, or one from before runs kept it)."""
    run = settings.get("run")
    server = run.get(_SERVER) if isinstance(run, dict) else None
    return server if isinstance(server, str) else ""


def new_version_rating(config: LadderConfig) -> tuple[Rating, float]:
    """A family's first version's rating, and how much a later one widens the one before."""
    return RatingModel(config.rating).initial(), VERSION_WIDEN * config.rating.sigma


def with_players(config: LadderConfig) -> LadderConfig:
    """``config`` with its ruleset's seat count."""
    return replace(config, players=players_of(config.ruleset, config.options))

"""What the always-on ladder's pages show, read from the ladder's store: the ladders beside the
seasons, a ladder's leaderboard of versions with where each stands at the referee, its newest
blocks and its queue of challenges, and a version's standing on its bot page.

A ladder (``brandeln ladder serve``, :mod:`brandeln.ladder.living.ladder`) is a season of kind
``ladder``, so the season pages show it too; these show what only a ladder has. Where a version
stands and whether the ladder serves are judged by :mod:`brandeln.web.ladder_presence`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from brandeln.ladder.errors import LadderError, StorageError
from brandeln.ladder.living.periods import SeedPeriod
from brandeln.ladder.store.database import (
    Challenge,
    LadderStore,
    LadderVersion,
    PlannedBlock,
    VersionPresence,
)
from brandeln.ladder.store.schema import ChallengeState, VersionStatus
from brandeln.web.bots import BotSeason
from brandeln.web.data import PageNotFoundError
from brandeln.web.ladder_presence import ServiceState, ShownPresence, service_state, shown_presence
from brandeln.web.listing import utc_text
from brandeln.web.seasons import SeasonRow, season_info
from brandeln.web.stores import Stores

__all__ = [
    "LADDER_POLL_S",
    "RECENT_BLOCKS",
    "BlockRow",
    "BotLadder",
    "LadderRow",
    "LadderView",
    "QueueRow",
    "VersionRow",
    "bot_ladders",
    "ladder_names",
    "ladder_view",
    "ladders",
    "state_json",
]

LADDER_POLL_S: Final = (
    5  # the page asks for the ladder's state this often (brandeln/web/static/ladder.js)
)
RECENT_BLOCKS: Final = 10
RECENT_PERIODS: Final = 5
# A last error is up to 300 characters (brandeln.ladder.store.presence.ERROR_CHARS); the table shows
# its start, the whole in the cell's title.
ERROR_SHORT_CHARS: Final = 60
MS_PER_S: Final = 1000


@dataclass(frozen=True, slots=True)
class VersionRow:
    """A version on the ladder's leaderboard (``rank`` None: retired, listed below it)."""

    rank: int | None
    name: str
    bot_id: str
    presence: ShownPresence
    conservative: float
    mu: float
    sigma: float
    blocks: int
    last_error: str
    last_error_at: str

    @property
    def last_error_short(self) -> str:
        if len(self.last_error) <= ERROR_SHORT_CHARS:
            return self.last_error
        return self.last_error[:ERROR_SHORT_CHARS].rstrip() + "…"

    def as_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "bot_id": self.bot_id,
            "presence": self.presence.value,
            "presence_label": self.presence.label,
            "conservative": round(self.conservative, 4),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "blocks": self.blocks,
            "last_error": self.last_error,
            "last_error_short": self.last_error_short,
            "last_error_at": self.last_error_at,
        }


@dataclass(frozen=True, slots=True)
class BlockRow:
    """A block the ladder planned (``number``: its stored index, counted from 0 as every page,
    command and log counts blocks)."""

    number: int
    bots: tuple[str, ...]
    rated: bool
    deals: int
    challenge_id: int | None
    recorded: bool  # False: being played, or given back to be played again

    def as_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "bots": list(self.bots),
            "rated": self.rated,
            "deals": self.deals,
            "challenge": self.challenge_id,
            "recorded": self.recorded,
        }


@dataclass(frozen=True, slots=True)
class QueueRow:
    """A challenge waiting (queued) or whose block is planned."""

    challenge_id: int
    state: ChallengeState
    bots: tuple[str, ...]
    rated: bool
    deals: int
    requested_by: str
    queued: str
    block_number: int | None

    def as_json(self) -> dict[str, Any]:
        return {
            "challenge": self.challenge_id,
            "state": self.state.value,
            "bots": list(self.bots),
            "rated": self.rated,
            "deals": self.deals,
            "requested_by": self.requested_by,
            "queued": self.queued,
            "block": self.block_number,
        }


@dataclass(frozen=True, slots=True)
class LadderView:
    """A ladder's page: its season, settings, versions, newest blocks and queue."""

    season: SeasonRow
    deals_per_match: int
    challenges_per_hour: int
    service: ServiceState
    last_seen: str
    active: list[VersionRow]
    retired: list[VersionRow]
    blocks: list[BlockRow]
    queue: list[QueueRow]
    read_at: str
    # The newest seed periods, each with its commitment (its seed once every block of it is in).
    periods: list[SeedPeriod] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.season.name

    @property
    def seats(self) -> int:
        return self.season.players


@dataclass(frozen=True, slots=True)
class LadderRow:
    """A ladder in the index's list."""

    name: str
    ruleset: str
    players: int
    active_versions: int
    blocks_finished: int
    queued: int
    service: ServiceState
    updated: str


def _settings(store: LadderStore, name: str) -> dict[str, Any] | None:
    """The ladder's settings; None when ``name`` is a season but no ladder."""
    try:
        return store.ladders.ladder_settings(name)
    except StorageError:
        raise  # the database itself: the page's error
    except LadderError:
        return None


def ladder_names(stores: Stores) -> set[str]:
    """The seasons that are always-on ladders (one query, however many seasons)."""
    if stores.ladder is None:
        return set()
    return stores.ladder.ladders.ladder_names()


def ladders(stores: Stores, seasons: Sequence[SeasonRow], now: int) -> list[LadderRow]:
    """The index's rows of the ladders among ``seasons`` (:func:`ladder_names` says which),
    in that order."""
    if stores.ladder is None:
        return []
    store = stores.ladder
    rows = []
    for info in seasons:
        active = sum(1 for version in store.ladders.versions(info.name) if version.active)
        service, _ = service_state(store.presence.presence(info.name), now)
        rows.append(
            LadderRow(
                info.name,
                info.ruleset,
                info.players,
                active,
                info.blocks_finished,
                store.challenges.challenges_queued(info.name),
                service,
                info.updated,
            )
        )
    return rows


def _row(
    rank: int | None, version: LadderVersion, seen: VersionPresence | None, now: int
) -> VersionRow:
    error = seen.last_error if seen is not None else ""
    error_at = seen.last_error_at if seen is not None and seen.last_error_at else 0
    return VersionRow(
        rank=rank,
        name=version.name,
        bot_id=version.bot_id,
        presence=shown_presence(seen, now),
        conservative=version.rating.conservative,
        mu=version.rating.mu,
        sigma=version.rating.sigma,
        blocks=version.blocks,
        last_error=error,
        last_error_at=utc_text(error_at) if error else "",
    )


def _ranked(versions: Sequence[LadderVersion]) -> list[LadderVersion]:
    """By μ−3σ, best first, as ``brandeln ladder status`` (a tie: by name)."""
    return sorted(versions, key=lambda v: (-v.rating.conservative, v.name))


def _block(block: PlannedBlock, finished: set[int]) -> BlockRow:
    return BlockRow(
        block.index,
        block.bots,
        block.rated,
        block.deals,
        block.challenge_id,
        block.index in finished,
    )


def _queued(challenge: Challenge) -> QueueRow:
    return QueueRow(
        challenge.challenge_id,
        challenge.state,
        challenge.bots,
        challenge.rated,
        challenge.deals,
        challenge.requested_by,
        utc_text(challenge.created_at),
        challenge.block_index,
    )


def ladder_view(stores: Stores, name: str, now: int) -> LadderView:
    """The page of ladder ``name`` at ``now`` (ms since the epoch); PageNotFoundError when it is
    no ladder."""
    info = season_info(stores, name)  # PageNotFoundError without a store, or for no season
    assert stores.ladder is not None  # season_info found it there
    store = stores.ladder
    settings = _settings(store, name)
    if settings is None:
        raise PageNotFoundError(
            f"{name!r} is a season, not an always-on ladder: see its season page instead"
        )
    versions = store.ladders.versions(name)
    presence = store.presence.presence(name)
    service, newest = service_state(presence, now)
    active = _ranked([v for v in versions if v.status is VersionStatus.ACTIVE])
    retired = _ranked([v for v in versions if v.status is not VersionStatus.ACTIVE])
    finished = store.blocks.finished_blocks(name)
    return LadderView(
        season=info,
        deals_per_match=int(settings["deals_per_match"]),
        challenges_per_hour=int(settings.get("run", {}).get("challenges_per_hour", 0)),
        service=service,
        last_seen=utc_text(newest),
        active=[_row(rank, v, presence.get(v.name), now) for rank, v in enumerate(active, start=1)],
        retired=[_row(None, v, presence.get(v.name), now) for v in retired],
        blocks=[
            _block(block, finished) for block in store.planned.recent_blocks(name, RECENT_BLOCKS)
        ],
        queue=[
            _queued(challenge)
            for challenge in store.challenges.challenges(
                name, ChallengeState.QUEUED, ChallengeState.PLANNED
            )
        ],
        read_at=utc_text(now),
        periods=store.commitments.seed_periods(name, RECENT_PERIODS),
    )


def state_json(view: LadderView) -> dict[str, Any]:
    """What the page's script redraws the page from (``/ladders/NAME/state.json``)."""
    return {
        "ladder": view.name,
        "service": view.service.value,
        "service_label": view.service.label,
        "last_seen": view.last_seen,
        "read_at": view.read_at,
        "blocks_finished": view.season.blocks_finished,
        "active": [row.as_json() for row in view.active],
        "retired": [row.as_json() for row in view.retired],
        "blocks": [block.as_json() for block in view.blocks],
        "queue": [row.as_json() for row in view.queue],
    }


@dataclass(frozen=True, slots=True)
class BotLadder:
    """A bot identity's version in one ladder, for its bot page."""

    ladder: str
    version: VersionRow
    status: VersionStatus
    latency_p50: int | None  # over its rated blocks (the ladder's totals)
    latency_p95: int | None
    decisions: int


def bot_ladders(stores: Stores, seasons_of_bot: Sequence[BotSeason], now: int) -> list[BotLadder]:
    """The ladders among the bot's seasons, with its version in each (newest ladder first)."""
    if stores.ladder is None or not seasons_of_bot:
        return []
    store = stores.ladder
    names = store.ladders.ladder_names()
    found = []
    for entry in seasons_of_bot:
        if entry.season not in names:
            continue
        versions = {v.name: v for v in store.ladders.versions(entry.season)}
        version = versions.get(entry.bot)
        if version is None:
            continue
        seen = store.presence.presence(entry.season).get(version.name)
        rank = None
        if version.active:
            ranked = _ranked([v for v in versions.values() if v.active])
            rank = ranked.index(version) + 1
        totals = store.reads.bot_totals(entry.season).get(version.name)
        latency = totals.latency if totals is not None else None
        found.append(
            BotLadder(
                entry.season,
                _row(rank, version, seen, now),
                version.status,
                latency.p50_ms if latency and latency.decisions else None,
                latency.p95_ms if latency and latency.decisions else None,
                latency.decisions if latency else 0,
            )
        )
    return found

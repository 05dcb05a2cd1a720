"""What the season pages show, read from the ladder's store: the seasons, a season's progress
and schedule, its leaderboard with the head to head, and its rating history."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from brandeln.ladder.errors import UnknownSeasonError, VersusError
from brandeln.ladder.ratings.leaderboard import LeaderboardRow, season_leaderboard
from brandeln.ladder.ratings.versus import HeadToHead, head_to_head, side_names, versus_matrix
from brandeln.ladder.season.commitment import Commitment
from brandeln.ladder.store.database import LadderStore, RecordedMatch, SeasonInfo, SeasonStatus
from brandeln.web.data import PageNotFoundError
from brandeln.web.listing import Paging, utc_text
from brandeln.web.stores import Stores

__all__ = [
    "BLOCKS_PER_PAGE",
    "HistoryPoint",
    "ScheduledBlock",
    "SeasonRow",
    "VersusView",
    "bot_links",
    "chart_data",
    "leaderboard",
    "rating_series",
    "schedule",
    "season_info",
    "seasons",
    "versus",
]

# The head to head's sides as typed in the leaderboard's form are cut to this many characters
# before they are read: bot names, not a file.
VERSUS_QUERY_CHARS: Final = 1000
BLOCKS_PER_PAGE: Final = 10


@dataclass(frozen=True, slots=True)
class SeasonRow:
    name: str
    status: SeasonStatus
    status_detail: str
    ruleset: str
    players: int
    blocks_finished: int
    blocks_planned: int
    updated: str
    # Its committed seed (its page only; the seed itself only once revealed).
    commitment: Commitment | None = None

    @classmethod
    def of(cls, info: SeasonInfo, commitment: Commitment | None = None) -> SeasonRow:
        return cls(
            info.name,
            info.status,
            info.status_detail,
            info.ruleset,
            info.players,
            info.blocks_finished,
            info.blocks_planned,
            utc_text(info.updated_at),
            commitment,
        )

    @property
    def committed(self) -> str:
        """When its seed was committed, as the pages write times."""
        return "" if self.commitment is None else utc_text(self.commitment.committed_at)

    @property
    def running(self) -> bool:
        return self.status is SeasonStatus.RUNNING and self.blocks_finished < self.blocks_planned


def seasons(stores: Stores) -> list[SeasonRow]:
    """Every season, newest first."""
    if stores.ladder is None:
        return []
    return [SeasonRow.of(info) for info in reversed(stores.ladder.seasons.seasons())]


def _ladder(stores: Stores) -> LadderStore:
    if stores.ladder is None:
        raise PageNotFoundError("no seasons yet: the ladder database does not exist")
    return stores.ladder


def season_info(stores: Stores, name: str) -> SeasonRow:
    ladder = _ladder(stores)
    try:
        return SeasonRow.of(ladder.seasons.season(name), ladder.commitments.season_commitment(name))
    except UnknownSeasonError as error:
        raise PageNotFoundError(str(error)) from None


def bot_links(stores: Stores, season: str) -> dict[str, str]:
    """The referee bot id of each season bot that has one (a link to its bot page)."""
    identities = _ladder(stores).bots.bot_identities(season)
    return {name: ident.bot_id for name, ident in identities.items() if ident.bot_id}


def leaderboard(stores: Stores, season: str) -> list[LeaderboardRow]:
    """The same rows as ``brandeln ratings`` (brandeln.ladder.ratings.leaderboard)."""
    season_info(stores, season)
    return season_leaderboard(_ladder(stores), season)


@dataclass(frozen=True, slots=True)
class VersusView:
    """The leaderboard's head to head: every pair of the season's bots, and the two sides a
    reader asked for (as ``brandeln ratings --versus``), over the rated blocks."""

    bots: list[str]  # in the leaderboard's order
    cells: dict[tuple[str, str], HeadToHead]  # (row bot, column bot): the row's gain
    a: str = ""  # the sides as typed: bot names separated by commas
    b: str = ""
    asked: HeadToHead | None = None
    error: str = ""  # why the sides asked for cannot be compared

    def cell(self, a: str, b: str) -> HeadToHead | None:
        return self.cells.get((a, b))


def versus(
    stores: Stores, season: str, bots: Sequence[str], a: str = "", b: str = ""
) -> VersusView:
    """The head to head of ``bots`` pair by pair and, if a side is given, of side ``a`` against
    side ``b``; a side that cannot be compared is a one-line ``error``, not an exception."""
    results = _ladder(stores).reads.results(season, rated_only=True)
    cells = versus_matrix(results, bots)
    a, b = a[:VERSUS_QUERY_CHARS], b[:VERSUS_QUERY_CHARS]
    if not (a.strip() or b.strip()):
        return VersusView(list(bots), cells)
    try:
        asked = head_to_head(results, side_names(a), side_names(b))
    except VersusError as error:
        return VersusView(list(bots), cells, a, b, error=str(error))
    return VersusView(list(bots), cells, a, b, asked)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    block: int  # 1-based: the rating after this many blocks
    mu: float
    sigma: float


def rating_series(stores: Stores, season: str) -> dict[str, list[HistoryPoint]]:
    """Each bot's rating after each block it played, from the stored history."""
    season_info(stores, season)
    series: dict[str, list[HistoryPoint]] = defaultdict(list)
    for index, bot, rating in _ladder(stores).reads.rating_history(season):
        series[bot].append(HistoryPoint(index + 1, rating.mu, rating.sigma))
    return dict(sorted(series.items()))


def chart_data(series: dict[str, list[HistoryPoint]]) -> list[dict[str, Any]]:
    """The chart's input (``|tojson`` into the page): one entry per line, its points."""
    return [
        {
            "label": label,
            "points": [
                {"x": p.block, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4)} for p in points
            ],
        }
        for label, points in series.items()
    ]


@dataclass(frozen=True, slots=True)
class ScheduledBlock:
    index: int
    matches: list[RecordedMatch]


def schedule(
    stores: Stores, season: str, page: int, per_page: int = BLOCKS_PER_PAGE
) -> tuple[list[ScheduledBlock], Paging]:
    """The season's played blocks (newest first) with their matches, one page of blocks."""
    season_info(stores, season)
    by_block: dict[int, list[RecordedMatch]] = defaultdict(list)
    for match in _ladder(stores).reads.matches(season):
        by_block[match.block_index].append(match)
    indexes = sorted(by_block, reverse=True)
    shown = indexes[(page - 1) * per_page : page * per_page]
    return (
        [ScheduledBlock(index, by_block[index]) for index in shown],
        Paging(page, page > 1, len(indexes) > page * per_page),
    )

"""What a bot page shows: its registration, seasons and matches from the stores, and its
figures (chips, contracts, latency) from the logs of its newest matches. A bot that no served
referee store knows but a season does (a ladder's version on another machine's referee) has
its page too, named as in its newest season (where a ladder's version stands: see
:mod:`brandeln.web.ladders`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from brandeln.arena.errors import NotFoundError as RefereeNotFound
from brandeln.arena.latency import percentile
from brandeln.web.bot_figures import FiguresCache, LogFigures
from brandeln.web.data import DataError, PageNotFoundError
from brandeln.web.listing import MatchRow, Paging, recent_matches, utc_text
from brandeln.web.seasons import HistoryPoint, rating_series
from brandeln.web.stores import Stores

__all__ = [
    "BOT_STATS_MATCHES",
    "BotSeason",
    "BotView",
    "ContractRow",
    "bot_rating_series",
    "bot_seasons",
    "bot_view",
]

# A bot page reads the logs of the bot's newest matches for its per-deal figures; older
# matches count in the strikes and forfeits (from the index) only.
BOT_STATS_MATCHES: Final = 100


@dataclass(frozen=True, slots=True)
class BotSeason:
    season: str
    bot: str  # its name in that season


@dataclass(frozen=True, slots=True)
class ContractRow:
    contract: str
    bids: int  # times it bid this contract in an auction
    played: int  # deals it played it as soloist
    made: int

    @property
    def made_percent(self) -> float | None:
        return 100.0 * self.made / self.played if self.played else None


@dataclass
class BotView:
    bot_id: str
    name: str
    revoked: bool
    registered: str
    seasons: list[BotSeason]
    matches: list[MatchRow]
    paging: Paging
    matches_read: int  # logs read for the figures below
    unreadable: list[str]  # match ids whose log could not be read, and why
    strikes: int
    forfeits: int
    soloist_per_deal: float | None
    soloist_deals: int
    defender_per_deal: float | None
    defender_deals: int
    contracts: list[ContractRow]
    latency_p50: int | None
    latency_p95: int | None
    decisions: int


def _bot_record(
    stores: Stores, bot_id: str, seasons_of_bot: Sequence[BotSeason]
) -> tuple[str, bool, int]:
    for store in stores.referees:
        try:
            bot = store.bot(bot_id)
        except RefereeNotFound:
            continue
        return bot.name, bot.revoked, bot.created_at
    if seasons_of_bot:
        # A bot that played at a referee whose store is not served here (a ladder on
        # `--referee`): its name in its newest season stands in for its registration.
        return seasons_of_bot[0].bot, False, 0
    raise PageNotFoundError(f"no bot with id {bot_id!r}")


def bot_seasons(stores: Stores, bot_id: str) -> list[BotSeason]:
    """The seasons in which ``bot_id`` played, newest first, with its name in each."""
    if stores.ladder is None:
        return []
    return [BotSeason(season, name) for season, name in stores.ladder.bots.seasons_of_bot(bot_id)]


def bot_view(stores: Stores, bot_id: str, page: int, figures: FiguresCache) -> BotView:
    """The bot page of ``bot_id``: one page of its matches, its figures from the logs of its
    :data:`BOT_STATS_MATCHES` newest (read through the app's ``figures``)."""
    seasons_of_bot = bot_seasons(stores, bot_id)
    name, revoked, created = _bot_record(stores, bot_id, seasons_of_bot)
    rows, paging = recent_matches(stores, page, bot_id)
    newest = [
        (store, record)
        for store in stores.referees
        for record in store.matches(bot_id, BOT_STATS_MATCHES)
    ]
    newest.sort(key=lambda pair: (pair[1].started_at, pair[1].match_id), reverse=True)
    total = LogFigures()
    unreadable = []
    strikes = forfeits = read = 0
    for store, record in newest[:BOT_STATS_MATCHES]:
        seats = [seat for seat, b in enumerate(record.bot_ids) if b == bot_id]
        strikes += sum(record.strikes[s] for s in seats if s < len(record.strikes))
        forfeits += sum(1 for s in seats if s in record.forfeited)
        try:
            total.add(figures.figures_of(store, record, bot_id))
            read += 1
        except DataError as error:
            unreadable.append(f"{record.match_id}: {error}")
    contracts = [
        ContractRow(contract, total.bids[contract], total.played[contract], total.made[contract])
        for contract in sorted(set(total.bids) | set(total.played))
    ]
    latencies = sorted(total.latencies)
    return BotView(
        bot_id=bot_id,
        name=name,
        revoked=revoked,
        registered=utc_text(created),
        seasons=seasons_of_bot,
        matches=rows,
        paging=paging,
        matches_read=read,
        unreadable=unreadable,
        strikes=strikes,
        forfeits=forfeits,
        soloist_per_deal=(
            total.soloist_chips / total.soloist_deals if total.soloist_deals else None
        ),
        soloist_deals=total.soloist_deals,
        defender_per_deal=(
            total.defender_chips / total.defender_deals if total.defender_deals else None
        ),
        defender_deals=total.defender_deals,
        contracts=contracts,
        # Nearest rank, as the referee's and `matches show`'s (brandeln.arena.latency).
        latency_p50=percentile(latencies, 50) if latencies else None,
        latency_p95=percentile(latencies, 95) if latencies else None,
        decisions=len(latencies),
    )


def bot_rating_series(
    stores: Stores, seasons_of_bot: Sequence[BotSeason]
) -> dict[str, list[HistoryPoint]]:
    """One line per season of the bot: its rating after each block (for its chart)."""
    series: dict[str, list[HistoryPoint]] = {}
    for entry in seasons_of_bot:
        points = rating_series(stores, entry.season).get(entry.bot)
        if points:
            series[entry.season] = points
    return series

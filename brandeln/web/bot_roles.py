"""A bot page's figures by role, one block per season it played: its bidding by contract, its
soloist play and its defence, judged double dummy from the logs
(:mod:`brandeln.services.roles.figures` says what each figure means,
:mod:`brandeln.services.roles.season` how they are kept).

A match is judged once, by whichever reader meets it first (this page, or ``brandeln ratings
--roles``), and kept in the ladder store. A page judges at most
:data:`ROLE_MATCHES_PER_PAGE` matches not kept yet (about a second with the compiled engine):
a long season's first views fill in the figures a share at a time, and the page says how many
matches they cover so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from brandeln.arena.errors import StoreError
from brandeln.arena.logreader import MatchLog
from brandeln.services.roles.figures import BiddingLine, RoleFigures, contract_order
from brandeln.services.roles.season import UnreadableLogError, season_roles
from brandeln.web.bots import BotSeason
from brandeln.web.data import DataError
from brandeln.web.match_logs import read_match_log
from brandeln.web.matches import find_match
from brandeln.web.stores import Stores

__all__ = ["ROLE_MATCHES_PER_PAGE", "BotRoles", "bot_roles"]

ROLE_MATCHES_PER_PAGE: Final = 24


@dataclass(frozen=True)
class BotRoles:
    """A bot's role figures in one season, and the matches they cover."""

    season: str
    bot: str  # its name in that season
    figures: RoleFigures
    contracts: list[BiddingLine]  # by contract, then for them all
    matches: int  # the season's matches it played
    judged: int  # those its figures cover
    left: int  # not judged yet (the page's share is spent)
    deals: int
    unread: list[str] = field(default_factory=list)


def bot_roles(stores: Stores, seasons_of_bot: Sequence[BotSeason]) -> list[BotRoles]:
    """The role figures of the bot in each of its seasons (newest first, as given)."""
    ladder = stores.ladder
    if ladder is None:
        return []

    def read(match_id: str) -> MatchLog:
        try:
            store, record = find_match(stores, match_id)
            return read_match_log(store, record)
        except (DataError, StoreError) as error:
            raise UnreadableLogError(str(error)) from None

    shown = []
    budget = ROLE_MATCHES_PER_PAGE
    for entry in seasons_of_bot:
        roles = season_roles(ladder, entry.season, read, bot=entry.bot, budget=budget)
        budget -= roles.read_now
        figures = roles.bots.get(entry.bot, RoleFigures())
        shown.append(
            BotRoles(
                season=entry.season,
                bot=entry.bot,
                figures=figures,
                contracts=figures.bidding.lines(
                    contract_order(ladder.seasons.season(entry.season).ruleset)
                ),
                matches=roles.matches,
                judged=roles.judged,
                left=roles.left,
                deals=roles.deals,
                unread=roles.unread,
            )
        )
    return shown

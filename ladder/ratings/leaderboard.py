"""The leaderboard: ratings and statistics per bot, best first.

Bots are ranked by the conservative rating mu - 3 sigma (higher first; then mu, then name, so
the order is total and stable). Statistics cover the rated blocks (see
:meth:`brandeln.ladder.store.reads.ReadModelStore.results`).

>>> from brandeln.ladder.ratings.trueskill_model import Rating
>>> from brandeln.ladder.store.database import RatingRow
>>> ratings = [RatingRow("a", Rating(25.0, 8.0), 0), RatingRow("b", Rating(30.0, 1.0), 0)]
>>> rows = leaderboard(ratings, [])
>>> [(row.rank, row.bot) for row in rows]
[(1, 'b'), (2, 'a')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from brandeln.ladder.ratings.stats import (
    MeanInterval,
    chips_per_deal,
    chips_per_deal_json,
    made_percent,
    mean_ci95_from_sums,
)
from brandeln.ladder.season.duplicate import BotBlockResult, DecisionLatency, combine_latency
from brandeln.ladder.store.database import BotTotals, LadderStore, RatingRow

__all__ = ["LeaderboardRow", "leaderboard", "leaderboard_from_totals", "season_leaderboard"]


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One line of the leaderboard."""

    rank: int
    bot: str
    conservative: float
    mu: float
    sigma: float
    blocks: int
    deals: int
    chips: int
    chips_per_deal: MeanInterval | None
    contracts_bid: int
    contracts_made: int
    timeouts: int
    illegal: int
    forfeits: int  # blocks in which it forfeited a match
    strikes: int = 0  # every penalty: timeouts, illegal actions, protocol errors
    latency: DecisionLatency = field(default_factory=DecisionLatency)  # decisions 0: none

    @property
    def made_percent(self) -> float | None:
        return made_percent(self.contracts_bid, self.contracts_made)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``brandeln ratings --json``)."""
        return {
            "rank": self.rank,
            "bot": self.bot,
            "conservative": self.conservative,
            "mu": self.mu,
            "sigma": self.sigma,
            "blocks": self.blocks,
            "deals": self.deals,
            "chips": self.chips,
            **chips_per_deal_json(self.chips_per_deal),
            "contracts_bid": self.contracts_bid,
            "contracts_made": self.contracts_made,
            "contracts_made_percent": self.made_percent,
            "timeouts": self.timeouts,
            "illegal_actions": self.illegal,
            "forfeits": self.forfeits,
            "strikes": self.strikes,
            "latency": None
            if not self.latency.decisions
            else {
                "decisions": self.latency.decisions,
                "p50_ms": self.latency.p50_ms,
                "p95_ms": self.latency.p95_ms,
                "max_ms": self.latency.max_ms,
            },
        }


def leaderboard(
    ratings: Sequence[RatingRow], results: Sequence[tuple[int, BotBlockResult]]
) -> list[LeaderboardRow]:
    """The leaderboard from current ratings and per-block results."""
    by_bot: dict[str, list[BotBlockResult]] = defaultdict(list)
    for _, result in results:
        by_bot[result.bot].append(result)
    ordered = sorted(ratings, key=lambda row: (-row.rating.conservative, -row.rating.mu, row.bot))
    rows = []
    for position, row in enumerate(ordered, start=1):
        played = by_bot.get(row.bot, [])
        rows.append(
            LeaderboardRow(
                rank=position,
                bot=row.bot,
                conservative=row.rating.conservative,
                mu=row.rating.mu,
                sigma=row.rating.sigma,
                blocks=row.blocks,
                deals=sum(r.deals for r in played),
                chips=sum(r.chips for r in played),
                chips_per_deal=chips_per_deal(played),
                contracts_bid=sum(r.contracts_bid for r in played),
                contracts_made=sum(r.contracts_made for r in played),
                timeouts=sum(r.timeouts for r in played),
                illegal=sum(r.illegal for r in played),
                forfeits=sum(1 for r in played if r.forfeited),
                strikes=sum(r.strikes for r in played),
                latency=combine_latency(r.latency for r in played),
            )
        )
    return rows


def season_leaderboard(store: LadderStore, season: str) -> list[LeaderboardRow]:
    """The leaderboard of a stored season, from the per-bot totals the store keeps with the
    ratings (one row per bot, however long the season: no read of every block's results)."""
    return leaderboard_from_totals(store.reads.ratings(season), store.reads.bot_totals(season))


def leaderboard_from_totals(
    ratings: Sequence[RatingRow], totals: Mapping[str, BotTotals]
) -> list[LeaderboardRow]:
    """The leaderboard from current ratings and each bot's totals over its rated blocks (the
    same rows as :func:`leaderboard` over those blocks' results)."""
    ordered = sorted(ratings, key=lambda row: (-row.rating.conservative, -row.rating.mu, row.bot))
    rows = []
    for position, row in enumerate(ordered, start=1):
        total = totals.get(row.bot)
        rows.append(
            LeaderboardRow(
                rank=position,
                bot=row.bot,
                conservative=row.rating.conservative,
                mu=row.rating.mu,
                sigma=row.rating.sigma,
                blocks=row.blocks,
                deals=total.deals if total else 0,
                chips=total.chips if total else 0,
                chips_per_deal=(
                    mean_ci95_from_sums(total.cpd_n, total.cpd_sum, total.cpd_sum_sq)
                    if total
                    else None
                ),
                contracts_bid=total.contracts_bid if total else 0,
                contracts_made=total.contracts_made if total else 0,
                timeouts=total.timeouts if total else 0,
                illegal=total.illegal if total else 0,
                forfeits=total.forfeits if total else 0,
                strikes=total.strikes if total else 0,
                latency=total.latency if total else DecisionLatency(),
            )
        )
    return rows

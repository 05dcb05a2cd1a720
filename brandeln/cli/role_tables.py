"""`ratings --roles`: a season's figures by role as three tables that fit 80 columns (bidding by
contract, soloist play, defence) and as JSON. What each figure means:
:mod:`brandeln.services.roles.figures`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from rich.table import Table

from brandeln.cli.layout import compact_table, fixed, folding
from brandeln.cli.terminal_text import plain
from brandeln.cli.wrapped_text import Legend
from brandeln.engine.plurals import plural
from brandeln.services.roles.figures import RoleFigures
from brandeln.services.roles.season import SeasonRoles

__all__ = ["bidding_table", "defence_table", "roles_json", "soloist_table"]

ALL = "all"  # the row of a bot's every contract
# What "chosen" counts (brandeln.services.roles.figures judges every deal with a soloist, in every
# block of the season), said beside what the leaderboard's "made" counts, which differs.
CHOSEN_COUNTS = (
    "the contracts it played as soloist: the auctions it won and the contract a pass-out forced "
    "on it, in every block, rated or not (the leaderboard's made/bid counts the auctions won in "
    "rated blocks only)"
)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def bidding_table(roles: SeasonRoles, order: Sequence[str] = ()) -> Table:
    """Per bot and contract it played as soloist (``order``: the ruleset's ladder): chosen,
    made, and how many were makeable double dummy."""
    table = compact_table(
        title=f"bidding: the contracts each bot played as soloist ({plural(roles.deals, 'deal')})"
    )
    table.caption = Legend(
        f"chosen = {CHOSEN_COUNTS}",
        "made % = made/chosen",
        "makeable: could be made double dummy at the first card (every hand known), of those "
        "with a card play to judge",
    )
    folding(table, "bot")
    fixed(table, "contract")
    for header in ("chosen", "made", "made %", "makeable", "of", "%"):
        fixed(table, header, right=True)
    for bot, figures in roles.bots.items():
        lines = figures.bidding.lines(order)
        if not lines:
            table.add_row(plain(bot), "-", "0", "0", "-", "0", "0", "-")
        for number, line in enumerate(lines):
            table.add_row(
                plain(bot) if number == 0 else "",
                ALL if line.contract is None else plain(line.contract),
                str(line.chosen),
                str(line.made),
                _percent(line.made_percent),
                str(line.makeable),
                str(line.judged),
                _percent(line.makeable_percent),
            )
    return table


def soloist_table(roles: SeasonRoles) -> Table:
    """Per bot, the deals it played as soloist: makeable, made, lost, its slips."""
    return _per_bot_table(
        roles,
        "soloist play, double dummy",
        Legend(
            "makeable: at the first card",
            "lost: makeable and not made (only the soloist's own cards can lose it)",
            "slips: its cards that gave the contract away",
        ),
        ("deals", "makeable", "made", "lost", "lost %", "slips", "slips/deal"),
        lambda figures: (
            str(figures.soloist.deals),
            str(figures.soloist.makeable),
            str(figures.soloist.made),
            str(figures.soloist.lost),
            _percent(figures.soloist.lost_percent),
            str(figures.soloist.slips),
            _rate(figures.soloist.slips_per_deal),
        ),
    )


def defence_table(roles: SeasonRoles) -> Table:
    """Per bot, the deals it defended: beatable, let through by its slip, its slips."""
    return _per_bot_table(
        roles,
        "defence, double dummy",
        Legend(
            "beatable: at the first card",
            "let through: beatable, made, and its slip the last to hand it over",
            "slips: its cards that let a beatable contract become makeable",
        ),
        ("deals", "beatable", "let through", "slips", "slips/deal"),
        lambda figures: (
            str(figures.defence.deals),
            str(figures.defence.beatable),
            str(figures.defence.let_through),
            str(figures.defence.slips),
            _rate(figures.defence.slips_per_deal),
        ),
    )


def _per_bot_table(
    roles: SeasonRoles,
    title: str,
    legend: Legend,
    headers: Sequence[str],
    cells: Callable[[RoleFigures], Sequence[str]],
) -> Table:
    """A row per bot: its name (folding), then ``cells`` of its figures under ``headers``."""
    table = compact_table(title=title)
    table.caption = legend
    folding(table, "bot")
    for header in headers:
        fixed(table, header, right=True)
    for bot, figures in roles.bots.items():
        table.add_row(plain(bot), *cells(figures))
    return table


def roles_json(roles: SeasonRoles, order: Sequence[str] = ()) -> dict[str, Any]:
    """The role figures as JSON-ready data (``ratings --roles --json``, under ``roles``)."""
    return {
        "matches": roles.matches,
        "matches_judged": roles.judged,
        "matches_judged_now": roles.judged_now,
        "matches_left": roles.left,
        "deals": roles.deals,
        "bots": [_bot_json(bot, figures, order) for bot, figures in roles.bots.items()],
        "unread": list(roles.unread),
        "not_kept": roles.not_kept or None,
    }


def _bot_json(bot: str, figures: RoleFigures, order: Sequence[str]) -> dict[str, Any]:
    every = figures.bidding.line()
    return {
        "bot": bot,
        "bidding": {
            "chosen": every.chosen,
            "made": every.made,
            "made_percent": every.made_percent,
            "judged": every.judged,
            "makeable": every.makeable,
            "makeable_percent": every.makeable_percent,
            "contracts": [
                {
                    "contract": line.contract,
                    "chosen": line.chosen,
                    "made": line.made,
                    "judged": line.judged,
                    "makeable": line.makeable,
                }
                for line in figures.bidding.lines(order)
                if line.contract is not None
            ],
        },
        "soloist": asdict(figures.soloist),
        "defence": asdict(figures.defence),
    }

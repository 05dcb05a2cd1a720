"""`brandeln ratings`: a season's leaderboard from the ladder database (no referee needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from brandeln_cli import paths
from brandeln_cli.terminal_text import json_text, markup, plain, safe

if TYPE_CHECKING:  # imported in the command: `brandeln --help` must stay fast
    from ladder.leaderboard import LeaderboardRow
    from ladder.storage import SeasonInfo

console = Console()
errors = Console(stderr=True)

LADDER_DB = "ladder.db"

DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Data folder [default: ./brandeln-data or $BRANDELN_DATA]."),
]


def ladder_db(data: Path | None) -> Path:
    """The ladder database in the data folder: ``DATA/ladder.db``."""
    return (data or paths.data_dir()) / LADDER_DB


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` to stderr; the caller raises the returned Exit.

    Messages quote season files, bot names and the user's own arguments: they are escaped, so
    a ruleset of ``[/x]`` is not markup and an ESC byte does not reach the terminal.
    """
    errors.print(f"[red]error:[/red] {markup(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def leaderboard_table(rows: list[LeaderboardRow], title: str) -> Table:
    """The leaderboard as a rich table that fits 80 columns.

    The numbers never wrap (so they are never cut); a long bot name, and its forfeits, fold
    onto further lines of its cell. ``ill.`` is short for illegal actions: with the widest
    figures a long season gives (``-25.40±13.68``, ``140/210 67%``, 100 timeouts) the name
    keeps eight columns.
    """
    from brandeln_cli.layout import compact_table, fixed, folding  # noqa: PLC0415 - --help

    table = compact_table(
        title=title,
        caption="ranked by μ-3σ (TrueSkill) · chips/deal ± 95% CI over blocks · "
        "made = contracts made/bid as soloist · t/o = timeouts · ill. = illegal actions",
    )
    fixed(table, "#", right=True)
    folding(table, "bot", min_width=8)
    for header in ("μ-3σ", "μ", "σ", "blocks", "chips/deal", "made", "t/o", "ill."):
        fixed(table, header, right=True)
    for row in rows:
        interval = row.chips_per_deal
        if interval is None:
            chips = "-"
        elif interval.half_width is None:
            chips = f"{interval.mean:+.2f}"
        else:
            chips = f"{interval.mean:+.2f}±{interval.half_width:.2f}"
        percent = row.made_percent
        made = (
            "-" if percent is None else f"{row.contracts_made}/{row.contracts_bid} {percent:.0f}%"
        )
        name = safe(row.bot) + (f" ({row.forfeits} forfeited)" if row.forfeits else "")
        table.add_row(
            str(row.rank),
            plain(name),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            str(row.blocks),
            chips,
            made,
            str(row.timeouts),
            str(row.illegal),
        )
    return table


def season_title(info: SeasonInfo) -> str:
    """``season NAME (RULESET): F of P blocks``, and how its last run ended unless finished;
    as rich markup (its name and ruleset escaped)."""
    from ladder.storage import SeasonStatus  # noqa: PLC0415

    title = (
        f"season {markup(info.name)} ({markup(info.ruleset)}): {info.blocks_finished} of "
        f"{info.blocks_planned} blocks"
    )
    return title if info.status == SeasonStatus.FINISHED else f"{title}, {info.status}"


def season_line(info: SeasonInfo) -> str:
    """A line of `season list`: the title, its status, and why it failed."""
    from ladder.storage import SeasonStatus  # noqa: PLC0415

    line = season_title(info)
    if info.status == SeasonStatus.FINISHED:
        line += ", finished"
    if info.status_detail:
        line += f": {markup(info.status_detail)}"
    return line


def leaderboard_document(info: SeasonInfo, rows: list[LeaderboardRow]) -> dict[str, Any]:
    """The leaderboard as JSON-ready data (``ratings --json``, ``season run --json``)."""
    return {
        "season": info.name,
        "ruleset": info.ruleset,
        "status": info.status,
        "blocks_finished": info.blocks_finished,
        "blocks_planned": info.blocks_planned,
        "leaderboard": [row.to_json() for row in rows],
    }


def ratings(
    season: Annotated[
        str | None, typer.Option(help="The season [default: the one run most recently].")
    ] = None,
    data: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """A season's leaderboard: rank, bot, conservative rating μ-3σ, μ, σ, blocks, chips per
    deal with a 95% confidence interval, contracts made, timeouts and illegal actions.

    Chips per deal and its interval come from one sample per duplicate block (the block is the
    independent unit: its rotations replay the same cards).
    """
    from ladder.errors import LadderError  # noqa: PLC0415
    from ladder.leaderboard import season_leaderboard  # noqa: PLC0415
    from ladder.storage import LadderStore  # noqa: PLC0415

    try:
        with LadderStore.open(ladder_db(data), create=False) as store:
            info = store.season(season) if season else store.latest_season()
            if info is None:
                from brandeln_cli import hints  # noqa: PLC0415

                run = hints.command("season", "run", "FILE", data=data)
                raise fail(f"no seasons in {store.path} yet; run `{run}`")
            rows = season_leaderboard(store, info.name)
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text(leaderboard_document(info, rows)))
        return
    console.print(leaderboard_table(rows, season_title(info)), soft_wrap=False)

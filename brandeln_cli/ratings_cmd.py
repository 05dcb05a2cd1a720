"""`brandeln ratings`: a season's leaderboard from the ladder database (no referee needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from brandeln_cli import paths
from brandeln_cli.terminal_text import json_text, markup, plain

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
    """The leaderboard as a rich table (fits 80 columns for bot names up to ~12 characters)."""
    table = Table(
        title=title,
        box=None,
        padding=(0, 0, 0, 2),
        pad_edge=False,
        header_style="bold",
        caption_justify="left",
    )
    table.add_column("#", justify="right", no_wrap=True, min_width=1)
    table.add_column("bot", no_wrap=True)
    for header in ("μ-3σ", "μ", "σ", "blocks", "chips/deal", "made", "t/o", "illegal"):
        table.add_column(header, justify="right", no_wrap=True)
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
        name = row.bot + (f" ({row.forfeits} forfeited)" if row.forfeits else "")
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
    table.caption = (
        "ranked by μ-3σ (TrueSkill) · chips/deal ± 95% CI over blocks · "
        "made = contracts made/bid as soloist · t/o = timeouts · illegal = illegal actions"
    )
    return table


def season_title(info: SeasonInfo) -> str:
    """The season's title line, as rich markup (its name and ruleset escaped)."""
    return (
        f"season {markup(info.name)} ({markup(info.ruleset)}): {info.blocks_finished} of "
        f"{info.blocks_planned} blocks"
    )


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
                raise fail(f"no seasons in {store.path} yet; run `brandeln season run FILE`")
            rows = season_leaderboard(store, info.name)
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        document = {
            "season": info.name,
            "ruleset": info.ruleset,
            "blocks_finished": info.blocks_finished,
            "blocks_planned": info.blocks_planned,
            "leaderboard": [row.to_json() for row in rows],
        }
        typer.echo(json_text(document))
        return
    console.print(leaderboard_table(rows, season_title(info)))

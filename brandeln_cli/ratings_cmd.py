"""`brandeln ratings`: a season's leaderboard from the ladder database (no referee needed)."""

from __future__ import annotations

from typing import Annotated

import typer

from brandeln_cli.db_option import DbOption, ladder_database, shown
from brandeln_cli.leaderboard_view import (
    decisions_table,
    head_to_head_json,
    head_to_head_line,
    leaderboard_document,
    leaderboard_table,
    season_title,
)
from brandeln_cli.options import DataOption, JsonOption
from brandeln_cli.output import console, fail
from brandeln_cli.terminal_text import json_text


def ratings(
    season: Annotated[
        str | None, typer.Option(help="The season [default: the one run most recently].")
    ] = None,
    data: DataOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    versus: Annotated[
        list[str] | None,
        typer.Option(
            "--versus",
            metavar="BOT[,BOT...]",
            help="Twice, for a head to head: side one's chips per deal minus side two's, with "
            "its 95% interval over the blocks both played; a side is a bot or a group of "
            "copies (--versus expert,expert-2 --versus montecarlo,montecarlo-2).",
        ),
    ] = None,
) -> None:
    """A season's leaderboard: rank, bot, conservative rating μ-3σ, μ, σ, blocks, chips per
    deal with a 95% confidence interval, contracts made, timeouts and illegal actions; then
    each bot's decision time (p50, p95, max in ms) and strikes.

    Chips per deal and its interval come from one sample per duplicate block (the block is the
    independent unit: its rotations replay the same cards). With --versus, last, the head to
    head of two bots or groups of copies, on the same blocks.
    """
    if versus is not None and len(versus) != 2:
        raise fail(f"--versus is given twice, once per side (got {len(versus)})", code=2)
    from ladder.errors import LadderError  # noqa: PLC0415
    from ladder.leaderboard import season_leaderboard  # noqa: PLC0415
    from ladder.storage import LadderStore  # noqa: PLC0415

    where = ladder_database(db, data)
    try:
        with LadderStore.open(where, create=False) as store:
            info = store.season(season) if season else store.latest_season()
            if info is None:
                from brandeln_cli import hints  # noqa: PLC0415

                run = hints.command("season", "run", "FILE", data=data)
                raise fail(f"no seasons in {shown(where)} yet; run `{run}`")
            rows = season_leaderboard(store, info.name)
            gap = None
            if versus is not None:
                from ladder.versus import head_to_head, side_names  # noqa: PLC0415

                sides = [side_names(side) for side in versus]
                # The rated blocks, the ones the leaderboard describes.
                gap = head_to_head(store.results(info.name, rated_only=True), *sides)
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        document = leaderboard_document(info, rows)
        if gap is not None:
            document["versus"] = head_to_head_json(gap)
        typer.echo(json_text(document))
        return
    console.print(leaderboard_table(rows, season_title(info)), soft_wrap=False)
    console.print(decisions_table(rows), soft_wrap=False)
    if gap is not None:
        console.print(head_to_head_line(gap), highlight=False)

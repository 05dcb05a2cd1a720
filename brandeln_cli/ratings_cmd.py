"""`brandeln ratings`: a season's leaderboard from the ladder database (no referee needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from brandeln_cli.terminal_text import json_text, plain

if TYPE_CHECKING:
    from brandeln_cli.card_play import CardPlay, Seated


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
    double_dummy: Annotated[
        bool,
        typer.Option(
            "--double-dummy",
            help="Also judge every card of the season's logs with the exact solver, every hand "
            "known: per bot, the cards that mattered and those that gave its side's goal away, "
            "as soloist and as defender (card play apart from bidding and the cards dealt).",
        ),
    ] = False,
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
            matches = store.matches(info.name) if double_dummy else []
    except LadderError as error:
        raise fail(str(error)) from None
    bots = [row.bot for row in rows]
    play = _card_play(matches, bots, data, db, quiet=as_json) if double_dummy else None
    if as_json:
        document = leaderboard_document(info, rows)
        if gap is not None:
            document["versus"] = head_to_head_json(gap)
        if play is not None:
            from brandeln_cli.card_play import card_play_json  # noqa: PLC0415

            document["double_dummy"] = card_play_json(play)
        typer.echo(json_text(document))
        return
    console.print(leaderboard_table(rows, season_title(info)), soft_wrap=False)
    console.print(decisions_table(rows), soft_wrap=False)
    if gap is not None:
        console.print(head_to_head_line(gap), highlight=False)
    if play is not None:
        from brandeln_cli.card_play import card_play_table  # noqa: PLC0415

        console.print(card_play_table(play), soft_wrap=False)
        for line in play.unread:
            console.print(plain(f"not judged: {line}", style="yellow"), soft_wrap=True)


def _card_play(
    matches: Sequence[Seated],
    bots: list[str],
    data: Path | None,
    db: str | None,
    *,
    quiet: bool,
) -> CardPlay:
    """The season's card play from its logs (brandeln_cli.card_play), with a progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415

    from brandeln_cli.card_play import season_card_play  # noqa: PLC0415
    from services.sources import SourceError, open_source  # noqa: PLC0415

    try:
        source = open_source(data, None, db=db)
    except SourceError as error:
        raise fail(str(error)) from None

    def read(match_id: str) -> tuple[str, str]:
        record, text = source.match(match_id)
        return text, source.log_name(record)

    bar = Progress(
        TextColumn("judging the card play"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn("matches"),
        console=console,
        transient=True,
        disable=quiet,
    )
    with bar:
        task = bar.add_task("matches", total=len(matches))
        return season_card_play(matches, bots, read, lambda: bar.advance(task))

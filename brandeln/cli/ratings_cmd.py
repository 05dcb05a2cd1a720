"""`brandeln ratings`: a season's leaderboard from the ladder database (no referee needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.commitment_view import commitment_json, commitment_line
from brandeln.cli.db_option import DbOption, ladder_database, shown
from brandeln.cli.leaderboard_view import (
    batch_notes,
    batch_table,
    decisions_table,
    head_to_head_json,
    head_to_head_line,
    leaderboard_document,
    leaderboard_table,
    season_title,
)
from brandeln.cli.options import DataOption, JsonOption
from brandeln.cli.output import console, fail
from brandeln.cli.terminal_text import json_text, plain

if TYPE_CHECKING:
    from rich.progress import Progress

    from brandeln.cli.card_play import CardPlay, Seated
    from brandeln.ladder.ratings.batch import BatchRatings
    from brandeln.ladder.store.database import LadderStore
    from brandeln.services.roles.season import SeasonRoles


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
    batch: Annotated[
        bool,
        typer.Option(
            "--batch/--no-batch",
            help="The batch ratings beside TrueSkill (Plackett-Luce over every rated block at "
            "once): --no-batch skips their fit, which grows with the blocks (0.25-0.4 s of "
            "CPU for 100 blocks of four).",
        ),
    ] = True,
    double_dummy: Annotated[
        bool,
        typer.Option(
            "--double-dummy",
            help="Also judge every card of the season's logs with the exact solver, every hand "
            "known: per bot, the cards that mattered and those that gave its side's goal away, "
            "as soloist and as defender (card play apart from bidding and the cards dealt).",
        ),
    ] = False,
    roles: Annotated[
        bool,
        typer.Option(
            "--roles",
            help="Also rate each bot by role, from the logs judged double dummy: its bidding "
            "(contracts chosen, made, makeable), its soloist play (makeable contracts lost, "
            "slips) and its defence (beatable contracts let through, slips). Each match is "
            "judged once and kept in the ladder database.",
        ),
    ] = False,
) -> None:
    """A season's leaderboard: rank, bot, conservative rating μ-3σ, μ, σ, blocks, chips per
    deal with a 95% confidence interval, contracts made, timeouts and illegal actions; then
    the batch ratings; then each bot's decision time (p50, p95, max in ms) and strikes.

    TrueSkill learns block after block, so the order of the blocks moves it. The batch ratings
    fit every rated block at once (Plackett-Luce on each block's ranking): a bot's strength is
    a log-strength (0 is the field's mean; a bot 1 above another finishes ahead of it 73% of
    the time), its 95% interval and P(#1) (the chance it is the strongest) come from refitting
    500 resamples of the blocks (a fixed seed: the same season, the same figures), and "ranks
    95%" are the ranks it took in the middle 95% of those resamples.

    Chips per deal and its interval come from one sample per duplicate block (the block is the
    independent unit: its rotations replay the same cards). With --versus, last, the head to
    head of two bots or groups of copies, on the same blocks.
    """
    if versus is not None and len(versus) != 2:
        raise fail(f"--versus is given twice, once per side (got {len(versus)})", code=2)
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.ratings.leaderboard import season_leaderboard  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    where = ladder_database(db, data)
    try:
        with LadderStore.open(where, create=False) as store:
            info = store.seasons.season(season) if season else store.seasons.latest_season()
            if info is None:
                from brandeln.cli import hints  # noqa: PLC0415

                run = hints.command("season", "run", "FILE", data=data)
                raise fail(f"no seasons in {shown(where)} yet; run `{run}`")
            rows = season_leaderboard(store, info.name)
            commitment = store.commitments.season_commitment(
                info.name
            )  # None for a ladder (its periods')
            gap = None
            if versus is not None:
                from brandeln.ladder.ratings.versus import head_to_head, side_names  # noqa: PLC0415

                sides = [side_names(side) for side in versus]
                # The rated blocks, the ones the leaderboard describes.
                gap = head_to_head(store.reads.results(info.name, rated_only=True), *sides)
            fitted = _batch(store, info.name) if batch else None
            matches = store.reads.matches(info.name) if double_dummy else []
            bots = [row.bot for row in rows]
            by_role = _roles(store, info.name, bots, data, db, quiet=as_json) if roles else None
    except LadderError as error:
        raise fail(str(error)) from None
    play = _card_play(matches, bots, data, db, quiet=as_json) if double_dummy else None
    if as_json:
        document = leaderboard_document(info, rows)
        document["commitment"] = commitment_json(commitment)
        if fitted is not None:
            from brandeln.ladder.ratings.season_batch import batch_json  # noqa: PLC0415

            document["batch"] = batch_json(fitted)
        if gap is not None:
            document["versus"] = head_to_head_json(gap)
        if play is not None:
            from brandeln.cli.card_play import card_play_json  # noqa: PLC0415

            document["double_dummy"] = card_play_json(play)
        if by_role is not None:
            from brandeln.cli.role_tables import roles_json  # noqa: PLC0415
            from brandeln.services.roles.figures import contract_order  # noqa: PLC0415

            document["roles"] = roles_json(by_role, contract_order(info.ruleset))
        typer.echo(json_text(document))
        return
    console.print(leaderboard_table(rows, season_title(info)), soft_wrap=False)
    if commitment is not None:
        console.print(commitment_line(commitment), highlight=False, markup=False)
    if fitted is not None:
        console.print(batch_table(fitted, rows), soft_wrap=False)
        for note in batch_notes(fitted):
            console.print(note, soft_wrap=True)
    console.print(decisions_table(rows), soft_wrap=False)
    if gap is not None:
        console.print(head_to_head_line(gap), highlight=False)
    if play is not None:
        from brandeln.cli.card_play import card_play_table  # noqa: PLC0415

        console.print(card_play_table(play), soft_wrap=False)
        for line in play.unread:
            console.print(plain(f"not judged: {line}", style="yellow"), soft_wrap=True)
    if by_role is not None:
        from brandeln.services.roles.figures import contract_order  # noqa: PLC0415

        _print_roles(by_role, contract_order(info.ruleset))


def _batch(store: LadderStore, season: str) -> BatchRatings:
    """The season's batch ratings, a fit of every rated block
    (brandeln.ladder.ratings.season_batch)."""
    from brandeln.ladder.ratings.season_batch import batch_ratings_of  # noqa: PLC0415 - numpy, scipy: --help

    return batch_ratings_of(store, season)


def _card_play(
    matches: Sequence[Seated],
    bots: list[str],
    data: Path | None,
    db: str | None,
    *,
    quiet: bool,
) -> CardPlay:
    """The season's card play from its logs (brandeln.cli.card_play), with a progress bar."""
    from brandeln.cli.card_play import season_card_play  # noqa: PLC0415
    from brandeln.services.sources import SourceError, open_source  # noqa: PLC0415

    try:
        source = open_source(data, None, db=db)
    except SourceError as error:
        raise fail(str(error)) from None

    def read(match_id: str) -> tuple[str, str]:
        record, text = source.match(match_id)
        return text, source.log_name(record)

    bar = _matches_bar("judging the card play", quiet=quiet)
    with bar:
        task = bar.add_task("matches", total=len(matches))
        return season_card_play(matches, bots, read, lambda: bar.advance(task))


def _roles(
    store: LadderStore,
    season: str,
    bots: list[str],
    data: Path | None,
    db: str | None,
    *,
    quiet: bool,
) -> SeasonRoles:
    """The season's figures by role (brandeln.services.roles.season): the matches not judged yet are
    judged from their logs, with a progress bar, and kept."""
    from brandeln.arena.logreader import MatchLog, MatchLogError, read_log  # noqa: PLC0415
    from brandeln.services.roles.season import UnreadableLogError, season_roles  # noqa: PLC0415
    from brandeln.services.sources import SourceError, open_source  # noqa: PLC0415

    source = None

    def read(match_id: str) -> MatchLog:
        nonlocal source
        try:
            if source is None:  # opened for the first match not kept yet, if any
                source = open_source(data, None, db=db)
            record, text = source.match(match_id)
            return read_log(text, source.log_name(record))
        except (SourceError, MatchLogError) as error:
            raise UnreadableLogError(str(error)) from None

    bar = _matches_bar("judging the roles", quiet=quiet)
    with bar:
        task = bar.add_task("matches", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return season_roles(store, season, read, bots=bots, progress=progress)


def _matches_bar(what: str, *, quiet: bool) -> Progress:
    """A progress bar over a season's matches, gone once done (none with --json)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn  # noqa: PLC0415

    return Progress(
        TextColumn(what),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn("matches"),
        console=console,
        transient=True,
        disable=quiet,
    )


def _print_roles(roles: SeasonRoles, order: tuple[str, ...]) -> None:
    from brandeln.cli.role_tables import bidding_table, defence_table, soloist_table  # noqa: PLC0415

    console.print(bidding_table(roles, order), soft_wrap=False)
    console.print(soloist_table(roles), soft_wrap=False)
    console.print(defence_table(roles), soft_wrap=False)
    for line in roles.unread:
        console.print(plain(f"not judged: {line}", style="yellow"), soft_wrap=True)
    if roles.not_kept:
        console.print(plain(f"not kept: {roles.not_kept}", style="yellow"), soft_wrap=True)

"""`brandeln matches ...` and `brandeln bots ...`: inspect what the referee recorded."""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from brandeln_cli.sources import LocalSource, SourceError, open_source

console = Console(soft_wrap=True)  # tokens and ids stay on one line, copyable
errors = Console(stderr=True)

matches_app = typer.Typer(help="List, show, export and verify matches.", no_args_is_help=True)
bots_app = typer.Typer(help="Register and list bot identities.", no_args_is_help=True)

DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Data folder [default: ./brandeln-data or $BRANDELN_DATA]."),
]
RefereeOption = Annotated[
    str | None,
    typer.Option(
        "--referee",
        help="HOST:PORT of a running referee (admin token in $BRANDELN_ADMIN_TOKEN); "
        "default: read the local files.",
    ),
]
CaOption = Annotated[Path | None, typer.Option("--ca", help="CA file for a TLS referee.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def fail(message: str) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}")
    return typer.Exit(1)


def _time(ms: int) -> str:
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


@bots_app.command("add")
def bots_add(
    name: str, data: DataOption = None, referee: RefereeOption = None, ca: CaOption = None
) -> None:
    """Register a bot; prints its token once (only a hash is stored)."""
    try:
        bot, token = open_source(data, referee, ca, create=True).add_bot(name)
    except SourceError as error:
        raise fail(str(error)) from None
    console.print(f"registered [bold]{name}[/bold] as {bot.bot_id}")
    console.print(f"token (shown once): [bold]{token}[/bold]")


@bots_app.command("list")
def bots_list(
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: JsonOption = False,
) -> None:
    """The registered bots."""
    try:
        bots = open_source(data, referee, ca).bots()
    except SourceError as error:
        raise fail(str(error)) from None
    if as_json:
        console.print_json(json.dumps([dataclasses.asdict(b) for b in bots]))
        return
    table = Table(title="bots")
    for column in ("bot id", "name", "registered", "revoked"):
        table.add_column(column)
    for bot in bots:
        table.add_row(bot.bot_id, bot.name, _time(bot.created_at), "yes" if bot.revoked else "")
    console.print(table)


@bots_app.command("revoke")
def bots_revoke(
    name: Annotated[str, typer.Argument(help="The bot's name or id.")], data: DataOption = None
) -> None:
    """Revoke a bot's token in the local referee database (a running referee too).

    Its next Hello is refused (UNAUTHENTICATED); sessions it has open play on until they end,
    and a dropped seat of it cannot be resumed.
    """
    try:
        source = LocalSource(data)
        bot_id = source.resolve_bot(name)
        source.store.revoke_bot(bot_id)
    except SourceError as error:
        raise fail(str(error)) from None
    console.print(f"revoked [bold]{name}[/bold] ({bot_id}): its token is refused from now on")


@matches_app.command("list")
def matches_list(
    season: Annotated[
        str | None, typer.Option(help="Only this ladder season's matches (from its database).")
    ] = None,
    bot: Annotated[str | None, typer.Option(help="Only this bot's matches (name or id).")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 20,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    as_json: JsonOption = False,
) -> None:
    """Finished and running matches, newest first (with --season: a season's, by block)."""
    if season is not None:
        _season_matches(season, bot, limit, data, as_json)
        return
    try:
        source = open_source(data, referee, ca)
        bot_id = source.resolve_bot(bot) if bot else ""
        rows = source.matches(bot_id, limit)
    except SourceError as error:
        raise fail(str(error)) from None
    if as_json:
        console.print_json(json.dumps([dataclasses.asdict(r) for r in rows]))
        return
    table = Table(title="matches")
    for column in ("match id", "started", "ruleset", "status", "deals", "bots (chips)"):
        table.add_column(column)
    for row in rows:
        players = ", ".join(
            f"{name} {chips:+d}" for name, chips in zip(row.bot_names, row.balances, strict=False)
        )
        table.add_row(
            row.match_id,
            _time(row.started_at),
            row.ruleset,
            row.status,
            str(row.deals_played),
            players,
        )
    console.print(table)
    if rows:
        console.print(f"inspect one: brandeln matches show {rows[0].match_id}")


def _season_matches(
    season: str, bot: str | None, limit: int, data: Path | None, as_json: bool
) -> None:
    """A season's matches as the ladder recorded them, newest block first."""
    from brandeln_cli.ratings_cmd import ladder_db  # noqa: PLC0415
    from ladder.errors import LadderError  # noqa: PLC0415
    from ladder.storage import LadderStore  # noqa: PLC0415

    try:
        with LadderStore.open(ladder_db(data), create=False) as store:
            recorded = store.matches(season)
    except LadderError as error:
        raise fail(str(error)) from None
    rows = [m for m in reversed(recorded) if bot is None or bot in m.bots][:limit]
    if as_json:
        console.print_json(
            json.dumps([{**dataclasses.asdict(m), "season": season} for m in rows], default=list)
        )
        return
    table = Table(title=f"season {season}: matches")
    for column in ("match id", "block", "rotation", "suits", "deals", "bots (chips)"):
        table.add_column(column)
    for match in rows:
        players = ", ".join(
            f"{name} {chips:+d}" for name, chips in zip(match.bots, match.balances, strict=False)
        )
        table.add_row(
            match.match_id,
            str(match.block_index),
            str(match.rotation),
            match.suit_permutation,
            str(match.deals_played),
            players,
        )
    console.print(table)
    if rows:
        console.print(f"inspect one: brandeln matches show {rows[0].match_id}")


def _load(match_id: str, data: Path | None, referee: str | None, ca: Path | None) -> str:
    try:
        return open_source(data, referee, ca).match(match_id)[1]
    except SourceError as error:
        raise fail(str(error)) from None


@matches_app.command("show")
def matches_show(
    match_id: str,
    deal: Annotated[int | None, typer.Option(help="Show this deal trick by trick.")] = None,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
) -> None:
    """A match at a glance, or one deal: hands, auction, trump, every trick, settlement."""
    from arena.matchlog import read_log  # noqa: PLC0415 - keep --help fast
    from brandeln_cli.match_view import deal_detail, match_overview  # noqa: PLC0415

    try:
        records = read_log(_load(match_id, data, referee, ca))
    except ValueError as error:
        raise fail(f"match {match_id}: {error}") from None
    if not records or records[0]["type"] != "header":
        raise fail(f"match {match_id}: the log has no header")
    if deal is None:
        console.print(match_overview(records))
        console.print(f"one deal trick by trick: brandeln matches show {match_id} --deal 1")
        return
    try:
        console.print(deal_detail(records, deal))
    except KeyError as error:
        raise fail(str(error.args[0])) from None


@matches_app.command("export")
def matches_export(
    match_id: str, data: DataOption = None, referee: RefereeOption = None, ca: CaOption = None
) -> None:
    """Print the match's full JSON Lines log."""
    typer.echo(_load(match_id, data, referee, ca), nl=False)


@matches_app.command("verify")
def matches_verify(
    match_id: str, data: DataOption = None, referee: RefereeOption = None, ca: CaOption = None
) -> None:
    """Replay the match's log through the engine: is the recorded result reproduced?"""
    from arena.matchlog import replay_log  # noqa: PLC0415

    try:
        report = replay_log(_load(match_id, data, referee, ca))
    except ValueError as error:
        raise fail(f"match {match_id}: {error}") from None
    if report.reproduced:
        console.print(
            f"[green]reproduced[/green]: {report.deals_replayed} deals replayed, balances "
            f"{list(report.replayed_balances)} match the log"
        )
        return
    console.print(f"[red]not reproduced[/red]: {match_id}")
    for problem in report.problems:
        console.print(f"- {problem}")
    raise typer.Exit(1)

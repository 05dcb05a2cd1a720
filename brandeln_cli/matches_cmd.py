"""`brandeln matches ...` and `brandeln bots ...`: inspect what the referee recorded."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from brandeln_cli.sources import LocalSource, SourceError, open_source
from brandeln_cli.terminal_text import json_text, markup, plain

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
    """Print ``error: message`` on one line to stderr; the caller raises the returned Exit.

    Messages quote bot names and the user's own arguments, so they are escaped (a match id of
    ``[/x]`` is not markup, an ESC byte in a name does not reach the terminal).
    """
    errors.print(f"[red]error:[/red] {markup(message)}", highlight=False, soft_wrap=True)
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
    # The token first: whatever the name holds, it must not cost the only copy of the token.
    console.print(f"token (shown once): [bold]{markup(token)}[/bold]")
    console.print(f"registered [bold]{markup(bot.name)}[/bold] as {markup(bot.bot_id)}")


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
        typer.echo(json_text([dataclasses.asdict(b) for b in bots]))
        return
    table = Table(title="bots")
    for column in ("bot id", "name", "registered", "revoked"):
        table.add_column(column)
    for bot in bots:
        table.add_row(
            plain(bot.bot_id), plain(bot.name), _time(bot.created_at), "yes" if bot.revoked else ""
        )
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
    console.print(
        f"revoked [bold]{markup(name)}[/bold] ({markup(bot_id)}): its token is refused from now on"
    )


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
        typer.echo(json_text([dataclasses.asdict(r) for r in rows]))
        return
    table = Table(title="matches")
    for column in ("match id", "started", "ruleset", "status", "deals", "bots (chips)"):
        table.add_column(column)
    for row in rows:
        players = ", ".join(
            f"{name} {chips:+d}" for name, chips in zip(row.bot_names, row.balances, strict=False)
        )
        table.add_row(
            plain(row.match_id),
            _time(row.started_at),
            plain(row.ruleset),
            plain(row.status),
            str(row.deals_played),
            plain(players),
        )
    console.print(table)
    if rows:
        console.print(f"inspect one: brandeln matches show {markup(rows[0].match_id)}")


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
        typer.echo(json_text([{**dataclasses.asdict(m), "season": season} for m in rows]))
        return
    table = Table(title=f"season {markup(season)}: matches")
    for column in ("match id", "block", "rotation", "suits", "deals", "bots (chips)"):
        table.add_column(column)
    for match in rows:
        players = ", ".join(
            f"{name} {chips:+d}" for name, chips in zip(match.bots, match.balances, strict=False)
        )
        table.add_row(
            plain(match.match_id),
            str(match.block_index),
            str(match.rotation),
            plain(match.suit_permutation),
            str(match.deals_played),
            plain(players),
        )
    console.print(table)
    if rows:
        console.print(f"inspect one: brandeln matches show {markup(rows[0].match_id)}")


def _load(match_id: str, data: Path | None, referee: str | None, ca: Path | None) -> LoadedLog:
    """The match's log, read and validated: a one-line error (exit 1) when it cannot be."""
    from arena.matchlog import MatchLogError, read_log  # noqa: PLC0415 - keep --help fast

    try:
        source = open_source(data, referee, ca)
        record, text = source.match(match_id)
        name = source.log_name(record)
        return LoadedLog(name, text, read_log(text, name))
    except (SourceError, MatchLogError) as error:
        raise fail(str(error)) from None


@dataclasses.dataclass(frozen=True)
class LoadedLog:
    name: str  # how errors name it: its file (and the referee it came from)
    text: str
    records: list[dict[str, Any]]


@matches_app.command("show")
def matches_show(
    match_id: str,
    deal: Annotated[int | None, typer.Option(help="Show this deal trick by trick.")] = None,
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
) -> None:
    """A match at a glance, or one deal: hands, auction, trump, every trick, settlement."""
    from brandeln_cli.match_view import deal_detail, match_overview  # noqa: PLC0415

    records = _load(match_id, data, referee, ca).records
    if deal is None:
        console.print(match_overview(records))
        console.print(f"one deal trick by trick: brandeln matches show {markup(match_id)} --deal 1")
        return
    try:
        console.print(deal_detail(records, deal))
    except KeyError as error:
        raise fail(str(error.args[0])) from None


@matches_app.command("export")
def matches_export(
    match_id: str, data: DataOption = None, referee: RefereeOption = None, ca: CaOption = None
) -> None:
    """Print the match's full JSON Lines log (after checking it reads as one)."""
    loaded = _load(match_id, data, referee, ca)
    typer.echo(terminal_safe_jsonl(loaded.text, loaded.records), nl=False)


def terminal_safe_jsonl(text: str, records: list[dict[str, Any]]) -> str:
    """The log as written, except that a line holding a raw control or format character (only
    a damaged or edited log has one: the writer escapes them) is printed re-encoded with JSON
    escapes, which mean the same and cannot act on the terminal."""
    if text.isascii() and all(line.isprintable() for line in text.splitlines()):
        return text
    parsed = iter(records)
    out = []
    for line in text.splitlines(keepends=True):
        if not line.strip():
            out.append(line)
            continue
        record = next(parsed)
        body = line.rstrip("\r\n")
        out.append(line if body.isprintable() else json_text(record, None) + line[len(body) :])
    return "".join(out)


@matches_app.command("verify")
def matches_verify(
    match_id: str, data: DataOption = None, referee: RefereeOption = None, ca: CaOption = None
) -> None:
    """Replay the match's log through the engine and check every result it shows.

    Exit 0 when reproduced; else exit 1 and list what differs, the first differing field first.
    """
    from arena.matchlog import replay_log  # noqa: PLC0415

    loaded = _load(match_id, data, referee, ca)
    report = replay_log(loaded.text, loaded.name)
    if report.reproduced:
        console.print(
            f"[green]reproduced[/green]: {report.deals_replayed} deals replayed; contracts, "
            f"tricks, payments, balances {list(report.replayed_balances)}, ranks, strikes and "
            "forfeits match the log",
            highlight=False,
        )
        return
    console.print(f"[red]not reproduced[/red]: {markup(loaded.name)}", highlight=False)
    for problem in report.problems:
        console.print(f"- {markup(problem)}", highlight=False)
    raise typer.Exit(1)

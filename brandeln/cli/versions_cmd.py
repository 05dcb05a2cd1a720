"""`brandeln bots version add|list|retire`: a bot's versions on an always-on ladder.

A version is a referee identity of its own, named ``BOT@VERSION`` (its token connects that
build and no other), and a bot of the ladder (``brandeln.ladder.store.living``): the ladder seats
its active versions, and a new version of a bot retires the one before and starts from its rating,
widened (``brandeln.ladder.living.ladder.new_version_rating``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.db_option import DbOption, is_postgresql, open_ladder
from brandeln.cli.options import (
    DEFAULT_LADDER,
    CaOption,
    DataOption,
    JsonOption,
    LadderOption,
    RefereeOption,
)
from brandeln.cli.output import copyable as console
from brandeln.cli.output import fail, hint
from brandeln.cli.terminal_text import json_text, markup, plain
from brandeln.engine.plurals import plural

if TYPE_CHECKING:
    from brandeln.ladder.bots.version_commands import VersionCommand
    from brandeln.ladder.store.database import LadderVersion

version_app = typer.Typer(
    help="A bot's versions on the always-on ladder: publish one, list them, retire one.",
    no_args_is_help=True,
)

VERSION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")


def _checked(bot: str, version: str) -> None:
    """Refuse, in one line, a name the ladder could not tell apart (``@`` splits it)."""
    if not bot or "@" in bot:
        raise fail(f"a bot name may not be empty nor hold '@': {bot!r}", code=2)
    if not version or len(version) > 40 or not set(version) <= VERSION_CHARS:
        raise fail(
            f"a version is 1 to 40 of letters, digits and . _ + - (like 1.4.0): {version!r}",
            code=2,
        )


@version_app.command("add")
def version_add(
    bot: Annotated[str, typer.Argument(help="The bot (its family of versions).")],
    version: Annotated[str, typer.Argument(help="The new version, like 1.4.0 or a commit.")],
    ladder: LadderOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            help="The ladder launches this version itself with this command (split like a "
            "shell; {server}, {token}, {name}, {tables} filled in, as a season file's bots); "
            "default: the version connects by itself with the token shown.",
        ),
    ] = None,
    tables: Annotated[
        int | None,
        typer.Option("--tables", help="--command: the seat sessions it opens (default: 1).", min=1),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print {name, bot_id, token, mu, sigma, command, server} as JSON."
        ),
    ] = False,
) -> None:
    """Publish BOT@VERSION on the ladder: registers its referee identity (the token is shown
    once) and makes it the bot's active version; it plays its placement blocks first. With
    --command the ladder launches it (and hands it a fresh token each run)."""
    _checked(bot, version)
    launch = _launch(command, tables)
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.living.config import LadderConfig, new_version_rating, served_at  # noqa: PLC0415
    from brandeln.ladder.season.settings import RatingParams  # noqa: PLC0415
    from brandeln.ladder.store.database import SeasonStatus  # noqa: PLC0415
    from brandeln.services.sources import SourceError, open_source  # noqa: PLC0415

    name = f"{bot}@{version}"
    try:
        with open_ladder(db, data, ladder) as store:
            settings = store.ladders.ladder_settings(ladder)
            # Where it connects: the referee it is registered at, else where the ladder serves.
            server = referee or served_at(settings)
            serving = store.seasons.season(ladder).status is SeasonStatus.RUNNING
            before = store.ladders.versions(ladder)
            if any(v.name == name for v in before):
                raise fail(f"{name} is in ladder {ladder!r} already")
            inherited = any(v.family == bot for v in before)
            rating = settings["rating"]
            params = RatingParams(
                mu=rating["mu"],
                sigma=rating["sigma"],
                beta=rating["beta"],
                tau=rating["tau"],
                draw_probability=rating["draw_probability"],
            )
            start, widen = new_version_rating(LadderConfig(rating=params))
            try:
                # The referee's database unless the ladder's is PostgreSQL (a shared one).
                referee_db = db if is_postgresql(db) else None
                row, token = open_source(data, referee, ca, create=True, db=referee_db).add_bot(
                    name
                )
            except SourceError as error:
                raise fail(str(error)) from None
            added = store.ladders.add_version(
                ladder, bot, version, row.bot_id, start, widen, launch
            )
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(
            json_text(
                {
                    "name": added.name,
                    "bot_id": added.bot_id,
                    "token": token,
                    "mu": added.rating.mu,
                    "sigma": added.rating.sigma,
                    "command": None if launch is None else list(launch.argv),
                    "server": server or None,
                },
                None,
            )
        )
        return
    if launch is not None:
        console.print(
            plain(
                f"{added.name} is the active version of {bot} on ladder {ladder}, launched by "
                f"the ladder with {plural(launch.tables, 'table')} (starts at μ "
                f"{added.rating.mu:.2f}, "
                f"σ {added.rating.sigma:.2f}: {_START[inherited]})"
            )
        )
        hint(
            "the running ladder starts it at its next look; or start the ladder",
            f"brandeln ladder serve{'' if ladder == DEFAULT_LADDER else f' --name {ladder}'}",
        )
        return
    console.print(f"token (shown once): [bold]{markup(token)}[/bold]")
    console.print(
        plain(
            f"{added.name} is the active version of {bot} on ladder {ladder} "
            f"(starts at μ {added.rating.mu:.2f}, σ {added.rating.sigma:.2f}: "
            f"{_START[inherited]})"
        )
    )
    _hint_connect(server, serving=serving or bool(referee))


def _hint_connect(server: str, *, serving: bool) -> None:
    """How to connect a version: to ``server``, where its ladder serves (as its last run kept
    it; "" when none said), with the token just shown."""
    command = "brandeln bot run heuristic --server {} --token <the token>"
    if not server:
        hint(
            'connect it to the address `brandeln ladder serve` printed as "referee listening '
            'on" (your own bot: the same server and token)',
            command.format("HOST:PORT"),
        )
        return
    stopped = "" if serving else "; the ladder is stopped: its last run listened there"
    hint(f"connect it (your own bot: the same server and token{stopped})", command.format(server))


def _launch(command: str | None, tables: int | None) -> VersionCommand | None:
    """The ``--command`` checked as a season file's would be (one line when it is not)."""
    from brandeln.ladder.bots.version_commands import CommandError, parse_command  # noqa: PLC0415

    if command is None:
        if tables is not None:
            raise fail("--tables is a launched version's: give --command too", code=2)
        return None
    try:
        return parse_command(command, 1 if tables is None else tables)
    except CommandError as error:
        raise fail(f"--command: {error}", code=2) from None


_START = {
    False: "a fresh rating",
    True: "the version before's rating, widened, no wider than a fresh one",
}


@version_app.command("list")
def version_list(
    bot: Annotated[str | None, typer.Argument(help="Only this bot's versions.")] = None,
    ladder: LadderOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The ladder's versions, oldest first: active or retired, with their ratings."""
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415

    try:
        with open_ladder(db, data, ladder) as store:
            versions = [v for v in store.ladders.versions(ladder) if bot is None or v.family == bot]
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text([version_json(v) for v in versions]))
        return
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415

    table = compact_table(title=f"versions on ladder {markup(ladder)}")
    folding(table, "version")
    for column in ("status", "launched by", "μ", "σ", "blocks"):
        fixed(table, column, right=column not in {"status", "launched by"})
    for v in versions:
        table.add_row(
            plain(v.name),
            v.status.value,
            launched_by(v),
            f"{v.rating.mu:.2f}",
            f"{v.rating.sigma:.2f}",
            str(v.blocks),
        )
    console.print(table, soft_wrap=False)


def version_json(version: LadderVersion) -> dict[str, object]:
    """A version as `--json` prints it (``bots version list``, ``ladder status``)."""
    return {
        "name": version.name,
        "bot": version.family,
        "version": version.version,
        "status": version.status.value,
        "mu": version.rating.mu,
        "sigma": version.rating.sigma,
        "blocks": version.blocks,
        "command": None if version.command is None else list(version.command.argv),
        "tables": None if version.command is None else version.command.tables,
    }


def launched_by(version: LadderVersion) -> str:
    """Who starts the version's process: the ladder (a command version) or its owner."""
    if version.command is None:
        return "itself"
    return f"the ladder ({plural(version.command.tables, 'table')})"


@version_app.command("retire")
def version_retire(
    name: Annotated[str, typer.Argument(help="The version, BOT@VERSION.")],
    ladder: LadderOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
) -> None:
    """Retire a version: the ladder seats it no more; its blocks and rating stay."""
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415

    try:
        with open_ladder(db, data, ladder) as store:
            store.ladders.retire_version(ladder, name)
    except LadderError as error:
        raise fail(str(error)) from None
    console.print(plain(f"retired {name}: its history stays on ladder {ladder}"))

"""`brandeln match run BOT BOT BOT BOT`: one match, on an embedded referee or a running one.

Each BOT is a sample bot's name, a command (``cmd:...``, or the words after ``--``) or a
registered bot id (``brandeln.cli.bot_spec``). The ladder plays it
(``brandeln.ladder.season.one_match``: the season runner's own launching and stopping of bot
processes); the result is read back with ``GetMatch`` and shown as ``matches show`` shows it
(``brandeln.cli.match_view``).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.bot_spec import (
    BotArgError,
    CommandAfterDashes,
    parse_bots,
    registered_ids,
    trailing_command,
)
from brandeln.cli.options import CaOption, DataOption, SeasonRefereeOption
from brandeln.cli.output import console, fail, hint
from brandeln.cli.terminal_text import json_text, markup
from brandeln.cli.watch_cmd import AdminTokenOption
from brandeln.services import data_folder

if TYPE_CHECKING:
    from brandeln.cli.watch_view import WatchPrinter
    from brandeln.ladder.referee.admin_client import AdminClient
    from brandeln.ladder.season.one_match import OneMatch

match_app = typer.Typer(
    help="Play one match between any bots (sample bots, commands, registered bots).",
    no_args_is_help=True,
)

SEED_BITS = 32  # a random seed short enough to type back in
CONNECT_TIMEOUT_S = (
    30.0  # a season's default (brandeln.ladder.season.config.DEFAULT_CONNECT_TIMEOUT_MS)
)


@match_app.command("run", cls=CommandAfterDashes)
def run(
    ctx: typer.Context,
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            help="One BOT per seat: a sample bot (random, heuristic, montecarlo, bridge, "
            "node), cmd:COMMAND, or a registered bot id; a last bot's command may follow --.",
            show_default=False,
        ),
    ] = None,
    ruleset: Annotated[
        str, typer.Option(help="The ruleset (docs/RULES.md section 6); three-player seats 3.")
    ] = "standard",
    deals: Annotated[
        int | None, typer.Option(help="Deals to play [default: the ruleset's].", min=1)
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed of the deals [default: a random one, printed].", min=0),
    ] = None,
    move_ms: Annotated[
        int, typer.Option(help="Time per decision in ms [default: the referee's].", min=0)
    ] = 0,
    watch: Annotated[
        bool, typer.Option("--watch", help="Follow the match as it is played.")
    ] = False,
    connect_timeout: Annotated[
        float,
        typer.Option(metavar="SECONDS", min=0.1, help="How long the command bots have to connect."),
    ] = CONNECT_TIMEOUT_S,
    referee: SeasonRefereeOption = None,
    admin_token: AdminTokenOption = None,
    ca: CaOption = None,
    data: DataOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON (as `matches show --json`).")
    ] = False,
) -> None:
    """Play one match and print its result, its deals and how to open its replay.

    Command bots get BRANDELN_SERVER and BRANDELN_TOKEN in their environment, as in a season;
    their output goes to DATA/match/bots/<bot>.log.
    """
    from brandeln.ladder.errors import SeasonConfigError  # noqa: PLC0415
    from brandeln.ladder.season.config import TimeControl  # noqa: PLC0415 - the ladder loads the engine
    from brandeln.ladder.season.one_match import OneMatch, match_config  # noqa: PLC0415

    try:
        specs = parse_bots(bots or [], trailing_command(ctx))
    except BotArgError as error:
        raise fail(str(error), code=2) from None
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    match = OneMatch(
        bots=specs,
        ruleset=ruleset,
        deals=deals,
        seed=seed,
        time_control=TimeControl(move_ms=move_ms),
        connect_timeout_ms=round(connect_timeout * 1000),
    )
    try:
        match_config(match)
    except SeasonConfigError as error:
        raise fail(str(error), code=2) from None
    registered = registered_ids(specs)
    if registered and referee is None:
        raise fail(
            f"{', '.join(registered)}: a registered bot connects by itself, so it plays on a "
            f"running referee: {_served_referee(data)}",
            code=2,
        )
    if referee is not None and not admin_token:
        raise fail(
            f"--referee needs the admin token (--admin-token or ${data_folder.ADMIN_TOKEN_ENV})",
            code=2,
        )
    try:
        root_certificates = ca.read_bytes() if ca else None
    except OSError as error:
        raise fail(f"cannot read the CA file {ca}: {error.strerror}", code=2) from None
    match_id = _play(
        match, data, referee, admin_token, root_certificates, watch=watch, as_json=as_json
    )
    if not as_json:
        _print_hints(match_id, data, referee, ca)


def _served_referee(data: Path | None) -> str:
    """How to reach the referee of the data folder (``brandeln serve``), for the error above."""
    from brandeln.arena.datalock import current_holder  # noqa: PLC0415
    from brandeln.arena.errors import StoreError  # noqa: PLC0415

    try:
        holder = current_holder(data_folder.referee_db(data))
    except StoreError:  # an unreadable lock file: say what to do without it
        holder = None
    if holder is not None and holder.address:
        address = holder.address
        return f"the one of this data folder listens on {address}: add --referee {address}"
    return "start one (`brandeln serve`), connect the bot to it, and add --referee HOST:PORT"


def _play(
    match: OneMatch,
    data: Path | None,
    referee: str | None,
    admin_token: str | None,
    root_certificates: bytes | None,
    *,
    watch: bool,
    as_json: bool,
) -> str:
    """Play the match and print its result; its id."""
    import asyncio  # noqa: PLC0415

    from brandeln.arena.errors import StoreError  # noqa: PLC0415
    from brandeln.arena.logreader import read_log  # noqa: PLC0415
    from brandeln.cli.match_view import match_overview, match_overview_json  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415

    data_dir = data or data_folder.data_dir()
    where = "an embedded referee" if referee is None else f"the referee at {referee}"
    if not as_json:
        console.print(
            f"match: {', '.join(markup(bot.name) for bot in match.bots)}; ruleset "
            f"{markup(match.ruleset)}, seed {match.seed}, on {markup(where)}",
            highlight=False,
        )
    try:
        log_text = asyncio.run(
            _run(match, data_dir, referee, admin_token, root_certificates, watch=watch)
        )
    except (LadderError, StoreError) as error:
        # StoreError: the embedded referee's data is unusable or owned by a live referee.
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    log = read_log(log_text, "the match log")
    if as_json:
        typer.echo(json_text(match_overview_json(log) | {"seed": match.seed}))
    else:
        console.print(match_overview(log), soft_wrap=False)
    return log.header.match_id


async def _run(
    match: OneMatch,
    data_dir: Path,
    referee: str | None,
    admin_token: str | None,
    root_certificates: bytes | None,
    *,
    watch: bool,
) -> str:
    """Play the match; the text of its log (read back with GetMatch)."""
    from brandeln.ladder.referee.admin_client import AdminClient  # noqa: PLC0415

    logs_dir = data_folder.match_bots_dir(data_dir)
    if referee is not None and admin_token is not None:
        async with AdminClient(referee, admin_token, root_certificates=root_certificates) as admin:
            return await _run_on(admin, referee, match, logs_dir, reuse=False, watch=watch)
    from brandeln.arena.embedded import EmbeddedReferee  # noqa: PLC0415 - grpc/arena load slowly

    # The embedded referee's own folder, as `season run` uses: `matches show` reads it.
    async with (
        EmbeddedReferee(data_folder.embedded_dir(data_dir)) as embedded,
        AdminClient(embedded.address, embedded.admin_token) as admin,
    ):
        return await _run_on(admin, embedded.address, match, logs_dir, reuse=True, watch=watch)


async def _run_on(
    admin: AdminClient,
    address: str,
    match: OneMatch,
    logs_dir: Path,
    *,
    reuse: bool,
    watch: bool,
) -> str:
    import asyncio  # noqa: PLC0415

    from brandeln.cli.watch_cmd import follow  # noqa: PLC0415
    from brandeln.cli.watch_view import WatchPrinter  # noqa: PLC0415
    from brandeln.ladder.season.one_match import play_one_match  # noqa: PLC0415

    started: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_started(match_id: str) -> None:
        if not started.done():
            started.set_result(match_id)

    async def follow_it(printer: WatchPrinter) -> None:
        await follow(admin, await started, printer)

    watcher = asyncio.ensure_future(follow_it(WatchPrinter(console, []))) if watch else None
    try:
        result = await play_one_match(
            admin, address, match, logs_dir, reuse_identities=reuse, on_started=on_started
        )
        if watcher is not None:
            await watcher  # it ends with the match (WatchMatch's stream ends with it)
    finally:
        if watcher is not None and not watcher.done():
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
    _, log_text = await admin.get_match(result.match_id)
    return log_text


def _print_hints(match_id: str, data: Path | None, referee: str | None, ca: Path | None) -> None:
    from brandeln.cli import hints  # noqa: PLC0415

    hint(
        "the replay, one deal trick by trick",
        hints.command(
            "matches", "show", match_id, "--deal", "1", data=data, referee=referee, ca=ca
        ),
    )
    hint("watch it again", hints.command("watch", match_id, data=data, referee=referee, ca=ca))

"""`brandeln season run FILE`, `brandeln season list` and `brandeln demo`: ladder seasons.

The CLI composes the layers: it reads the season file (ladder), starts an embedded referee
(arena) unless ``--referee`` names a running one, and hands both to the ladder's runner, which
reaches the referee only through its Admin service.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import sample_bots
from brandeln_cli import paths
from brandeln_cli.ratings_cmd import (
    DataOption,
    console,
    fail,
    ladder_db,
    leaderboard_table,
    season_title,
)

# The ladder (and through it grpc) is imported inside the commands: `brandeln --help` must not
# pay for it.
if TYPE_CHECKING:
    from ladder.config import CommandBot, SeasonConfig
    from ladder.runner import SeasonProgress, SeasonSummary
    from ladder.storage import LadderStore

season_app = typer.Typer(
    help="Run ladder seasons of duplicate blocks (rulesets: docs/RULES.md section 6).",
    no_args_is_help=True,
)

INTERRUPTED_EXIT = 130  # the shell's code for "stopped by Ctrl-C"

RefereeOption = Annotated[
    str | None,
    typer.Option(
        "--referee",
        help="HOST:PORT of a running referee (admin token in $BRANDELN_ADMIN_TOKEN); "
        "default: start an embedded referee on a free loopback port.",
    ),
]
CaOption = Annotated[Path | None, typer.Option("--ca", help="CA file (PEM) for a TLS referee.")]


@season_app.command("run")
def run(
    file: Annotated[Path, typer.Argument(help="The season file (TOML).")],
    data: DataOption = None,
    referee: RefereeOption = None,
    ca: CaOption = None,
) -> None:
    """Play a season (or the rest of an interrupted one) and print its leaderboard.

    Running the same file again resumes: finished blocks are kept, an unfinished block is
    played again from its start, nothing is counted twice.
    """
    from ladder.config import load_season  # noqa: PLC0415
    from ladder.errors import SeasonConfigError  # noqa: PLC0415

    try:
        config = load_season(file)
    except SeasonConfigError as error:
        raise fail(str(error), code=2) from None
    play(config, data, referee, ca)


@season_app.command("list")
def list_seasons(
    data: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """The seasons in the ladder database, oldest first."""
    from ladder.errors import LadderError  # noqa: PLC0415
    from ladder.storage import LadderStore  # noqa: PLC0415

    try:
        with LadderStore.open(ladder_db(data), create=False) as store:
            infos = [store.season(name) for name in store.season_names()]
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json.dumps([dataclasses.asdict(info) for info in infos], indent=2))
        return
    if not infos:
        console.print("no seasons yet; run `brandeln season run FILE`")
    for info in infos:
        console.print(season_title(info), highlight=False)


def demo(data: DataOption = None) -> None:
    """A short season of the sample bots (about a minute), ending with the leaderboard."""
    from ladder.config import parse_season  # noqa: PLC0415
    from ladder.errors import SeasonConfigError  # noqa: PLC0415

    text = importlib.resources.files("ladder").joinpath("default_season.toml").read_text()
    try:
        config = parse_season(text, "ladder/default_season.toml")
    except SeasonConfigError as error:  # a packaging mistake, not the user's
        raise fail(str(error)) from None
    node_bot = _node_demo_bot(config.concurrency)
    if node_bot is None:
        console.print(
            "(the Node.js sample bot sits this one out: it needs `node` and `npm ci` in "
            "sample_bots/node, which `make demo` runs)",
            highlight=False,
        )
    else:
        # A season of its own: a stored season's bots never change under its name.
        config = dataclasses.replace(config, name="demo-node", bots=(*config.bots, node_bot))
    play(config, data, None, None)


def _node_demo_bot(tables: int) -> CommandBot | None:
    """The Node.js sample bot, where node is installed and its packages are in place."""
    from ladder.config import CommandBot  # noqa: PLC0415

    node = shutil.which("node")
    bot_js = Path(sample_bots.__file__).resolve().parent / "node" / "bot.js"
    if node is None or not (bot_js.parent / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return None
    return CommandBot(name="node", command=(node, str(bot_js)), tables=tables)


def play(config: SeasonConfig, data: Path | None, referee: str | None, ca: Path | None) -> None:
    """Run ``config`` with a progress bar, then print the leaderboard and where to look next."""
    import asyncio  # noqa: PLC0415

    # StoreError: the embedded referee's, DataInUseError among them.
    from arena.errors import StoreError  # noqa: PLC0415
    from ladder.errors import LadderError  # noqa: PLC0415
    from ladder.leaderboard import season_leaderboard  # noqa: PLC0415
    from ladder.storage import LadderStore  # noqa: PLC0415

    data_dir = data or paths.data_dir()
    admin_token = None
    if referee is not None:
        admin_token = os.environ.get(paths.ADMIN_TOKEN_ENV)
        if not admin_token:
            raise fail(f"--referee needs the admin token in ${paths.ADMIN_TOKEN_ENV}", code=2)
    try:
        root_certificates = ca.read_bytes() if ca else None
    except OSError as error:
        raise fail(f"cannot read the CA file {ca}: {error.strerror}", code=2) from None
    where = "embedded referee" if referee is None else f"referee {referee}"
    console.print(
        f"season [bold]{config.name}[/bold]: {len(config.bots)} bots, {config.blocks} blocks "
        f"of {config.players} matches x {config.deals_per_match} deals, on the {where}",
        highlight=False,
        soft_wrap=True,
    )
    try:
        with LadderStore.open(ladder_db(data_dir)) as store:
            try:
                summary = asyncio.run(
                    _play(config, data_dir, store, referee, admin_token, root_certificates)
                )
            except KeyboardInterrupt:
                done = store.season(config.name).blocks_finished
                console.print(
                    f"interrupted: {done} of {config.blocks} blocks are recorded; run the "
                    "same command again to resume",
                    highlight=False,
                    soft_wrap=True,
                )
                raise typer.Exit(INTERRUPTED_EXIT) from None
            console.print(
                leaderboard_table(
                    season_leaderboard(store, config.name), season_title(store.season(config.name))
                )
            )
    except (LadderError, StoreError) as error:
        raise fail(str(error)) from None
    _print_summary(summary, data, referee)


async def _play(
    config: SeasonConfig,
    data_dir: Path,
    store: LadderStore,
    referee: str | None,
    admin_token: str | None,
    root_certificates: bytes | None,
) -> SeasonSummary:
    from ladder.runner import run_season  # noqa: PLC0415

    with _ProgressBar(config) as show:
        if referee is not None and admin_token is not None:
            return await run_season(
                config,
                referee,
                admin_token,
                store,
                progress=show,
                root_certificates=root_certificates,
            )
        from arena.embedded import EmbeddedReferee  # noqa: PLC0415 - grpc/arena load slowly

        # Its own folder: a `brandeln serve` on DATA keeps its token, sessions and matches.
        async with EmbeddedReferee(paths.embedded_dir(data_dir)) as embedded:
            return await run_season(
                config, embedded.address, embedded.admin_token, store, progress=show
            )


class _ProgressBar:
    """A rich progress bar fed by the runner's progress callback."""

    def __init__(self, config: SeasonConfig) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("blocks"),
            TextColumn("{task.fields[rate]}"),
            TextColumn("{task.fields[leader]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task(
            config.name, total=config.blocks, rate="", leader="", start=True
        )

    def __enter__(self) -> _ProgressBar:
        self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.progress.stop()

    def __call__(self, update: SeasonProgress) -> None:
        leader = (
            ""
            if update.leader is None or update.leader_rating is None
            else f"leader {update.leader} ({update.leader_rating:+.1f})"
        )
        self.progress.update(
            self.task,
            completed=update.blocks_done,
            total=update.blocks_total,
            rate=f"{update.deals_per_second:.0f} deals/s",
            leader=leader,
        )


def _print_summary(summary: SeasonSummary, data: Path | None, referee: str | None) -> None:
    console.print(
        f"{summary.blocks_played} blocks played now ({summary.blocks_done} of "
        f"{summary.blocks_total} in all), {summary.deals} deals in {summary.seconds:.1f} s",
        highlight=False,
        soft_wrap=True,
    )
    if summary.last_match_id:
        options = ""
        if referee is not None:
            options = f" --referee {referee}"
        elif data is not None:
            options = f" --data {data}"
        console.print(
            f"inspect a match: brandeln matches show {summary.last_match_id}{options}",
            highlight=False,
            soft_wrap=True,
        )
    data_option = f" --data {data}" if data is not None else ""
    console.print(
        f"the leaderboard again: brandeln ratings --season {summary.season}{data_option}",
        highlight=False,
        soft_wrap=True,
    )

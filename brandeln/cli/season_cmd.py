"""`brandeln season run FILE`, `brandeln season list` and `brandeln demo`: ladder seasons.

The CLI composes the layers: it reads the season file (ladder), starts an embedded referee
(arena) unless ``--referee`` names a running one, and hands both to the ladder's runner, which
reaches the referee only through its Admin service.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column

from brandeln.cli.cluster_options import (
    ClusterOption,
    ClusterSettings,
    SlotsOption,
    WorkerDataOption,
    cluster_settings,
)
from brandeln.cli.commitment_view import commitment_json, commitment_line
from brandeln.cli.db_option import DbOption, is_postgresql, ladder_database
from brandeln.cli.leaderboard_view import (
    decisions_table,
    leaderboard_document,
    leaderboard_table,
    season_line,
    season_title,
)
from brandeln.cli.options import CaOption, DataOption, SeasonRefereeOption, referee_credentials
from brandeln.cli.output import console, errors, fail, hint
from brandeln.cli.terminal_text import json_text, markup, plain, safe
from brandeln.cli.verify_cmd import season_verify
from brandeln.cli.web_cmd import web_address
from brandeln.engine.plurals import plural
from brandeln.sample_bots.node_bot import NodeBotUnavailableError, node_bot_command
from brandeln.services import data_folder

# The ladder (and through it grpc) is imported inside the commands: `brandeln --help` must not
# pay for it.
if TYPE_CHECKING:
    from brandeln.ladder.season.config import CommandBot, SeasonConfig
    from brandeln.ladder.season.run import RerunProgress
    from brandeln.ladder.season.runner import SeasonProgress, SeasonSummary
    from brandeln.ladder.store.database import LadderStore

season_app = typer.Typer(
    help="Run ladder seasons of duplicate blocks (rulesets: docs/RULES.md section 6).",
    no_args_is_help=True,
)

INTERRUPTED_EXIT = 130  # the shell's code for "stopped by Ctrl-C"

season_app.command("verify")(season_verify)


@season_app.command("run")
def run(
    file: Annotated[Path, typer.Argument(help="The season file (TOML).")],
    data: DataOption = None,
    db: DbOption = None,
    referee: SeasonRefereeOption = None,
    ca: CaOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the final leaderboard as JSON (as `ratings --json` does) and the "
            "run's summary; the progress goes to stderr.",
        ),
    ] = False,
    cluster: ClusterOption = None,
    slots: SlotsOption = None,
    worker_data: WorkerDataOption = None,
    rerun_top: Annotated[
        int | None,
        typer.Option(
            "--rerun-top",
            metavar="K",
            help="After the season, play extra blocks among its top K bots while their 95% "
            "intervals overlap (K at least a table's seats; overrides the file's [rerun]).",
            show_default=False,
        ),
    ] = None,
    rerun_max_blocks: Annotated[
        int | None,
        typer.Option(
            "--rerun-max-blocks",
            metavar="N",
            min=1,
            max=1_000_000,  # as a season file's rerun.max_blocks
            help="The rerun's cap [default: as many blocks as its bots played in the season].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Play a season (or the rest of an interrupted one) and print its leaderboard.

    Running the same file again resumes: finished blocks are kept, an unfinished block is
    played again from its start, nothing is counted twice. The final rerun too.
    """
    from brandeln.ladder.errors import SeasonConfigError  # noqa: PLC0415
    from brandeln.ladder.season.config import load_season  # noqa: PLC0415

    try:
        config = load_season(file)
    except SeasonConfigError as error:
        raise fail(str(error), code=2) from None
    config = _with_rerun(config, rerun_top, rerun_max_blocks)
    on_cluster = None
    if cluster is not None:
        on_cluster = cluster_settings(cluster, slots, worker_data, db, referee)
    play(config, data, referee, ca, as_json=as_json, db=db, cluster=on_cluster)


def _with_rerun(config: SeasonConfig, top: int | None, max_blocks: int | None) -> SeasonConfig:
    """The season file's [rerun] with the options over it; a rerun that cannot be played is
    refused in one line, before anything is opened."""
    from brandeln.ladder.season.config import RerunSettings, rerun_problem  # noqa: PLC0415

    if top is None and max_blocks is None:
        return config
    if top is None:
        if config.rerun is None:
            raise fail("--rerun-max-blocks caps a rerun: give --rerun-top K too", code=2)
        top = config.rerun.top
    problem = rerun_problem(top, config.players, len(config.bots))
    if problem is not None:
        raise fail(f"--rerun-top {problem}", code=2)
    if max_blocks is None and config.rerun is not None:
        max_blocks = config.rerun.max_blocks
    return dataclasses.replace(config, rerun=RerunSettings(top=top, max_blocks=max_blocks))


@season_app.command("list")
def list_seasons(
    data: DataOption = None,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """The seasons in the ladder database, oldest first."""
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    try:
        with LadderStore.open(ladder_database(db, data), create=False) as store:
            infos = store.seasons.seasons()
            # A ladder commits a seed per period (`ladder status`), not one for all.
            commitments, ladders = (
                store.commitments.season_commitments(),
                store.ladders.ladder_names(),
            )
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(
            json_text(
                [
                    dataclasses.asdict(info)
                    | {"commitment": commitment_json(commitments.get(info.name))}
                    for info in infos
                ]
            )
        )
        return
    if not infos:
        from brandeln.cli import hints  # noqa: PLC0415

        console.print(
            f"no seasons yet; run `{hints.command('season', 'run', 'FILE', data=data)}`",
            highlight=False,
            markup=False,
        )
    for info in infos:
        console.print(season_line(info), highlight=False, soft_wrap=False)  # markup, escaped
        if info.name not in ladders:
            line = commitment_line(commitments.get(info.name))
            console.print(f"  {line}", highlight=False, markup=False)


def demo(data: DataOption = None, db: DbOption = None) -> None:
    """A short season of the sample bots (about a minute), ending with the leaderboard."""
    from brandeln.ladder.errors import SeasonConfigError  # noqa: PLC0415
    from brandeln.ladder.season.config import parse_season  # noqa: PLC0415

    text = importlib.resources.files("brandeln.ladder").joinpath("default_season.toml").read_text()
    try:
        config = parse_season(text, "ladder/default_season.toml")
    except SeasonConfigError as error:  # a packaging mistake, not the user's
        raise fail(str(error)) from None
    try:
        node_bot = _node_demo_bot(config.concurrency)
    except NodeBotUnavailableError as error:
        console.print(f"(the Node.js sample bot sits this one out: {error})", highlight=False)
    else:
        # A season of its own: a stored season's bots never change under its name.
        config = dataclasses.replace(config, name="demo-node", bots=(*config.bots, node_bot))
    play(config, data, None, None, db=db)


def _node_demo_bot(tables: int) -> CommandBot:
    """The Node.js sample bot; NodeBotUnavailableError where it cannot run."""
    from brandeln.ladder.season.config import CommandBot  # noqa: PLC0415

    return CommandBot(name="node", command=node_bot_command(), tables=tables)


def play(
    config: SeasonConfig,
    data: Path | None,
    referee: str | None,
    ca: Path | None,
    *,
    as_json: bool = False,
    db: str | None = None,
    cluster: ClusterSettings | None = None,
) -> None:
    """Run ``config`` with a progress bar, then print the leaderboard and where to look next.

    ``as_json``: the leaderboard and the summary as one JSON document on stdout; everything
    else (the progress bar included) on stderr.
    """
    import asyncio  # noqa: PLC0415

    from brandeln.arena.errors import StoreError  # noqa: PLC0415
    from brandeln.cluster.errors import ClusterError  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.ratings.leaderboard import season_leaderboard  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    data_dir = data or data_folder.data_dir()
    ladder_where = ladder_database(db, data_dir)
    admin_token, root_certificates = referee_credentials(referee, ca)
    where = "embedded referee" if referee is None else f"referee {referee}"
    if cluster is not None:
        where = f"Ray cluster {cluster.address}"
    talk = errors if as_json else console
    _check_bots(config, talk)
    then = "" if config.rerun is None else f", then a rerun among the top {config.rerun.top}"
    talk.print(
        f"season [bold]{markup(config.name)}[/bold]: {plural(len(config.bots), 'bot')}, "
        f"{plural(config.blocks, 'block')} of {plural(config.players, 'match')} x "
        f"{plural(config.deals_per_match, 'deal')}{then}, on the "
        f"{markup(where)}",
        highlight=False,
        soft_wrap=False,
    )
    try:
        with LadderStore.open(ladder_where) as store:
            _announce_commitment(store, config, talk)
            try:
                summary = asyncio.run(
                    _play(
                        config,
                        data_dir,
                        store,
                        referee,
                        admin_token,
                        root_certificates,
                        talk,
                        db,
                        cluster,
                    )
                )
            except KeyboardInterrupt:
                done = store.seasons.season(config.name).blocks_finished
                recorded = (
                    f"{done} of {plural(config.blocks, 'block')} recorded"
                    if done <= config.blocks
                    else f"the season and {plural(done - config.blocks, 'rerun block')} recorded"
                )
                talk.print(
                    f"interrupted: {recorded}; run the same command again to resume",
                    highlight=False,
                    soft_wrap=True,
                )
                raise typer.Exit(INTERRUPTED_EXIT) from None
            info = store.seasons.season(config.name)
            rows = season_leaderboard(store, config.name)
    except (LadderError, StoreError, ClusterError) as error:
        # StoreError: the embedded referee's database is unusable (checked before any change)
        # or owned by a live referee (DataInUseError).
        raise fail(str(error)) from None
    if as_json:
        document = leaderboard_document(info, rows)
        document["run"] = dataclasses.asdict(summary)  # the rerun's summary with it
        typer.echo(json_text(document))
        if summary.rerun is not None:
            errors.print(summary.rerun.message, highlight=False, markup=False, soft_wrap=True)
        return
    console.print(leaderboard_table(rows, season_title(info)), soft_wrap=False)
    console.print(decisions_table(rows), soft_wrap=False)
    _print_summary(summary, data, referee, ca, db if is_postgresql(db) else None)


def _announce_commitment(store: LadderStore, config: SeasonConfig, talk: Console) -> None:
    """Create the season (or check the stored one) and print its seed's commitment before
    any block is played: published now, checked after the season (`season verify`)."""
    from brandeln.ladder.ratings.trueskill_model import RatingModel  # noqa: PLC0415

    store.seasons.ensure_season(config, RatingModel(config.rating).initial())
    commitment = store.commitments.season_commitment(config.name)
    if commitment is not None:
        # The digest on a line of its own: copied whole, and within 80 columns.
        talk.print(
            f"commitment ({commitment.note}):\n  {commitment.digest}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


def _check_bots(config: SeasonConfig, talk: Console) -> None:
    """Run `bot check` on every bot the season file marks ``check = true``; refuse to start
    the season, listing the failed checks, if one fails."""
    import asyncio  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from brandeln.ladder.season.config import CommandBot  # noqa: PLC0415
    from brandeln.services.bot_check import CheckOptions, CheckTarget, run_check  # noqa: PLC0415

    for bot in config.bots:
        if not isinstance(bot, CommandBot) or not bot.check:
            continue
        talk.print(
            f"checking bot [bold]{markup(bot.name)}[/bold] first (brandeln bot check, "
            f"ruleset {markup(config.ruleset)})",
            highlight=False,
        )
        work = Path(tempfile.mkdtemp(prefix="brandeln-check-"))
        options = CheckOptions(rulesets=(config.ruleset,), tables=min(bot.tables, 3))
        report = asyncio.run(run_check(work, CheckTarget(bot.command, None, work / "bot"), options))
        if report.passed:
            shutil.rmtree(work, ignore_errors=True)
            continue
        failed = "; ".join(f"{r.label}: {r.reason}" for r in report.failures())
        raise fail(
            f"season not started: bot {bot.name!r} failed `bot check` ({failed}); its "
            f"output and the check's logs: {work}"
        )


async def _play(
    config: SeasonConfig,
    data_dir: Path,
    store: LadderStore,
    referee: str | None,
    admin_token: str | None,
    root_certificates: bytes | None,
    out: Console,
    db: str | None = None,
    cluster: ClusterSettings | None = None,
) -> SeasonSummary:
    from brandeln.ladder.season.runner import run_season  # noqa: PLC0415

    # The bots' logs stay files in the data folder, whichever database holds the ladder.
    logs_dir = data_folder.season_bot_logs(data_dir, config.name)
    with _ProgressBar(config, out) as show:
        if cluster is not None and db is not None:
            from brandeln.cluster.driver import DEFAULT_WORKER_DATA, run_cluster_season  # noqa: PLC0415

            def ready(summary: str, status: Callable[[], str]) -> None:
                show.status = status
                out.print(summary, highlight=False, markup=False)

            return await run_cluster_season(
                config,
                store,
                address=cluster.address,
                database=db,
                slots=cluster.slots,
                worker_data=cluster.worker_data or DEFAULT_WORKER_DATA,
                progress=show,
                on_ready=ready,
            )
        if referee is not None and admin_token is not None:
            return await run_season(
                config,
                referee,
                admin_token,
                store,
                progress=show,
                root_certificates=root_certificates,
                logs_dir=logs_dir,
            )
        from brandeln.arena.embedded import EmbeddedReferee  # noqa: PLC0415 - grpc/arena load slowly

        # Its own folder: a `brandeln serve` on DATA keeps its token, sessions and matches. On
        # a PostgreSQL --db it shares the referee schema with any served referee (each keeps
        # to its own rows; its admin token lives in memory for this run only).
        database = db if is_postgresql(db) else None
        async with EmbeddedReferee(
            data_folder.embedded_dir(data_dir), database=database
        ) as embedded:
            return await run_season(
                config,
                embedded.address,
                embedded.admin_token,
                store,
                progress=show,
                logs_dir=logs_dir,
            )


class _ProgressBar:
    """A rich progress bar fed by the runner's progress callback."""

    def __init__(self, config: SeasonConfig, out: Console) -> None:
        # The texts fold rather than end in "…" at 80 columns (a long season or bot name).
        self.progress = Progress(
            TextColumn("{task.description}", style="bold", table_column=Column(overflow="fold")),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("blocks"),
            TextColumn("{task.fields[rate]}", table_column=Column(no_wrap=True)),
            TextColumn("{task.fields[leader]}", table_column=Column(overflow="fold")),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}", table_column=Column(overflow="fold")),
            console=out,
            transient=False,
        )
        # TextColumn renders the description and fields as markup: the names are escaped.
        self.task = self.progress.add_task(
            markup(config.name), total=config.blocks, rate="", leader="", status="", start=True
        )
        # A cluster season's executor says how many nodes and actors are busy.
        self.status: Callable[[], str] | None = None
        self.rerun_task: TaskID | None = None  # a second row once the final rerun begins

    def __enter__(self) -> _ProgressBar:
        self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.progress.stop()

    def __call__(self, update: SeasonProgress) -> None:
        leader = (
            ""
            if update.leader is None or update.leader_rating is None
            else f"leader {markup(update.leader)} ({update.leader_rating:+.1f})"
        )
        self.progress.update(
            self.task,
            completed=update.blocks_done,
            total=update.blocks_total,
            rate=f"{deal_rate(update.deals_per_second)} deals/s",
            leader=leader,
            status="" if self.status is None else markup(self.status()),
        )
        if update.rerun is not None:
            self._rerun(update.rerun)

    def _rerun(self, rerun: RerunProgress) -> None:
        """The final rerun's row: its blocks of the cap, and which top bots still overlap."""
        if self.rerun_task is None:
            self.rerun_task = self.progress.add_task(
                f"rerun, top {len(rerun.top)}", total=rerun.cap, rate="", leader="", status=""
            )
        overlap = ", ".join(f"{one}~{other}" for one, other in rerun.overlapping)
        self.progress.update(
            self.rerun_task,
            completed=rerun.blocks_done,
            total=rerun.cap,
            leader=markup(f"overlap {overlap}" if overlap else ""),
        )


def deal_rate(per_second: float) -> str:
    """Deals per second to two significant figures or more: a season of thinking bots plays
    a quarter of a deal a second, which a whole number shows as 0."""
    if per_second >= 10:
        return f"{per_second:.0f}"
    if per_second >= 1:
        return f"{per_second:.1f}"
    return f"{per_second:.2f}"


def _print_summary(
    summary: SeasonSummary,
    data: Path | None,
    referee: str | None,
    ca: Path | None,
    db: str | None = None,
) -> None:
    from brandeln.cli import hints  # noqa: PLC0415

    console.print(
        f"{plural(summary.blocks_played, 'block')} played now ({summary.blocks_done} of "
        f"{summary.blocks_total} in all), {plural(summary.deals, 'deal')} in "
        f"{summary.seconds:.1f} s",
        highlight=False,
        soft_wrap=False,
    )
    rerun = summary.rerun
    if rerun is not None:
        # Bot names are the season file's (NAME_PATTERN), printed as plain text all the same.
        console.print(rerun.message, highlight=False, soft_wrap=True, markup=False)
        if rerun.top:
            console.print(
                f"rerun: {plural(rerun.blocks_played, 'block')} played now ({rerun.blocks_done} "
                "in all, "
                f"cap {rerun.cap})",
                highlight=False,
                soft_wrap=False,
            )
    if not summary.referee_contacted:
        # Said out loud: a re-run that plays nothing must not pass for a check of the referee.
        where = "" if referee is None else f"; the referee at {safe(referee)} was not contacted"
        stopped = "" if rerun is None else " and the rerun had stopped"
        console.print(
            f"nothing to play: every block was already recorded{stopped}, the leaderboard "
            f"above is the stored one{where}",
            highlight=False,
            soft_wrap=False,
            markup=False,
        )
    if summary.last_match_id:
        hint(
            "inspect a match",
            hints.command(
                "matches", "show", summary.last_match_id, data=data, referee=referee, ca=ca, db=db
            ),
        )
    hint(
        "the leaderboard again",
        hints.command("ratings", "--season", summary.season, data=data, db=db),
    )
    # The web pages read the ladder database and the local referees' files (`brandeln web`).
    hint("watch the season in the browser", hints.command("web", data=data, db=db))
    console.print(
        plain(f"  then open {web_address()}seasons/{summary.season}"),
        highlight=False,
        soft_wrap=True,
    )

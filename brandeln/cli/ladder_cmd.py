"""`brandeln ladder serve`, `brandeln ladder status` and `brandeln challenge`: the always-on
ladder (``brandeln.ladder.living.ladder``) from the terminal.

``ladder serve`` runs until stopped (SIGINT/SIGTERM): on a referee of its own (embedded, on
``--host``/``--port``, with the data folder's referee database, as ``brandeln serve``) or
on a running one (``--referee``), it plays blocks among the connected bot versions; on a Ray
cluster (``--cluster``, :mod:`brandeln.cli.ladder_cluster`), among its command versions.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.cluster_options import (
    ClusterOption,
    ClusterSettings,
    SlotsOption,
    WorkerDataOption,
    cluster_settings,
)
from brandeln.cli.commitment_view import commitment_json, commitment_line
from brandeln.cli.db_option import DbOption, is_postgresql, ladder_database, open_ladder
from brandeln.cli.ladder_view import hint_versions, metrics_server, printer
from brandeln.cli.options import (
    DEFAULT_LADDER,
    CaOption,
    DataOption,
    JsonOption,
    LadderNameOption,
    referee_credentials,
)
from brandeln.cli.output import console, fail
from brandeln.cli.service_options import (
    LogJsonOption,
    LogLevel,
    MetricsAddress,
    MetricsAllowedHostOption,
    MetricsHostOption,
    MetricsPortOption,
    log_level_option,
    metrics_address,
)
from brandeln.cli.terminal_text import json_text, markup, plain
from brandeln.cli.wrapped_text import Hanging
from brandeln.engine.plurals import plural
from brandeln.ladder.living.periods import DEFAULT_PERIOD_BLOCKS
from brandeln.services import data_folder

if TYPE_CHECKING:
    import asyncio

    from brandeln.arena.referee import Referee
    from brandeln.ladder.living.config import LadderConfig
    from brandeln.ladder.store.database import LadderStore, VersionPresence

ladder_app = typer.Typer(
    help="An always-on ladder: serve it, see where it stands; `brandeln challenge` queues a "
    "block; `brandeln bots version add` publishes a bot version to it.",
    no_args_is_help=True,
)

LadderLogLevel = Annotated[
    LogLevel,
    log_level_option(
        "info: blocks planned and recorded, with their bots and matches; warning: blocks given "
        "back, challenges refused; error: the store or the referee away"
    ),
]


@ladder_app.command("serve")
def serve(
    name: LadderNameOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
    referee: Annotated[
        str | None,
        typer.Option(
            "--referee",
            help="HOST:PORT of a running referee (admin token in $BRANDELN_ADMIN_TOKEN); "
            "default: a referee of its own on --host/--port.",
        ),
    ] = None,
    ca: CaOption = None,
    host: Annotated[str, typer.Option(help="Its own referee's address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Its own referee's port (0: a free one).")] = 50051,
    ruleset: Annotated[str, typer.Option(help="The ladder's ruleset (kept with it).")] = "standard",
    deals: Annotated[int, typer.Option(min=1, help="Deals per match (kept with it).")] = 8,
    seed: Annotated[int, typer.Option(min=0, help="The deals' seed (kept with it).")] = 0,
    move_ms: Annotated[int, typer.Option(min=0, help="Move time (0: the referee's).")] = 0,
    blocks_at_once: Annotated[int, typer.Option(min=1, help="Blocks played at once.")] = 1,
    matches_at_once: Annotated[
        int,
        typer.Option(
            min=1, help="A block's matches played at once (each bot needs as many seat sessions)."
        ),
    ] = 1,
    interval: Annotated[
        float, typer.Option(min=0.05, help="Seconds to wait when no block can be planned.")
    ] = 5.0,
    challenges_per_hour: Annotated[
        int, typer.Option(min=1, help="Challenges a bot may be named in per hour.")
    ] = 6,
    period_blocks: Annotated[
        int,
        typer.Option(
            min=1,
            help="Blocks per seed period: each period's deals follow from a seed of its own, "
            "committed before its first block and revealed after its last.",
        ),
    ] = DEFAULT_PERIOD_BLOCKS,
    cluster: ClusterOption = None,
    slots: SlotsOption = None,
    worker_data: WorkerDataOption = None,
    metrics_port: MetricsPortOption = None,
    metrics_host: MetricsHostOption = None,
    metrics_allowed_host: MetricsAllowedHostOption = None,
    log_level: LadderLogLevel = LogLevel.WARNING,
    log_json: LogJsonOption = False,
) -> None:
    """Run an always-on ladder until stopped: blocks among the connected bot versions, chosen
    by matchmaking, challenges first; a stopped ladder resumes where it stopped."""
    from brandeln.ladder.living.config import LadderConfig, with_players  # noqa: PLC0415
    from brandeln.ladder.season.settings import TimeControl  # noqa: PLC0415

    on_cluster = None
    if cluster is not None:
        on_cluster = cluster_settings(cluster, slots, worker_data, db, referee, what="ladder")
    admin_token, roots = referee_credentials(referee, ca)
    try:
        config = with_players(
            LadderConfig(
                name=name,
                ruleset=ruleset,
                deals_per_match=deals,
                seed=seed,
                time_control=TimeControl(move_ms=move_ms),
                blocks_at_once=blocks_at_once,
                matches_at_once=matches_at_once,
                interval_s=interval,
                challenges_per_hour=challenges_per_hour,
                period_blocks=period_blocks,
            )
        )
    except Exception as error:  # an unknown ruleset: the engine's one-line reason
        raise fail(str(error), code=2) from None
    where = _Where(data, db, referee, admin_token, roots, host, port, on_cluster)
    metrics = metrics_address(metrics_port, metrics_host, host, metrics_allowed_host)
    import asyncio  # noqa: PLC0415

    from brandeln.cli.service_output import service_output  # noqa: PLC0415

    with service_output(log_level, json_lines=log_json):
        try:
            asyncio.run(_serve(config, where, metrics))
        except KeyboardInterrupt:
            raise typer.Exit(130) from None


@dataclass(frozen=True)
class _Where:
    """Where a ladder runs: its store, and its referee (its own, or a running one)."""

    data: Path | None
    db: str | None
    referee: str | None  # a running referee; None: one of its own on host:port
    admin_token: str | None
    roots: bytes | None
    host: str
    port: int
    cluster: ClusterSettings | None = None  # on a Ray cluster: no referee here


async def _serve(config: LadderConfig, where: _Where, metrics: MetricsAddress | None) -> None:
    import asyncio  # noqa: PLC0415

    from brandeln.arena.errors import ArenaError  # noqa: PLC0415
    from brandeln.cli.stop_signals import stop_on_signals  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415

    stop = asyncio.Event()
    with stop_on_signals(stop):
        try:
            store = LadderStore.open(ladder_database(where.db, where.data))
        except LadderError as error:
            raise fail(str(error)) from None
        try:
            if where.cluster is not None and where.db is not None:
                from brandeln.cli.ladder_cluster import serve_on_cluster  # noqa: PLC0415

                await serve_on_cluster(config, store, where.cluster, where.db, metrics, stop)
                return
            async with contextlib.AsyncExitStack() as stack:
                address, token, referee = await _referee(stack, where)
                await _run(config, store, address, token, referee, where, metrics, stop)
        except (LadderError, ArenaError) as error:
            raise fail(str(error)) from None
        finally:
            store.close()


async def _referee(
    stack: contextlib.AsyncExitStack, where: _Where
) -> tuple[str, str, Referee | None]:
    """The referee's address and admin token, and the referee itself when it is the ladder's
    own (started here, stopped when ``stack`` closes)."""
    from brandeln.arena.embedded import EmbeddedReferee  # noqa: PLC0415

    if where.referee is not None:
        assert where.admin_token is not None
        return where.referee, where.admin_token, None
    token = os.environ.get(data_folder.ADMIN_TOKEN_ENV) or secrets.token_urlsafe(24)
    # The data folder's own referee (as `brandeln serve`'s): the versions that `bots version
    # add` registers there connect to it.
    embedded = await stack.enter_async_context(
        EmbeddedReferee(
            where.data or data_folder.data_dir(),
            where.host,
            where.port,
            token,
            database=where.db if is_postgresql(where.db) else None,
        )
    )
    console.print(f"referee listening on {markup(embedded.address)} (the ladder's own)")
    if not os.environ.get(data_folder.ADMIN_TOKEN_ENV):
        console.print(f"admin token for this run: {markup(token)}")
    return embedded.address, token, embedded.referee


async def _run(
    config: LadderConfig,
    store: LadderStore,
    address: str,
    token: str,
    referee: Referee | None,
    where: _Where,
    metrics: MetricsAddress | None,
    stop: asyncio.Event,
) -> None:
    import asyncio  # noqa: PLC0415

    from brandeln.ladder.bots.version_launcher import VersionLauncher, serve_launching  # noqa: PLC0415
    from brandeln.ladder.living.ladder import LivingLadder  # noqa: PLC0415
    from brandeln.ladder.referee.admin_client import AdminClient  # noqa: PLC0415

    async with AdminClient(address, token, root_certificates=where.roots) as admin:
        served = replace(config, server=address)  # kept for `bots version add` to print
        ladder = LivingLadder(served, store, admin, listener=printer(config))
        server = None
        if metrics is not None:
            server = metrics_server(ladder, referee, metrics)
            console.print(f"metrics on {markup(server.url)} (Prometheus, plain HTTP)")
        try:
            await ladder.register()
            console.print(
                f"ladder {markup(config.name)} ({markup(config.ruleset)}, "
                f"{plural(config.deals_per_match, 'deal')} a match) is serving; Ctrl-C stops it"
            )
            hint_versions(config.name, address, where.referee, where.data, where.db)
            # The command versions are launched beside it, at its referee, and stopped with it.
            logs = data_folder.season_bot_logs(where.data, config.name)
            await serve_launching(
                ladder, VersionLauncher(store, config.name, admin, address, logs), stop
            )
            console.print(
                f"ladder {markup(config.name)} stopped after "
                f"{plural(ladder.blocks_recorded, 'block')} this run"
            )
        finally:
            if server is not None:
                await asyncio.to_thread(server.stop)


@ladder_app.command("status")
def status(
    name: LadderNameOption = DEFAULT_LADDER,
    data: DataOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The ladder's versions with their ratings, its queue and its newest blocks."""
    from brandeln.cli.versions_cmd import version_json  # noqa: PLC0415
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415

    try:
        with open_ladder(db, data, name, option="--name") as store:
            versions = store.ladders.versions(name)
            seen = store.presence.presence(name)
            queue = store.challenges.challenges(name)
            recent = store.planned.recent_blocks(name, limit=10)
            periods = store.commitments.seed_periods(name, limit=3)
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(
            json_text(
                {
                    "ladder": name,
                    "versions": [
                        version_json(v)
                        | {
                            "presence": _presence(seen, v.name),
                            "last_error": seen[v.name].last_error if v.name in seen else "",
                        }
                        for v in versions
                    ],
                    "queue": [
                        {"challenge": c.challenge_id, "bots": list(c.bots), "state": c.state.value}
                        for c in queue
                    ],
                    "recent_blocks": [{"block": b.index, "bots": list(b.bots)} for b in recent],
                    "seed_periods": [
                        {
                            "period": p.period,
                            "first_block": p.first_block,
                            "blocks": p.blocks,
                            "recorded": p.recorded,
                            "commitment": commitment_json(p.commitment),
                        }
                        for p in periods
                    ],
                }
            )
        )
        return
    from brandeln.cli.layout import compact_table, fixed, folding  # noqa: PLC0415

    table = compact_table(title=f"ladder {markup(name)}: versions")
    folding(table, "version")
    for column in ("status", "seen", "μ-3σ", "μ", "σ", "blocks"):
        fixed(table, column, right=column not in ("status", "seen"))
    ordered = sorted(versions, key=lambda v: (-v.rating.conservative, v.name))
    for v in ordered:
        table.add_row(
            plain(v.name),
            v.status.value,
            _presence(seen, v.name) if v.active else "",
            f"{v.rating.conservative:.2f}",
            f"{v.rating.mu:.2f}",
            f"{v.rating.sigma:.2f}",
            str(v.blocks),
        )
    console.print(table, soft_wrap=False)
    troubled = [seen[v.name] for v in ordered if v.name in seen and seen[v.name].last_error]
    if troubled:
        console.print("last errors:")
        for row in troubled:
            console.print(plain(f"  {row.bot}: {row.last_error}"))
    waiting = [c for c in queue if c.state.value in ("queued", "planned")]
    console.print(f"queue: {plural(len(waiting), 'challenge')} waiting")
    for c in waiting:
        console.print(plain(f"  #{c.challenge_id} {c.state.value}: {', '.join(c.bots)}"))
    if recent:
        console.print("newest blocks:")
        for block in recent:
            console.print(plain(f"  block {block.index}: {', '.join(block.bots)}"))
    if periods:
        console.print("seed periods, newest first (`brandeln season verify` checks them):")
        for p in periods:
            line = commitment_line(p.commitment)
            console.print(
                Hanging(
                    f"  period {p.period}, blocks {p.first_block}-{p.last_block} ({p.recorded} "
                    f"recorded): {line}"
                )
            )


def _presence(seen: Mapping[str, VersionPresence], version: str) -> str:
    """A version's presence as last seen, or "unseen" (the ladder never looked at it)."""
    return seen[version].presence.value if version in seen else "unseen"

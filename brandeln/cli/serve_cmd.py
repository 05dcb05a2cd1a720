"""`brandeln serve`: run the referee until SIGINT/SIGTERM."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.db_option import DB_ENV
from brandeln.cli.output import fail
from brandeln.cli.output import notes as console
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
from brandeln.cli.terminal_text import markup
from brandeln.engine.plurals import plural
from brandeln.services import data_folder

if TYPE_CHECKING:
    import asyncio

    from brandeln.arena.referee import Referee, RefereeConfig
    from brandeln.services.metrics.endpoint import MetricsServer

# How long `serve` lets the servers' calls end once its port is closed, before it cancels them.
STOP_GRACE_S = 2.0


LogLevelOption = Annotated[
    LogLevel,
    log_level_option(
        "info: sessions, matches, penalties; warning: store errors, connections closed by the guard"
    ),
]


def serve(
    host: Annotated[
        str, typer.Option(help="Address to listen on.", envvar="BRANDELN_HOST", show_envvar=True)
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            help="Port to listen on (0: a free one).", envvar="BRANDELN_PORT", show_envvar=True
        ),
    ] = 50051,
    db: Annotated[
        str | None,
        typer.Option(
            envvar=DB_ENV,
            show_envvar=True,
            help="Referee database: an SQLite file, or postgresql://user:pass@host:port/db "
            "(several referees may share it; the match logs are kept in it) "
            f"[default: DATA/{data_folder.REFEREE_DB}].",
        ),
    ] = None,
    logs: Annotated[
        Path | None,
        typer.Option(help="Match log folder of an SQLite database [default: DATA/logs]."),
    ] = None,
    tls_cert: Annotated[Path | None, typer.Option(help="TLS certificate chain (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="TLS private key (PEM).")] = None,
    drain_seconds: Annotated[
        float,
        typer.Option(
            min=0.0,
            help="On SIGINT/SIGTERM, how long health reports NOT_SERVING before the port "
            "closes (a second signal stops at once).",
        ),
    ] = 1.0,
    metrics_port: MetricsPortOption = None,
    metrics_host: MetricsHostOption = None,
    metrics_allowed_host: MetricsAllowedHostOption = None,
    log_level: LogLevelOption = LogLevel.WARNING,
    log_json: LogJsonOption = False,
) -> None:
    """Run the referee: bots connect to it, operators and seasons drive it through Admin.

    The admin token comes from $BRANDELN_ADMIN_TOKEN (at least {min_token} characters), or is
    generated on first start and printed once (only its hash is stored); `brandeln admin token
    --reset` makes a new one. One referee per database: a second one on it is refused.
    """
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("--tls-cert and --tls-key go together")
    admin_token = _admin_token_from_env()
    # Imported here so `brandeln --help` starts fast (grpc and asyncio are slow to import).
    import asyncio  # noqa: PLC0415

    from brandeln.arena.errors import StoreError  # noqa: PLC0415
    from brandeln.arena.referee import RefereeConfig  # noqa: PLC0415

    tls = None
    if tls_cert is not None and tls_key is not None:
        try:
            tls = (tls_cert.read_bytes(), tls_key.read_bytes())
        except OSError as error:
            raise typer.BadParameter(f"cannot read TLS files: {error}") from None
    from brandeln.datastore.errors import DatabaseError  # noqa: PLC0415
    from brandeln.datastore.url import Backend, parse_database_url  # noqa: PLC0415

    db_path, database = data_folder.referee_db(), None
    if db is not None:
        try:
            url = parse_database_url(db)
        except DatabaseError as error:
            raise fail(str(error), code=2) from None
        if url.backend is Backend.POSTGRESQL:
            database = db  # shared: no lock file, the logs in the database
        elif url.path is not None:
            db_path = url.path
    config = RefereeConfig(
        db_path=db_path,
        logs_dir=logs or data_folder.logs_dir(),
        admin_token=admin_token,
        database=database,
    )
    metrics = metrics_address(metrics_port, metrics_host, host, metrics_allowed_host)
    from brandeln.cli.service_output import service_output  # noqa: PLC0415

    with service_output(log_level, json_lines=log_json):
        try:
            asyncio.run(_serve(f"{host}:{port}", config, tls, drain_seconds, metrics))
        except StoreError as error:
            raise fail(str(error)) from None
        except OSError as error:
            raise fail(f"cannot listen on {host}:{port}: {error}") from None


def _limits_help() -> str:
    """The caps the referee puts on every peer and bot, as paragraphs of ``serve --help``.

    Generated from brandeln.arena.limits (the dataclasses' defaults and the flood constants), so the
    help cannot drift from what the referee enforces. brandeln.arena.limits imports only
    dataclasses: reading it costs `brandeln --help` nothing measurable.
    """
    import dataclasses  # noqa: PLC0415

    from brandeln.arena import limits  # noqa: PLC0415

    def listing(values: list[tuple[str, object]]) -> str:
        return ", ".join(f"{name}={value}" for name, value in values)

    def defaults(cls: type[limits.ConnectionLimits] | type[limits.ProtocolLimits]) -> str:
        return listing([(field.name, field.default) for field in dataclasses.fields(cls)])

    flood = [
        (name.lower(), getattr(limits, name))
        for name in limits.__all__
        if name.isupper() and name not in NOT_FLOOD_LIMITS
    ]
    return (
        f"Per connection (before any token): {defaults(limits.ConnectionLimits)}.\n\n"
        f"Per bot string and session history: {defaults(limits.ProtocolLimits)}.\n\n"
        f"Floods: {listing(flood)}.\n\n"
        "(arena/limits.py; README: Security, Connections and limits.)"
    )


# Constants of brandeln.arena.limits that are no cap on a peer (or are said in the text above).
NOT_FLOOD_LIMITS = frozenset({"RESERVED_FILES", "MIN_ADMIN_TOKEN_CHARS"})


def _serve_help() -> str:
    from brandeln.arena.limits import MIN_ADMIN_TOKEN_CHARS  # noqa: PLC0415

    assert serve.__doc__ is not None
    intro = serve.__doc__.replace("{min_token}", str(MIN_ADMIN_TOKEN_CHARS))
    # Indented as the docstring is, so that its common indentation is removed as one.
    limits_text = _limits_help().replace("\n\n", "\n\n    ")
    return f"{intro.rstrip()}\n\n    {limits_text}\n    "


serve.__doc__ = _serve_help()


def _admin_token_from_env() -> str | None:
    """The operator's admin token, if set; a blank or short one is refused (exit code 2): the
    Admin service answers anyone who can reach the port, so its token must not be guessable."""
    from brandeln.arena.limits import MIN_ADMIN_TOKEN_CHARS  # noqa: PLC0415

    token = os.environ.get(data_folder.ADMIN_TOKEN_ENV)
    if token is None:
        return None
    problem = ""
    if not token.strip():
        problem = "is blank"
    elif len(token) < MIN_ADMIN_TOKEN_CHARS:
        problem = f"has {plural(len(token), 'character')}"
    if problem:
        console.print(
            f"[red]error:[/red] ${data_folder.ADMIN_TOKEN_ENV} {problem}; an admin token needs at "
            f"least {MIN_ADMIN_TOKEN_CHARS} characters (unset it to have one generated)"
        )
        raise typer.Exit(2)
    return token


async def _serve(
    address: str,
    config: RefereeConfig,
    tls: tuple[bytes, bytes] | None,
    drain_seconds: float,
    metrics: MetricsAddress | None = None,
) -> None:
    import asyncio  # noqa: PLC0415

    from brandeln.cli.stop_signals import stop_on_signals  # noqa: PLC0415

    # Handlers first: a signal that arrives while we start still stops us cleanly.
    stop = asyncio.Event()
    with stop_on_signals(stop):
        await _serve_until_stopped(stop, address, config, tls, drain_seconds, metrics)


async def _serve_until_stopped(
    stop: asyncio.Event,
    address: str,
    config: RefereeConfig,
    tls: tuple[bytes, bytes] | None,
    drain_seconds: float,
    metrics: MetricsAddress | None = None,
) -> None:
    import asyncio  # noqa: PLC0415

    from brandeln.arena.datalock import RefereeLock  # noqa: PLC0415
    from brandeln.arena.referee import Referee  # noqa: PLC0415
    from brandeln.arena.server import create_server, raise_open_file_limit, stop_server  # noqa: PLC0415

    files = raise_open_file_limit()
    # Before an SQLite file is opened: its start-up recovery would harm a referee already on
    # it. Referees sharing a PostgreSQL database need none (each recovers only its own rows).
    lock = RefereeLock(config.db_path, "brandeln serve") if config.database is None else None
    if lock is not None:
        lock.acquire()
    try:
        referee = Referee(config)
    except BaseException:
        if lock is not None:
            lock.release_after_failure()
        raise
    if referee.recovered_aborted:
        console.print(
            f"recorded as aborted: {plural(referee.recovered_aborted, 'match')} left running by "
            "an earlier referee"
        )
    server, port = await create_server(address, referee, tls)
    metrics_server = None
    if metrics is not None:
        try:
            metrics_server = _start_metrics(referee, metrics)
        except OSError as error:
            # Refused before anything is announced: the referee never served.
            await stop_server(server, None)
            referee.close()
            if lock is not None:
                lock.release()
            raise fail(f"cannot serve metrics on {metrics.host}:{metrics.port}: {error}") from None
    host = address.rsplit(":", 1)[0]
    if lock is not None:
        lock.announce(f"{host}:{port}")
    console.print(
        f"referee listening on {markup(f'{host}:{port}')} ({'TLS' if tls else 'insecure'})"
    )
    if metrics_server is not None:
        console.print(f"metrics on {markup(metrics_server.url)} (Prometheus, plain HTTP)")
    if config.database is None:
        where = f"match logs in {markup(str(config.logs_dir))}"
    else:
        where = "match logs in it"
    console.print(f"database {markup(referee.store.where)}, {where}")
    if files.after > files.before:
        opened = f"open-file limit raised from {files.before} to {files.after} (the hard limit)"
    else:
        opened = f"open-file limit {files.after} (hard limit {_limit_text(files.hard)})"
    limits = config.connections
    console.print(
        f"{opened}; at most {limits.connection_cap(files.after)} connections, each closed "
        f"if it has not completed its handshake in {limits.handshake_timeout_ms / 1000:g} s "
        f"or has no call for {limits.max_connection_idle_ms / 1000:g} s"
    )
    _announce_admin_token(referee.generated_admin_token, config)
    await stop.wait()
    stop.clear()
    console.print("stopping: running matches are recorded as aborted")
    await referee.drain()
    # Health says NOT_SERVING for the drain, so probes and load balancers send no more work.
    try:
        async with asyncio.timeout(drain_seconds):
            await stop.wait()  # a second signal: stop now
    except TimeoutError:
        pass
    await stop_server(server, STOP_GRACE_S)
    if metrics_server is not None:
        # Before the referee closes: a scrape reads it (and the stop waits out a poll).
        await asyncio.to_thread(metrics_server.stop)
    referee.close()
    if lock is not None:
        lock.release()


def _start_metrics(referee: Referee, metrics: MetricsAddress) -> MetricsServer:
    """The metrics endpoint (prometheus_client is imported only when it is asked for)."""
    from brandeln.services.metrics.endpoint import MetricsServer  # noqa: PLC0415
    from brandeln.services.metrics.referee import RefereeCollector  # noqa: PLC0415

    return MetricsServer(
        [RefereeCollector(referee)], metrics.host, metrics.port, metrics.trusted_hosts
    )


def _announce_admin_token(generated: str | None, config: RefereeConfig) -> None:
    """Always tell the operator how to get an admin token: the token, or where it comes from."""
    from brandeln.cli.hints import reset_command  # noqa: PLC0415

    if generated:
        console.print(
            f"admin token (shown once; export it as BRANDELN_ADMIN_TOKEN): [bold]{generated}[/bold]"
        )
    elif config.admin_token is not None:
        console.print(f"admin token: the one in ${data_folder.ADMIN_TOKEN_ENV}")
    elif config.database is not None:
        console.print(
            "admin token: set on an earlier start (only its hash is stored, so it is not shown "
            f"again); start with ${data_folder.ADMIN_TOKEN_ENV} set to replace it",
            markup=False,
        )
    else:
        console.print(
            "admin token: set on an earlier start (only its hash is stored, so it is not shown "
            f"again); lost it? `{reset_command(config.db_path)}` prints a new one, which this "
            "referee accepts at once",
            markup=False,
        )


def _limit_text(limit: int) -> str:
    import resource  # noqa: PLC0415

    return "unlimited" if limit == resource.RLIM_INFINITY else str(limit)

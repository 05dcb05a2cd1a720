"""`brandeln bot run NAME` and `brandeln bot bridge -- COMMAND`: connect bots to a referee."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated

import typer

from brandeln.cli.bot_spec import OPENSPIEL_PREFIX
from brandeln.cli.output import fail

bot_app = typer.Typer(
    help="Connect a sample bot, or any program through the stdio bridge, to a referee.",
    no_args_is_help=True,
)

Server = Annotated[
    str | None,
    typer.Option(help="The referee's HOST:PORT.", envvar="BRANDELN_SERVER", show_envvar=True),
]
Token = Annotated[
    str | None,
    typer.Option(help="The bot's token.", envvar="BRANDELN_TOKEN", show_envvar=True),
]
Tables = Annotated[
    int | None,
    typer.Option(help="Tables to play at once (default 1).", envvar="BRANDELN_TABLES"),
]
Ca = Annotated[
    str | None,
    typer.Option(help="CA certificate (PEM) for a TLS referee.", envvar="BRANDELN_CA"),
]
Matches = Annotated[
    int | None, typer.Option(help="Stop after this many matches per table [default: never].")
]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")]
ConnectTimeout = Annotated[
    float | None,
    typer.Option(
        "--connect-timeout",
        metavar="SECONDS",
        help="How long to keep trying to reach the referee [default: 120].",
        envvar="BRANDELN_CONNECT_TIMEOUT",
        show_envvar=True,
    ),
]


def _quiet_grpc() -> None:
    """gRPC reads its log level when it is imported: errors only, unless the user chose."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")


@bot_app.command()
def run(
    name: Annotated[
        str,
        typer.Argument(
            help="random | heuristic | montecarlo | expert, or OpenSpiel's searches (the "
            "research extra): openspiel:ismcts or openspiel:mcts, options after a colon: "
            "openspiel:ismcts:simulations=200,uct_c=2,rollouts=1,seed=7 (simulations: at most "
            "this many per decision, fewer when move_ms is short; default 100)"
        ),
    ],
    server: Server = None,
    token: Token = None,
    tables: Tables = None,
    ca: Ca = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the bot's random choices.")] = None,
    level: Annotated[
        int | None, typer.Option(help="expert: strength 1 (weakest) to 5.", min=1, max=5)
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            help="montecarlo: at most this many samples per option (with --seed: the same "
            "choices at any speed; few samples: quick, weak decisions).",
            min=1,
            envvar="BRANDELN_SAMPLES",
            show_envvar=True,
        ),
    ] = None,
    matches: Matches = None,
    bot_name: Annotated[
        str | None, typer.Option(help="Display name in Hello.", envvar="BRANDELN_BOT_NAME")
    ] = None,
    connect_timeout: ConnectTimeout = None,
    verbose: Verbose = False,
) -> None:
    """Play with a sample bot until stopped (Ctrl-C); the session waits in the lobby."""
    _quiet_grpc()
    from brandeln.sample_bots.launcher import run_sample_bot  # noqa: PLC0415  (grpc is slow)
    from brandeln.sdk.launch import (  # noqa: PLC0415
        configure_logging,
        resolve_options,
        resolve_tables,
    )

    configure_logging(verbose)
    if name.startswith(OPENSPIEL_PREFIX):
        _run_openspiel(name, server, token, ca, matches, connect_timeout, tables, bot_name)
        return
    _guard(
        lambda: run_sample_bot(
            name,
            resolve_options(server, token, ca, matches, connect_timeout),
            resolve_tables(tables),
            seed,
            bot_name,
            level,
            samples,
        )
    )


def _run_openspiel(
    name: str,
    server: str | None,
    token: str | None,
    ca: str | None,
    matches: int | None,
    connect_timeout: float | None,
    tables: int | None,
    bot_name: str | None,
) -> None:
    try:
        from brandeln.openspiel.search_bot import run_search_bot  # noqa: PLC0415
    except ImportError as error:
        raise fail(f"{name} needs OpenSpiel: pip install -e '.[research]' ({error})") from None
    from brandeln.sdk.launch import resolve_options, resolve_tables  # noqa: PLC0415

    _guard(
        lambda: run_search_bot(
            name,
            resolve_options(server, token, ca, matches, connect_timeout),
            resolve_tables(tables),
            bot_name,
        )
    )


@bot_app.command(context_settings={"allow_interspersed_args": False})
def bridge(
    command: Annotated[list[str], typer.Argument(help="The bot program and its arguments.")],
    server: Server = None,
    token: Token = None,
    name: Annotated[
        str | None, typer.Option(help="Display name in Hello.", envvar="BRANDELN_BOT_NAME")
    ] = None,
    tables: Tables = None,
    ca: Ca = None,
    snapshot_only: Annotated[
        bool, typer.Option(help="Forward no events but deal_ended to the child.")
    ] = False,
    max_restarts: Annotated[int, typer.Option(help="Child restarts allowed per match.")] = 3,
    matches: Matches = None,
    connect_timeout: ConnectTimeout = None,
    verbose: Verbose = False,
) -> None:
    """Run COMMAND as a bot speaking JSON Lines on stdin/stdout (write it after --).

    One request object per line in, one answer per line out; see README.md.
    """
    _quiet_grpc()
    from brandeln.sdk.bridge.run import run_bridge  # noqa: PLC0415
    from brandeln.sdk.launch import (  # noqa: PLC0415
        configure_logging,
        resolve_options,
        resolve_tables,
    )

    configure_logging(verbose)
    _guard(
        lambda: run_bridge(
            command,
            resolve_options(server, token, ca, matches, connect_timeout),
            resolve_tables(tables),
            name,
            snapshot_only,
            max_restarts,
        )
    )


def _guard(action: Callable[[], object]) -> None:
    """Run ``action``; print a BotKitError (bad token, unreachable referee, ...) and exit 2."""
    from brandeln.sdk import BotKitError  # noqa: PLC0415

    try:
        action()
    except (BotKitError, ValueError) as error:
        # The message may quote the referee's answer or a child's output: escaped, on one
        # line (no wrapping at the width).
        raise fail(str(error), code=2) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _mount_check() -> None:
    # Its own module (the check is large); typer reads the options from the function.
    from brandeln.cli.check_cmd import check  # noqa: PLC0415

    bot_app.command("check", context_settings={"allow_interspersed_args": False})(check)


_mount_check()

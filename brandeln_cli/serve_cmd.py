"""`brandeln serve`: run the referee until SIGINT/SIGTERM."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from brandeln_cli import paths

if TYPE_CHECKING:
    from arena.referee import RefereeConfig

# soft_wrap: a token must stay on one line to be copied (rich would wrap it at the width).
console = Console(stderr=True, soft_wrap=True, highlight=False)


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: a free one).")] = 50051,
    db: Annotated[
        Path | None, typer.Option(help="Referee database [default: DATA/referee.db].")
    ] = None,
    logs: Annotated[
        Path | None, typer.Option(help="Match log folder [default: DATA/logs].")
    ] = None,
    tls_cert: Annotated[Path | None, typer.Option(help="TLS certificate chain (PEM).")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="TLS private key (PEM).")] = None,
) -> None:
    """Run the referee: bots connect to it, operators and seasons drive it through Admin.

    The admin token comes from $BRANDELN_ADMIN_TOKEN, or is generated on first start and
    printed once (only its hash is stored); `brandeln admin token --reset` makes a new one.
    One referee per database: a second one on it is refused.
    """
    # Imported here so `brandeln --help` starts fast (grpc and asyncio are slow to import).
    import asyncio  # noqa: PLC0415

    from arena.errors import StoreError  # noqa: PLC0415
    from arena.referee import RefereeConfig  # noqa: PLC0415

    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("--tls-cert and --tls-key go together")
    tls = None
    if tls_cert is not None and tls_key is not None:
        try:
            tls = (tls_cert.read_bytes(), tls_key.read_bytes())
        except OSError as error:
            raise typer.BadParameter(f"cannot read TLS files: {error}") from None
    config = RefereeConfig(
        db_path=db or paths.referee_db(),
        logs_dir=logs or paths.logs_dir(),
        admin_token=os.environ.get(paths.ADMIN_TOKEN_ENV) or None,
    )
    try:
        asyncio.run(_serve(f"{host}:{port}", config, tls))
    except StoreError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from None
    except OSError as error:
        console.print(f"[red]error:[/red] cannot listen on {host}:{port}: {error}")
        raise typer.Exit(1) from None


async def _serve(address: str, config: RefereeConfig, tls: tuple[bytes, bytes] | None) -> None:
    import asyncio  # noqa: PLC0415

    from arena.datalock import RefereeLock  # noqa: PLC0415
    from arena.referee import Referee  # noqa: PLC0415
    from arena.server import create_server  # noqa: PLC0415

    # Handlers first: a signal that arrives while we start still stops us cleanly.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    # Before the database is opened: its start-up recovery would harm a referee already on it.
    lock = RefereeLock(config.db_path, "brandeln serve")
    lock.acquire()
    referee = Referee(config)
    if referee.recovered_aborted:
        console.print(
            f"{referee.recovered_aborted} match(es) left running by an earlier referee are "
            "recorded as aborted"
        )
    server, port = await create_server(address, referee, tls)
    host = address.rsplit(":", 1)[0]
    lock.announce(f"{host}:{port}")
    console.print(f"referee listening on {host}:{port} ({'TLS' if tls else 'insecure'})")
    console.print(f"database {config.db_path}, match logs in {config.logs_dir}")
    _announce_admin_token(referee.generated_admin_token, config)
    await stop.wait()
    console.print("stopping: running matches are recorded as aborted")
    await referee.abort_all()
    await server.stop(2.0)
    referee.close()
    lock.release()


def _announce_admin_token(generated: str | None, config: RefereeConfig) -> None:
    """Always tell the operator how to get an admin token: the token, or where it comes from."""
    from brandeln_cli.admin_cmd import reset_command  # noqa: PLC0415

    if generated:
        console.print(
            f"admin token (shown once; export it as BRANDELN_ADMIN_TOKEN): [bold]{generated}[/bold]"
        )
    elif config.admin_token is not None:
        console.print(f"admin token: the one in ${paths.ADMIN_TOKEN_ENV}")
    else:
        console.print(
            "admin token: set on an earlier start (only its hash is stored, so it is not shown "
            f"again); lost it? `{reset_command(config.db_path)}` prints a new one, which this "
            "referee accepts at once",
            markup=False,
        )

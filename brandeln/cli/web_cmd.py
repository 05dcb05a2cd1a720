"""`brandeln web`: the web pages over the data folder, served by uvicorn: read-only, but for
an always-on ladder's challenge form when ``--challenges`` turns it on, and the tables where
people play against the bots (``--no-tables`` turns them off).

The web front is a package of its own (``web``), imported inside the command so `brandeln
--help` does not pay for Starlette and Jinja2.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.options import DataOption, RefereeOption
from brandeln.cli.output import fail
from brandeln.cli.output import notes as console
from brandeln.cli.service_options import (
    LogJsonOption,
    LogLevel,
    log_level_option,
    trusted_hosts,
)
from brandeln.cli.terminal_text import markup
from brandeln.services import data_folder
from brandeln.services.trusted_hosts import is_loopback

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from brandeln.cli.stop_signals import SignalLatch

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# Live tables' event streams open at once (brandeln.web.stream_cap.MAX_STREAMS, not imported here:
# the web front loads only when the command runs).
DEFAULT_MAX_STREAMS = 64
GRACEFUL_SHUTDOWN_S = 5
# brandeln.web.table_room.PEOPLE_TOKEN_ENV (not imported here, as above).
PEOPLE_TOKEN_ENV = "BRANDELN_PEOPLE_TOKEN"
# brandeln.web.manual.MANUAL_ENV (as above).
MANUAL_ENV = "BRANDELN_MANUAL"


def web_address(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    """The pages' address, ``http://127.0.0.1:8000/`` by default."""
    return f"http://{_url_host(host)}:{port}/"


def web(
    data: DataOption = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="A database URL (postgresql://...) instead of the data folder's SQLite files.",
        ),
    ] = None,
    referee: RefereeOption = None,
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            envvar=data_folder.ADMIN_TOKEN_ENV,
            show_envvar=True,
            help="The referee's admin token, with --referee (better in the environment).",
        ),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on (loopback: only this machine).")
    ] = DEFAULT_HOST,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A name the pages are reached by, NAME (at --port) or NAME:PORT (a proxy's "
            "port in front); repeatable. The pages answer 127.0.0.1, localhost and [::1] "
            "always, any IP address too off loopback, and any other name with a 421: a "
            "hostile site whose DNS points at this machine (DNS rebinding) is not the app.",
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="Port to listen on (0: a free one).")] = DEFAULT_PORT,
    max_streams: Annotated[
        int,
        typer.Option(
            "--max-streams",
            min=1,
            help="Live tables' event streams open at once (with --referee); one more gets a "
            "503 and retries later.",
        ),
    ] = DEFAULT_MAX_STREAMS,
    challenges: Annotated[
        bool,
        typer.Option(
            "--challenges",
            help="Let an always-on ladder's page queue challenges (its form, within the "
            "ladder's limit per bot per hour); without it the pages only read.",
        ),
    ] = False,
    tables: Annotated[
        bool,
        typer.Option(
            "--tables/--no-tables",
            help="Tables where people play against bots in the browser (/tables): at "
            "--referee, else at a referee of its own over the data folder's embedded store.",
        ),
    ] = True,
    people_token: Annotated[
        str | None,
        typer.Option(
            "--people-token",
            envvar=PEOPLE_TOKEN_ENV,
            show_envvar=True,
            help="What a person must give to open a table or take a seat (a shared server); "
            "without it anyone who reaches the pages may play.",
        ),
    ] = None,
    manual: Annotated[
        Path | None,
        typer.Option(
            "--manual",
            envvar=MANUAL_ENV,
            show_envvar=True,
            file_okay=False,
            help="The built manual's folder, served under /manual/ [default: site/ of the "
            "checkout, which `make docs` builds].",
        ),
    ] = None,
    log_level: Annotated[
        LogLevel,
        log_level_option(
            "info: requests (uvicorn's access log), start and stop; warning: what went wrong"
        ),
    ] = LogLevel.WARNING,
    log_json: LogJsonOption = False,
) -> None:
    """Serve the seasons, ladders, leaderboards, rating charts, bots and matches as web pages,
    and tables where people play against the bots.

    The pages read the same files as `ratings` and `matches` (a season or a ladder can run
    beside it, pages show it as it goes); they write only the ladders' challenges
    (--challenges) and the tables' matches (--no-tables turns them off). Open the address it
    prints in a browser.
    """
    if data is not None and db is not None:
        raise fail("give --data or --db, not both", code=2)
    if referee is not None and not admin_token:
        raise fail(
            f"--referee needs the admin token (--admin-token or ${data_folder.ADMIN_TOKEN_ENV})"
        )
    from brandeln.web.app import create_app  # noqa: PLC0415 - keep `brandeln --help` fast
    from brandeln.web.data import DataError, StorageLocation  # noqa: PLC0415

    trusted = trusted_hosts(host, allowed_host, "--allowed-host")
    location = StorageLocation(data=None if db else (data or data_folder.data_dir()), db_url=db)
    try:
        app = create_app(
            location,
            referee=referee,
            admin_token=admin_token,
            max_streams=max_streams,
            allow_challenges=challenges,
            tables=tables,
            people_token=people_token or None,
            trusted_hosts=trusted,
            manual=manual,
        )
    except DataError as error:
        raise fail(str(error), code=2) from None
    try:
        listener = _listen(host, port)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    bound_port = listener.getsockname()[1]
    address = web_address(host, bound_port)
    from brandeln.cli.service_output import service_output  # noqa: PLC0415
    from brandeln.cli.stop_signals import SignalLatch  # noqa: PLC0415 - it imports asyncio

    # From its first line on, under --log-json every line it writes is a JSON record.
    with service_output(log_level, json_lines=log_json):
        latch = SignalLatch()
        latch.install()  # from here on the lines below promise that Ctrl-C stops it
        console.print(
            f"Brandeln Arena web pages of {markup(location.describe())}: {address}", markup=True
        )
        if is_loopback(host):
            console.print(
                "listening on this machine only (loopback); to share the pages with other "
                "machines: --host 0.0.0.0"
            )
        else:
            console.print(
                f"note: {markup(host)} is not loopback: anyone who reaches it can read the pages",
                markup=True,
            )
        console.print(
            f"answers to {markup(trusted.describe(bound_port))} (another name: "
            "--allowed-host NAME)",
            markup=True,
        )
        if tables:
            console.print(f"play against the bots in the browser: {address}tables")
            if people_token:
                console.print(f"a person gives the people token (${PEOPLE_TOKEN_ENV}) to sit")
            elif not is_loopback(host):
                console.print(
                    "note: anyone who reaches it can open tables (and start sample bots here): "
                    f"--people-token or ${PEOPLE_TOKEN_ENV} asks them for a token"
                )
        console.print(f"the manual: {address}manual/")
        console.print(f"({_writes(challenges=challenges, tables=tables)}; Ctrl-C stops it)")
        _uvicorn_logs_at(log_level)
        _serve(app, listener, latch)


def _uvicorn_logs_at(level: LogLevel) -> None:
    """uvicorn's loggers at ``level`` (its requests at info), as the service's own: uvicorn
    sets them from its log_level only beside a log_config of its own."""
    import logging  # noqa: PLC0415

    for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logging.getLogger(name).setLevel(level.number)


def _writes(*, challenges: bool, tables: bool) -> str:
    """What the pages write, as the last line at start says it.

    >>> _writes(challenges=False, tables=False)
    'read-only'
    >>> _writes(challenges=True, tables=True)
    "read-only but for the ladders' challenge forms, --challenges, and the tables' matches"
    """
    writes = []
    if challenges:
        writes.append("the ladders' challenge forms, --challenges")
    if tables:
        writes.append("the tables' matches")
    return "read-only" if not writes else f"read-only but for {', and '.join(writes)}"


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before uvicorn starts so the printed port is the real one
    (``--port 0``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener


def _serve(app: Starlette, listener: socket.socket, latch: SignalLatch) -> None:
    """Serve ``app`` on ``listener`` until SIGINT or SIGTERM, caught by ``latch`` until
    uvicorn's own handlers are in place; then it returns (exit code 0)."""
    import uvicorn  # noqa: PLC0415

    from brandeln.web.stream_stop import EndStreamsAtStop, StreamStop  # noqa: PLC0415

    streams = StreamStop()
    app.add_middleware(EndStreamsAtStop, stop=streams)

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():  # uvicorn's handlers in, the latch's back after
                latch.hand_over(self.handle_exit)  # a stop that came first: serve none
                yield

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # Event streams end as when their browsers go: the stop then waits for no stream
            # and cancels none (which uvicorn would log as an error).
            streams.stop()
            await super().shutdown(sockets)

    # Past this many seconds of shutdown a response still running is cut, and the lifespan
    # stops the tables' bots. log_config None: uvicorn's records (its access log too) go to
    # the root logger (brandeln.services.logs.setup), so --log-json writes them as JSON like the
    # rest.
    config = uvicorn.Config(
        app,
        log_config=None,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = Server(config)
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


__all__ = ["DEFAULT_PORT", "web", "web_address"]

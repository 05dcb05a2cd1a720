"""What every bot process reads at start: where the referee is and the bot's token, from its
command line, else from the environment the ladder sets (``BRANDELN_SERVER``,
``BRANDELN_TOKEN``, ``BRANDELN_TABLES``, ``BRANDELN_BOT_NAME``; ``BRANDELN_CA`` for a TLS
referee; ``BRANDELN_CONNECT_TIMEOUT``, the seconds to keep trying to reach the referee, 120 by
default). Shared by ``brandeln bot``, ``python -m brandeln.sample_bots`` and
``python -m brandeln.sdk.bridge``.

>>> resolve_options("127.0.0.1:50051", "t0k3n").server
'127.0.0.1:50051'
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from brandeln.sdk.bot import Bot
from brandeln.sdk.session import (
    DEFAULT_CONNECT_TIMEOUT_S,
    BotKitError,
    SessionOptions,
    SessionStats,
    play,
)

SERVER_ENV: Final = "BRANDELN_SERVER"
TOKEN_ENV: Final = "BRANDELN_TOKEN"
TABLES_ENV: Final = "BRANDELN_TABLES"
NAME_ENV: Final = "BRANDELN_BOT_NAME"
CA_ENV: Final = "BRANDELN_CA"
CONNECT_TIMEOUT_ENV: Final = "BRANDELN_CONNECT_TIMEOUT"
DEFAULT_SERVER: Final = "127.0.0.1:50051"


class LaunchError(BotKitError):
    """Missing or contradictory settings (no token, bad table count, ...)."""


def resolve_options(
    server: str | None,
    token: str | None,
    ca: str | None = None,
    max_matches: int | None = None,
    connect_timeout_s: float | None = None,
) -> SessionOptions:
    """Session options from arguments, falling back on the environment; checks the token.

    ``connect_timeout_s``: how long to keep trying to reach the referee, else
    ``BRANDELN_CONNECT_TIMEOUT``, else 120 s.
    """
    token = token or os.environ.get(TOKEN_ENV, "")
    if not token:
        raise LaunchError(f"no token: pass --token or set {TOKEN_ENV}")
    if connect_timeout_s is None:
        text = os.environ.get(CONNECT_TIMEOUT_ENV, "")
        try:
            connect_timeout_s = float(text) if text else DEFAULT_CONNECT_TIMEOUT_S
        except ValueError:
            raise LaunchError(
                f"{CONNECT_TIMEOUT_ENV}={text!r} is not a number of seconds"
            ) from None
    if not connect_timeout_s > 0:
        raise LaunchError(f"the connect timeout must be positive, not {connect_timeout_s:g} s")
    return SessionOptions(
        server=server or os.environ.get(SERVER_ENV) or DEFAULT_SERVER,
        token=token,
        ca=Path(ca) if ca else (Path(os.environ[CA_ENV]) if os.environ.get(CA_ENV) else None),
        max_matches=max_matches,
        retry_for_s=connect_timeout_s,
    )


def resolve_tables(tables: int | None) -> int:
    """``tables``, else ``BRANDELN_TABLES``, else 1."""
    if tables is None:
        text = os.environ.get(TABLES_ENV, "1")
        try:
            tables = int(text)
        except ValueError:
            raise LaunchError(f"{TABLES_ENV}={text!r} is not a number of tables") from None
    if tables < 1:
        raise LaunchError(f"--tables must be at least 1, not {tables}")
    return tables


def configure_logging(verbose: bool = False) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("grpc").setLevel(logging.WARNING)


def add_session_options(parser: argparse.ArgumentParser) -> None:
    """The options every bot's command line takes (read by :func:`resolve_options` and
    :func:`resolve_tables`)."""
    parser.add_argument("--server", help="referee HOST:PORT [env BRANDELN_SERVER]")
    parser.add_argument("--token", help="the bot's token [env BRANDELN_TOKEN]")
    parser.add_argument(
        "--tables", type=int, help="tables to play at once [env BRANDELN_TABLES, 1]"
    )
    parser.add_argument(
        "--ca", help="CA certificate (PEM) to reach a TLS referee [env BRANDELN_CA]"
    )
    parser.add_argument("--matches", type=int, help="stop after this many matches per table")
    parser.add_argument(
        "--connect-timeout",
        type=float,
        help="seconds to keep trying to reach the referee [env BRANDELN_CONNECT_TIMEOUT, 120]",
    )
    parser.add_argument("--bot-name", help="display name sent in Hello [env BRANDELN_BOT_NAME]")
    parser.add_argument("-v", "--verbose", action="store_true")


def bot_name(given: str | None) -> str | None:
    """The display name for Hello: ``given``, else ``BRANDELN_BOT_NAME`` (the name a season
    or a match gives the seat), else None (the bot's own)."""
    return given or os.environ.get(NAME_ENV) or None


def session_options(args: argparse.Namespace) -> SessionOptions:
    """The session options a command line of :func:`add_session_options` gives."""
    return resolve_options(args.server, args.token, args.ca, args.matches, args.connect_timeout)


def exit_status(play: Callable[[], object]) -> int:
    """Run a bot process's ``play``: 0 when it ends, 2 after a one-line ``error:`` on stderr
    (a bad token, an unreachable referee, a bad option), 130 on Ctrl-C."""
    try:
        play()
    except (BotKitError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


VALUE_OPTIONS: Final = frozenset({"--server", "--token", "--ca", "--bot-name"})


def join_values(argv: list[str]) -> list[str]:
    """``--token -x1`` as ``--token=-x1``: argparse would take a value that starts with a dash
    (tokens may) for an option and fail.

    >>> join_values(["--token", "-x1", "-v"])
    ['--token=-x1', '-v']
    """
    out: list[str] = []
    index = 0
    while index < len(argv):
        if argv[index] in VALUE_OPTIONS and index + 1 < len(argv):
            out.append(f"{argv[index]}={argv[index + 1]}")
            index += 2
        else:
            out.append(argv[index])
            index += 1
    return out


def run(
    bot: Bot | Callable[[], Bot], options: SessionOptions | None = None, tables: int = 1
) -> list[SessionStats]:
    """Play until stopped: the usual entry point of a bot program, ``run(MyBot())``.

    ``bot`` is one bot object (one table: a bot keeps one seat's state) or a factory making
    a fresh bot per table. Without ``options``, the referee and the token come from the
    environment (:func:`resolve_options`), as ``brandeln match run ... -- COMMAND``, the
    ladder and ``brandeln bots`` set them. Blocking :func:`~brandeln.sdk.play`.
    """
    if isinstance(bot, Bot):
        if tables != 1:
            raise ValueError(f"one bot object cannot play {tables} tables; pass a factory")
        seated = bot
        factory: Callable[[], Bot] = lambda: seated  # noqa: E731
    else:
        factory = bot
    return asyncio.run(play(factory, options or resolve_options(None, None), tables))

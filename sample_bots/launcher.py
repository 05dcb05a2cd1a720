"""Run a sample bot or the bridge: shared by ``brandeln bot`` and
``python -m brandeln.sample_bots``.

Both read the referee's address and the token from the options, else from the environment the
ladder sets (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``, ``BRANDELN_TABLES``,
``BRANDELN_BOT_NAME``; ``BRANDELN_CA`` for a TLS referee; ``BRANDELN_CONNECT_TIMEOUT``, the
seconds to keep trying to reach the referee, 120 by default).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import (
    DEFAULT_CONNECT_TIMEOUT_S,
    Bot,
    BotKitError,
    SessionOptions,
    SessionStats,
    play,
)
from brandeln.sdk.bridge.bot import BridgeBot

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


def run_sample_bot(
    name: str,
    options: SessionOptions,
    tables: int = 1,
    seed: int | None = None,
    display_name: str | None = None,
    level: int | None = None,
    samples: int | None = None,
) -> list[SessionStats]:
    """Play with the sample bot ``name`` at ``tables`` tables until stopped (or max_matches).

    Each table gets its own bot; with ``seed``, every table's bot re-seeds at each deal from
    it and the deal (``brandeln.sample_bots.deal_seed``), so its choices do not depend on the table.
    """
    try:
        make_bot(name, level=level, samples=samples)  # fail fast on an unknown name or level
    except ValueError as error:
        raise LaunchError(str(error)) from None

    def factory() -> Bot:
        bot = make_bot(name, seed, level, samples)
        if display_name:
            bot.name = display_name
        return bot

    return asyncio.run(play(factory, options, tables))


def run_bridge(
    command: Sequence[str],
    options: SessionOptions,
    tables: int = 1,
    name: str | None = None,
    snapshot_only: bool = False,
    max_restarts: int = 3,
) -> list[SessionStats]:
    """Run ``command`` behind the stdio bridge, one child per table."""
    if not command:
        raise LaunchError("no COMMAND: write it after --, e.g. -- python3 my_bot.py")
    display = name or os.environ.get(NAME_ENV) or os.path.basename(command[0])

    def factory() -> Bot:
        return BridgeBot(
            command, name=display, wants_events=not snapshot_only, max_restarts=max_restarts
        )

    return asyncio.run(play(factory, options, tables))

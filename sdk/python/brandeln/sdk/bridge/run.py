"""Run a command behind the stdio bridge: shared by ``brandeln bot bridge`` and
``python -m brandeln.sdk.bridge``."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence

from brandeln.sdk import Bot, SessionOptions, SessionStats, play
from brandeln.sdk.bridge.bot import BridgeBot
from brandeln.sdk.launch import LaunchError, bot_name


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
    display = bot_name(name) or os.path.basename(command[0])

    def factory() -> Bot:
        return BridgeBot(
            command, name=display, wants_events=not snapshot_only, max_restarts=max_restarts
        )

    return asyncio.run(play(factory, options, tables))

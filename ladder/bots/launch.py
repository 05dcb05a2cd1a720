"""Launching a season's command bots and waiting until every bot has its seat sessions.

:func:`launched_bots` starts the command bots (:func:`brandeln.ladder.bots.processes.start_bot`),
waits for their sessions at the referee (:func:`wait_for_sessions`, which names the bot that exited
or did not connect, with its log) and stops them on the way out, whatever happens. The season
runner, one match (``brandeln.ladder.season.one_match``) and a cluster's workers launch their bots
with it; ``brandeln.ladder.season.ab`` waits for sessions with :func:`wait_for_sessions`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots
from brandeln.ladder.errors import BotStartError
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import CommandBot, SeasonConfig

__all__ = ["SESSION_POLL_S", "launched_bots", "wait_for_sessions"]

SESSION_POLL_S: Final = 0.1


@asynccontextmanager
async def launched_bots(
    admin: AdminClient,
    config: SeasonConfig,
    referee_address: str,
    bot_ids: Mapping[str, str],
    tokens: Mapping[str, str],
    logs_dir: Path,
    *,
    die_with_parent: bool = False,
) -> AsyncIterator[list[BotProcess]]:
    """Start ``config``'s command bots (token by bot name), wait until every bot has its
    sessions connected, and stop the processes on the way out, whatever happens
    (``die_with_parent``: see :func:`~brandeln.ladder.bots.processes.start_bot`).

    Also for one match (``brandeln.ladder.season.one_match``): any ``SeasonConfig`` describing its
    bots. Raises :class:`BotStartError` when a bot cannot start, exits, or does not connect.
    """
    processes: list[BotProcess] = []
    try:
        for bot in config.bots:
            if isinstance(bot, CommandBot):
                processes.append(
                    await start_bot(
                        bot.name,
                        bot.command,
                        server=referee_address,
                        token=tokens[bot.name],
                        tables=bot.tables,
                        log_path=logs_dir / f"{bot.name}.log",
                        die_with_parent=die_with_parent,
                    )
                )
        await _wait_for_sessions(admin, config, bot_ids, processes)
        yield processes
    finally:
        await stop_bots(processes)


async def _wait_for_sessions(
    admin: AdminClient,
    config: SeasonConfig,
    bot_ids: Mapping[str, str],
    processes: Sequence[BotProcess],
) -> None:
    """Wait until every command bot has ``tables`` sessions and every other bot one."""
    needed = {bot.name: bot.tables if isinstance(bot, CommandBot) else 1 for bot in config.bots}
    await wait_for_sessions(admin, needed, bot_ids, processes, config.connect_timeout_ms)


async def wait_for_sessions(
    admin: AdminClient,
    needed: Mapping[str, int],
    bot_ids: Mapping[str, str],
    processes: Sequence[BotProcess],
    timeout_ms: int,
) -> None:
    """Wait until each bot (by name) has its ``needed`` seat sessions connected; raise
    :class:`BotStartError` when a bot process exits first or ``timeout_ms`` passes."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        for process in processes:
            if process.exited:
                await process.output_written()  # its last words, read below
                raise BotStartError(
                    f"bot {process.name!r} exited with code {process.process.returncode} "
                    f"before connecting; its log ({process.log_path}) ends:\n"
                    f"{process.log_tail()}"
                )
        counts = await admin.session_counts()
        missing = {
            name: (counts[bot_ids[name]].connected if bot_ids[name] in counts else 0, want)
            for name, want in needed.items()
            if (counts[bot_ids[name]].connected if bot_ids[name] in counts else 0) < want
        }
        if not missing:
            return
        if time.monotonic() >= deadline:
            logs = {process.name: process.log_path for process in processes}
            details = "; ".join(
                f"{name!r} has {have} of {want} sessions"
                + (f" (log: {logs[name]})" if name in logs else "")
                for name, (have, want) in missing.items()
            )
            raise BotStartError(f"bots did not connect within {timeout_ms} ms: {details}")
        await asyncio.sleep(SESSION_POLL_S)

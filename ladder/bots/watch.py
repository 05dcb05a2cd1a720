"""Watching a season's bot processes while something else runs: a bot that exits fails it.

A bot's death reaches the runner two ways: its process exits (seen here at once), and its seat
sessions end, so the match in flight fails as unavailable (:class:`MatchUnavailableError`),
often before the exit is reaped. The exit is the cause worth naming, with the tail of the
bot's log, so a failure of the second kind waits :data:`EXIT_GRACE_S` for the first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, Final, TypeVar

from brandeln.ladder.bots.processes import BotProcess
from brandeln.ladder.errors import BotStartError, MatchUnavailableError

__all__ = ["EXIT_GRACE_S", "while_bots_run"]

# A match that fails because a bot died (MatchUnavailableError: the bot has no session) often
# fails before the bot's exit is reaped: this long the watcher may still name the exit, the cause.
EXIT_GRACE_S: Final = 1.0
_T = TypeVar("_T")


async def while_bots_run(
    main: Awaitable[_T], processes: Sequence[BotProcess], what: str = "the season"
) -> _T:
    """``main``'s result, unless a bot process exits first: then :class:`BotStartError`
    (``bot 'x' exited with code N during <what>``) and ``main`` is cancelled."""
    return await _first_done(main, _watch_processes(processes, what))


async def _watch_processes(processes: Sequence[BotProcess], what: str) -> None:
    """Raise :class:`BotStartError` as soon as a bot process exits during ``what``."""
    if not processes:
        await asyncio.Event().wait()  # nothing to watch: wait to be cancelled
    waits = {asyncio.ensure_future(bot.process.wait()): bot for bot in processes}
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for future in waits:
            future.cancel()
    bot = waits[next(iter(done))]
    await bot.output_written()  # its last words, read below
    raise BotStartError(
        f"bot {bot.name!r} exited with code {bot.process.returncode} during {what}; "
        f"its log ({bot.log_path}) ends:\n{bot.log_tail()}"
    )


async def _first_done(main: Awaitable[_T], watcher: Awaitable[None]) -> _T:
    """Run ``main`` while ``watcher`` may fail it; return what ``main`` returns."""
    main_task = asyncio.ensure_future(main)
    watch_task = asyncio.ensure_future(watcher)
    try:
        await asyncio.wait({main_task, watch_task}, return_when=asyncio.FIRST_COMPLETED)
        if _failed(main_task, MatchUnavailableError) and not watch_task.done():
            await asyncio.wait({watch_task}, timeout=EXIT_GRACE_S)
        if watch_task.done() and (not main_task.done() or _failed(main_task, Exception)):
            main_task.cancel()
            await asyncio.gather(main_task, return_exceptions=True)
            watch_task.result()  # raises the watcher's error
        return main_task.result()
    finally:
        for task in (main_task, watch_task):
            task.cancel()
        await asyncio.gather(main_task, watch_task, return_exceptions=True)


def _failed(task: asyncio.Future[Any], kind: type[BaseException]) -> bool:
    """Whether ``task`` has ended by raising a ``kind``."""
    return task.done() and not task.cancelled() and isinstance(task.exception(), kind)

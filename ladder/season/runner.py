"""Running a season against a referee, through its Admin service only.

:func:`run_season` registers the command bots (or reuses their stored registration), launches
them, waits until every bot has its seat sessions connected, plays the blocks not yet recorded
with the configured concurrency, records each finished block in one transaction (ratings
included) and stops the bot processes at the end, on error and on cancellation.

**Resume.** Only finished blocks are stored, so running an interrupted season again (same name
and settings) plays the missing blocks, an interrupted one from its start, and counts nothing
twice; ratings are applied in block order, so they equal an uninterrupted run's.

**Claims.** Each block is claimed in the ladder database before it is played
(:meth:`~brandeln.ladder.store.blocks.BlockStore.claim_block`), so two runners of one season (two
processes on one PostgreSQL, or on one SQLite file) share its blocks and never play one twice. A run
heartbeats its claims and gives them back when it stops; the claims of a run that was killed
(SIGKILL) are taken over by the next run (its process is gone, see
:mod:`brandeln.ladder.season.claims`). Database calls run in worker threads: a database that is
briefly away is retried with backoff (:mod:`brandeln.datastore.retry`) while the matches in flight
go on.

Bot processes are stopped at the end, on errors and on cancellation (Ctrl-C). A run killed
outright (SIGKILL) cannot stop them; the next run finds them by the token in their environment
(it keeps the token's hash) and stops them before starting new ones.

**Bot identity.** A command bot is registered at the referee as ``<bot>@<season>`` and gets a
fresh token every run (:mod:`brandeln.ladder.referee.identities`); bots that connect by themselves
are given by ``bot_id``.

**The parts.** This module is the season's front: :func:`run_season`, :func:`run_blocks` and
the referee as a :class:`BlockPlayer` (:class:`RefereeBlocks`). The block loop of a run is
:mod:`brandeln.ladder.season.run`; the bots' identities at the referee
:mod:`brandeln.ladder.referee.identities`; launching the bots and waiting for their sessions
:mod:`brandeln.ladder.bots.launch`; failing a block when a bot exits
:mod:`brandeln.ladder.bots.watch`. Their public names are exported here too, so the season's callers
(the CLI, one match, ``brandeln.ladder.season.ab``, the cluster) import them from one place.

>>> async def example(config, store):                       # doctest: +SKIP
...     summary = await run_season(config, "127.0.0.1:50051", "admin-token", store,
...                                progress=lambda p: print(p.blocks_done, p.leader))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from brandeln.ladder.bots.launch import SESSION_POLL_S, launched_bots, wait_for_sessions
from brandeln.ladder.bots.processes import BotProcess, stop_orphans
from brandeln.ladder.bots.watch import EXIT_GRACE_S, while_bots_run
from brandeln.ladder.errors import StorageError, UnknownSeasonError
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.referee.identities import MAX_NAME_SUFFIX, season_identities
from brandeln.ladder.season.claims import retire, runner_alive
from brandeln.ladder.season.config import SeasonConfig
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome, plan_season
from brandeln.ladder.season.rerun import RerunStop, RerunSummary, play_rerun, refuse_another_top
from brandeln.ladder.season.run import (
    PROGRESS_INTERVAL_S,
    BlockPlayer,
    ProgressCallback,
    SeasonProgress,
    SeasonRun,
)
from brandeln.ladder.store.database import LadderStore, SeasonStatus
from brandeln.ladder.store.schema import ClaimState
from brandeln.ladder.tasks import all_or_nothing, finish_in_thread

# The parts' constants too: `match run` numbers its bots' names up to MAX_NAME_SUFFIX, and
# its callers import every name of a season's run from here.
__all__ = [
    "EXIT_GRACE_S",
    "MAX_NAME_SUFFIX",
    "PROGRESS_INTERVAL_S",
    "SESSION_POLL_S",
    "BlockPlayer",
    "ProgressCallback",
    "RefereeBlocks",
    "SeasonProgress",
    "SeasonSummary",
    "another_run_plays",
    "launched_bots",
    "run_blocks",
    "run_season",
    "season_identities",
    "wait_for_sessions",
    "while_bots_run",
]

log = logging.getLogger("brandeln.ladder")


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    """What one run of a season did."""

    season: str
    blocks_played: int  # in this run
    blocks_done: int  # in all, this run included
    blocks_total: int
    deals: int  # in this run
    seconds: float
    last_match_id: str | None
    referee_contacted: bool = True  # False when every block was already recorded
    blocks_elsewhere: int = 0  # unfinished blocks another live runner holds at the end
    rerun: RerunSummary | None = None  # the final rerun, when one was asked for


def _set_status(store: LadderStore, season: str, status: SeasonStatus, detail: str = "") -> None:
    """Record how the run ended, unless the database itself is what failed (its error is the
    one to report, not a second one from saying so)."""
    try:
        store.seasons.set_season_status(season, status, detail)
    except StorageError as error:
        log.warning("could not record season %r as %s: %s", season, status.value, error)


async def run_season(
    config: SeasonConfig,
    referee_address: str,
    admin_token: str,
    store: LadderStore,
    *,
    progress: ProgressCallback | None = None,
    root_certificates: bytes | None = None,
    logs_dir: Path | None = None,
) -> SeasonSummary:
    """Play the blocks of ``config`` not yet in ``store`` on the referee at ``referee_address``.

    ``logs_dir`` receives one log file per command bot (default: ``seasons/<name>/bots`` next
    to the ladder database). Raises a :class:`~brandeln.ladder.errors.LadderError` subclass on
    failure; the blocks finished before it stay recorded.
    """
    if logs_dir is None:
        if store.path is None:
            raise StorageError("the ladder database is no file: give the bots' logs folder")
        logs_dir = store.path.parent / "seasons" / config.name / "bots"
    return await run_blocks(
        config,
        store,
        lambda: _referee_player(
            config, referee_address, admin_token, store, logs_dir, root_certificates
        ),
        progress=progress,
    )


async def run_blocks(
    config: SeasonConfig,
    store: LadderStore,
    open_player: Callable[[], AbstractAsyncContextManager[BlockPlayer]],
    *,
    progress: ProgressCallback | None = None,
) -> SeasonSummary:
    """Play the blocks of ``config`` not yet in ``store`` with the player ``open_player``
    gives (entered only if a block is left to play): claim each block, play it, record it and
    its ratings (in block order, :mod:`brandeln.ladder.ratings.order`), until none is left; then the
    final rerun ``config.rerun`` asks for (:mod:`brandeln.ladder.season.rerun`), with the same
    player.

    Raises a :class:`~brandeln.ladder.errors.LadderError` subclass on failure; the blocks finished
    before it stay recorded, and the run's claims are given back.
    """
    started = time.monotonic()
    model = RatingModel(config.rating)
    if config.rerun is not None:  # a mistaken request changes nothing, not even the status
        with contextlib.suppress(UnknownSeasonError):  # a new season has no rerun yet
            refuse_another_top(store.rerun.rerun(config.name), config)
    store.seasons.ensure_season(config, model.initial())
    # The committed seed (brandeln.ladder.season.commitment): the file's, or the secret one drawn
    # for it.
    seed = store.commitments.season_deal_seed(config.name)
    plans = plan_season([bot.name for bot in config.bots], config.players, config.blocks, seed)
    finished = store.blocks.finished_blocks(config.name) & {plan.index for plan in plans}
    pending = [plan for plan in plans if plan.index not in finished]
    run = SeasonRun(config, store, model, progress, started, len(finished))
    opened: list[BlockPlayer] = []
    rerun: RerunSummary | None = None
    try:
        async with contextlib.AsyncExitStack() as stack:

            async def player() -> BlockPlayer:
                # Entered once, when a block is first to be played: a season with nothing
                # left to play contacts no referee and starts no bot.
                if not opened:
                    opened.append(await stack.enter_async_context(open_player()))
                return opened[0]

            if pending:
                await run.play(await player(), pending)
            if config.rerun is not None:
                rerun = await play_rerun(run, player)
    except asyncio.CancelledError:
        _set_status(store, config.name, SeasonStatus.INTERRUPTED)
        raise
    except Exception as error:
        # Without this a season that failed at its start stays listed as merely "0 of N".
        _set_status(store, config.name, SeasonStatus.FAILED, str(error) or type(error).__name__)
        raise
    finally:
        # Blocks this run claimed but did not finish are free for the next run at once.
        with contextlib.suppress(StorageError):
            await finish_in_thread(store.blocks.release_claims, config.name, run.runner)
        retire(run.runner)
    done = len(store.blocks.finished_blocks(config.name) & {plan.index for plan in plans})
    if done == len(plans) and (rerun is None or rerun.stopped is not RerunStop.WAITING):
        store.seasons.set_season_status(config.name, SeasonStatus.FINISHED)
        store.commitments.reveal_season_seed(
            config.name
        )  # every block is recorded: anyone may check
    run.report(force=True)
    return SeasonSummary(
        season=config.name,
        blocks_played=run.blocks_played,
        blocks_done=run.blocks_done,
        blocks_total=len(plans),
        deals=run.deals,
        seconds=time.monotonic() - started,
        last_match_id=run.last_match_id or _last_recorded_match(store, config.name),
        blocks_elsewhere=run.blocks_elsewhere,
        referee_contacted=bool(opened),
        rerun=rerun,
    )


@asynccontextmanager
async def _referee_player(
    config: SeasonConfig,
    referee_address: str,
    admin_token: str,
    store: LadderStore,
    logs_dir: Path,
    root_certificates: bytes | None,
) -> AsyncIterator[BlockPlayer]:
    """The season's bots launched against the referee, as a :class:`BlockPlayer`."""
    async with AdminClient(
        referee_address, admin_token, root_certificates=root_certificates
    ) as admin:
        # Bots of an earlier run that was killed outright (SIGKILL) still hold sessions:
        # found by the hash of the token they were given, before that token is replaced.
        await stop_orphans(
            identity.token_hash
            for identity in store.bots.bot_identities(config.name).values()
            if identity.token_hash
        )
        # Another live run of this season (another process, maybe another machine, on a shared
        # database) plays with the stored identities: rotating their tokens would cut its bots
        # off. This run then registers identities of its own (a suffix, `<bot>@<season>-2`).
        shared = another_run_plays(store, config.name)
        bot_ids, tokens = await season_identities(admin, config, store, rotate=not shared)
        async with launched_bots(
            admin, config, referee_address, bot_ids, tokens, logs_dir
        ) as processes:
            yield RefereeBlocks(admin, config, bot_ids, processes)


class RefereeBlocks:
    """Plays blocks on one referee through its Admin service, ``config.concurrency`` matches
    at once, while watching the bot processes (a bot that exits fails the block)."""

    def __init__(
        self,
        admin: AdminClient,
        config: SeasonConfig,
        bot_ids: Mapping[str, str],
        processes: Sequence[BotProcess],
    ) -> None:
        self.admin = admin
        self.config = config
        self.bot_ids = dict(bot_ids)
        self.processes = processes
        self._match_slots = asyncio.Semaphore(config.concurrency)

    @property
    def workers(self) -> int:
        # Enough blocks in flight to keep every match slot busy, and few more: an interrupted
        # run replays only the blocks that were in flight.
        return math.ceil(self.config.concurrency / self.config.players) + 1

    async def play_block(self, plan: BlockPlan, on_deal: Callable[[], None]) -> list[MatchOutcome]:
        outcomes: list[MatchOutcome] = []

        async def play_match(rotation: int) -> None:
            async with self._match_slots:
                outcomes.append(
                    await self.admin.run_match(
                        self.config, plan.matches[rotation], self.bot_ids, on_deal=on_deal
                    )
                )

        matches = all_or_nothing([play_match(rotation) for rotation in range(len(plan.matches))])
        await while_bots_run(matches, self.processes)
        return outcomes


def another_run_plays(store: LadderStore, season: str) -> bool:
    """Whether a block of the season is claimed by a run that is not known to be dead."""
    return any(
        state is ClaimState.CLAIMED and runner_alive(runner or "") is not False
        for state, runner in store.blocks.claims(season).values()
    )


def _last_recorded_match(store: LadderStore, season: str) -> str | None:
    last = store.reads.last_match(season)
    return None if last is None else last.match_id

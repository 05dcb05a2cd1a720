"""Running a season against a referee, through its Admin service only.

:func:`run_season` registers the command bots (or reuses their stored registration), launches
them, waits until every bot has its seat sessions connected, plays the blocks not yet recorded
with the configured concurrency, records each finished block in one transaction (ratings
included) and stops the bot processes at the end, on error and on cancellation.

**Resume.** Only finished blocks are stored, so running an interrupted season again (same name
and settings) plays the missing blocks, an interrupted one from its start, and counts nothing
twice; ratings are applied in block order, so they equal an uninterrupted run's.

**Claims.** Each block is claimed in the ladder database before it is played
(:meth:`~ladder.storage.LadderStore.claim_block`), so two runners of one season (two processes
on one PostgreSQL, or on one SQLite file) share its blocks and never play one twice. A run
heartbeats its claims and gives them back when it stops; the claims of a run that was killed
(SIGKILL) are taken over by the next run (its process is gone, see :mod:`ladder.claims`).
Database calls run in worker threads: a database that is briefly away is retried with backoff
(:mod:`datastore.retry`) while the matches in flight go on.

Bot processes are stopped at the end, on errors and on cancellation (Ctrl-C). A run killed
outright (SIGKILL) cannot stop them; the next run finds them by the token in their environment
(it keeps the token's hash) and stops them before starting new ones.

**Bot identity.** A command bot is registered at the referee as ``<bot>@<season>``; its bot id
is kept in the ladder database so a resumed season reuses it (the referee keeps its bots too).
Its token is not kept: every run asks the referee for a fresh one (``RotateBotToken``, which
also refuses the old token and ends its sessions) and hands it to the bot's process only. If
the referee no longer knows the stored id (a fresh referee data dir), or cannot rotate tokens,
the bot is registered again, and if the name is taken there by an identity whose token we do
not hold, a suffix ``-2``, ``-3``, ... is added. Bots that connect by themselves are given by
``bot_id``.

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
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from ladder.admin_client import AdminClient
from ladder.bot_processes import BotProcess, start_bot, stop_bots, stop_orphans
from ladder.claims import HEARTBEAT_S, new_runner_id, retire, runner_alive
from ladder.config import CommandBot, ExternalBot, SeasonConfig
from ladder.duplicate import BlockPlan, MatchOutcome, block_results, plan_season
from ladder.errors import BotNameTakenError, BotStartError, MatchUnavailableError, StorageError
from ladder.rating_order import record_and_rate
from ladder.ratings import RatingModel
from ladder.schema import ClaimState
from ladder.storage import LadderStore, RatingRow, SeasonStatus, token_hash

__all__ = [
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

MAX_NAME_SUFFIX: Final = 100
SESSION_POLL_S: Final = 0.1
PROGRESS_INTERVAL_S: Final = 0.25
# A match that fails because a bot died (MatchUnavailableError: the bot has no session) often
# fails before the bot's exit is reaped: this long the watcher may still name the exit, the cause.
EXIT_GRACE_S: Final = 1.0
_T = TypeVar("_T")
log = logging.getLogger("brandeln.ladder")


@dataclass(frozen=True, slots=True)
class SeasonProgress:
    """A snapshot for a progress display."""

    blocks_done: int
    blocks_total: int
    deals: int  # deals played in this run
    deals_per_second: float
    leader: str | None  # best conservative rating so far
    leader_rating: float | None


ProgressCallback = Callable[[SeasonProgress], None]


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


def _set_status(store: LadderStore, season: str, status: SeasonStatus, detail: str = "") -> None:
    """Record how the run ended, unless the database itself is what failed (its error is the
    one to report, not a second one from saying so)."""
    try:
        store.set_season_status(season, status, detail)
    except StorageError as error:
        log.warning("could not record season %r as %s: %s", season, status.value, error)


class BlockPlayer(Protocol):
    """What plays a season's blocks: a referee through its Admin service
    (:func:`run_season`), or any other executor (the cluster's, beside the CLI), handed to
    :func:`run_blocks`, which claims, records and rates."""

    @property
    def workers(self) -> int:
        """How many blocks it plays at once."""
        ...

    async def play_block(self, plan: BlockPlan, on_deal: Callable[[], None]) -> list[MatchOutcome]:
        """Every match of ``plan`` (``on_deal`` after each deal, where it can tell), or raise."""
        ...


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
    to the ladder database). Raises a :class:`~ladder.errors.LadderError` subclass on failure;
    the blocks finished before it stay recorded.
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
    its ratings (in block order, :mod:`ladder.rating_order`), until none is left.

    Raises a :class:`~ladder.errors.LadderError` subclass on failure; the blocks finished
    before it stay recorded, and the run's claims are given back.
    """
    started = time.monotonic()
    model = RatingModel(config.rating)
    store.ensure_season(config, model.initial())
    plans = plan_season(
        [bot.name for bot in config.bots], config.players, config.blocks, config.seed
    )
    finished = store.finished_blocks(config.name) & {plan.index for plan in plans}
    pending = [plan for plan in plans if plan.index not in finished]
    run = _SeasonRun(config, store, model, progress, started, len(finished))
    try:
        if pending:
            async with open_player() as player:
                await run.play(player, pending)
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
            await _finish_in_thread(store.release_claims, config.name, run.runner)
        retire(run.runner)
    done = len(store.finished_blocks(config.name) & {plan.index for plan in plans})
    if done == len(plans):
        store.set_season_status(config.name, SeasonStatus.FINISHED)
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
        referee_contacted=bool(pending),
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
            for identity in store.bot_identities(config.name).values()
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

        matches = _all_or_nothing([play_match(rotation) for rotation in range(len(plan.matches))])
        await while_bots_run(matches, self.processes)
        return outcomes


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
    (``die_with_parent``: see :func:`~ladder.bot_processes.start_bot`).

    Also for one match (``ladder.one_match``): any ``SeasonConfig`` describing its bots.
    Raises :class:`BotStartError` when a bot cannot start, exits, or does not connect.
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


async def while_bots_run(
    main: Awaitable[_T], processes: Sequence[BotProcess], what: str = "the season"
) -> _T:
    """``main``'s result, unless a bot process exits first: then :class:`BotStartError`
    (``bot 'x' exited with code N during <what>``) and ``main`` is cancelled."""
    return await _first_done(main, _watch_processes(processes, what))


class _SeasonRun:
    """The mutable state of one run: counters, progress reports and block recording."""

    def __init__(
        self,
        config: SeasonConfig,
        store: LadderStore,
        model: RatingModel,
        progress: ProgressCallback | None,
        started: float,
        blocks_done: int,
    ) -> None:
        self.config = config
        self.store = store
        self.model = model
        self.progress = progress
        self.started = started
        self.blocks_done = blocks_done
        self.blocks_played = 0
        self.deals = 0
        self.last_match_id: str | None = None
        self._last_block_index = -1
        self._last_report = 0.0
        self.runner = new_runner_id()
        self._leader: RatingRow | None = None
        self.blocks_elsewhere = 0

    async def play(self, player: BlockPlayer, pending: Sequence[BlockPlan]) -> None:
        config = self.config
        by_index = {plan.index: plan for plan in pending}
        season = config.name

        async def play_blocks() -> None:
            # Claim a block, play it, record it; until no block is left to claim. The claim is
            # a transaction in the database, so other runners of the season share the blocks.
            while True:
                index = await _finish_in_thread(self.store.claim_block, season, self.runner)
                if index is None:
                    return
                plan = by_index.get(index)
                if plan is None:  # recorded meanwhile by another run: nothing to play
                    continue
                outcomes = await player.play_block(plan, self.deal_ended)
                await _finish_in_thread(self.record, plan, outcomes)
                self.report(force=True)

        async def heartbeat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_S)
                await asyncio.to_thread(self.store.heartbeat, season, self.runner)

        beating = asyncio.ensure_future(heartbeat())
        try:
            await _all_or_nothing([play_blocks() for _ in range(player.workers)])
        finally:
            beating.cancel()
            await asyncio.gather(beating, return_exceptions=True)
        claims = await asyncio.to_thread(self.store.claims, season)
        self.blocks_elsewhere = sum(
            1
            for state, holder in claims.values()
            if state is ClaimState.CLAIMED and holder != self.runner
        )

    def record(self, plan: BlockPlan, outcomes: list[MatchOutcome]) -> None:
        """Record a played block (in a worker thread: a database that is away is retried
        with backoff without stopping the matches in flight)."""
        outcomes.sort(key=lambda outcome: outcome.plan.rotation)
        results = block_results(plan, outcomes)
        record_and_rate(
            self.store, self.config.name, plan, outcomes, results, self.model.rate_block
        )
        self.blocks_done += 1
        self.blocks_played += 1
        # The pointer printed at the end names the last match of the highest block this run
        # recorded, not of whichever block finished last: with several workers that order is
        # a race, and a pointer should not change between two runs of one season.
        if plan.index > self._last_block_index:
            self._last_block_index = plan.index
            self.last_match_id = outcomes[-1].match_id
        self._leader = _leader(self.store.ratings(self.config.name))

    def deal_ended(self) -> None:
        self.deals += 1
        self.report()

    def report(self, *, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last_report < PROGRESS_INTERVAL_S:
            return
        self._last_report = now
        # The leader as the last recorded block left it: no database read on the event loop.
        leader = self._leader
        elapsed = max(now - self.started, 1e-9)
        self.progress(
            SeasonProgress(
                blocks_done=self.blocks_done,
                blocks_total=self.config.blocks,
                deals=self.deals,
                deals_per_second=self.deals / elapsed,
                leader=None if leader is None else leader.bot,
                leader_rating=None if leader is None else leader.rating.conservative,
            )
        )


def _leader(ratings: Sequence[RatingRow]) -> RatingRow | None:
    """The best conservative rating among the bots rated so far."""
    rated = [row for row in ratings if row.blocks]
    return max(rated, key=lambda row: (row.rating.conservative, row.bot), default=None)


def another_run_plays(store: LadderStore, season: str) -> bool:
    """Whether a block of the season is claimed by a run that is not known to be dead."""
    return any(
        state is ClaimState.CLAIMED and runner_alive(runner or "") is not False
        for state, runner in store.claims(season).values()
    )


async def season_identities(
    admin: AdminClient, config: SeasonConfig, store: LadderStore, *, rotate: bool = True
) -> tuple[dict[str, str], dict[str, str]]:
    """(bot ids, command bots' fresh tokens) by season bot name: a new token for each bot the
    referee knows (``rotate``; else a registration of its own), a registration for the
    others. Only the tokens' hashes are stored."""
    stored = store.bot_identities(config.name)
    known = await admin.known_bot_ids()  # None: the referee cannot list its bots
    bot_ids: dict[str, str] = {}
    tokens: dict[str, str] = {}
    for bot in config.bots:
        if isinstance(bot, ExternalBot):
            if known is not None and bot.bot_id not in known:
                raise BotStartError(
                    f"bot {bot.name!r}: bot_id {bot.bot_id!r} is not registered at the referee "
                    "(or is revoked); see `brandeln bots list`"
                )
            bot_ids[bot.name] = bot.bot_id
            continue
        identity = stored.get(bot.name)
        if (
            rotate
            and identity is not None
            and identity.bot_id is not None
            and identity.referee_name is not None
            and (known is None or identity.bot_id in known)
        ):
            token = await admin.rotate_bot_token(identity.bot_id)
            if token is not None:
                store.save_bot_identity(
                    config.name,
                    bot.name,
                    bot_id=identity.bot_id,
                    token_hash=token_hash(token),
                    referee_name=identity.referee_name,
                )
                bot_ids[bot.name], tokens[bot.name] = identity.bot_id, token
                continue
        base = f"{bot.name}@{config.name}"
        for attempt in range(1, MAX_NAME_SUFFIX + 1):
            referee_name = base if attempt == 1 else f"{base}-{attempt}"
            try:
                bot_id, token = await admin.register_bot(referee_name)
            except BotNameTakenError:
                continue
            store.save_bot_identity(
                config.name,
                bot.name,
                bot_id=bot_id,
                token_hash=token_hash(token),
                referee_name=referee_name,
            )
            bot_ids[bot.name], tokens[bot.name] = bot_id, token
            break
        else:
            raise BotStartError(f"bot {bot.name!r}: every name {base}[-N] is taken at the referee")
    return bot_ids, tokens


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


async def _finish_in_thread(fn: Callable[..., _T], *args: object) -> _T:
    """``fn(*args)`` (a database transaction) in a worker thread, not abandoned when the caller
    is cancelled: a thread cannot be stopped, so the cancellation waits for the transaction to
    end. A run therefore stops with every finished block recorded (or not at all), and no claim
    lands after the run has released its claims."""
    task = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await task
        raise


async def _all_or_nothing(coroutines: Sequence[Awaitable[_T]]) -> list[_T]:
    """Run concurrently; on the first failure cancel the rest and raise that failure itself.

    (``asyncio.TaskGroup`` would wrap it in an ExceptionGroup; the ladder's callers want the
    :class:`LadderError` with its message.)
    """
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _last_recorded_match(store: LadderStore, season: str) -> str | None:
    last = store.last_match(season)
    return None if last is None else last.match_id

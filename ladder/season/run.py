"""The block loop of one run of a season: claim a block, play it, record it, report progress.

:class:`SeasonRun` holds what one run counts (blocks, deals, the last match, the leader) while
its workers claim blocks in the ladder database, have a :class:`BlockPlayer` play them and
record each with the ratings it unlocks (:func:`brandeln.ladder.ratings.order.record_and_rate`), and
heartbeats the run's claims meanwhile. :func:`brandeln.ladder.season.runner.run_blocks` sets a run
up and ends it; a :class:`BlockPlayer` is a referee
(``brandeln.ladder.season.runner.RefereeBlocks``) or any other executor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Final, Protocol

from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.claims import HEARTBEAT_S, new_runner_id
from brandeln.ladder.season.config import SeasonConfig
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome, block_results
from brandeln.ladder.store.database import LadderStore, RatingRow
from brandeln.ladder.store.schema import ClaimState
from brandeln.ladder.tasks import all_or_nothing, finish_in_thread

__all__ = [
    "PROGRESS_INTERVAL_S",
    "BlockPlayer",
    "ProgressCallback",
    "RerunProgress",
    "SeasonProgress",
    "SeasonRun",
]

PROGRESS_INTERVAL_S: Final = 0.25


@dataclass(frozen=True, slots=True)
class RerunProgress:
    """The final rerun's part of a snapshot (:mod:`brandeln.ladder.season.rerun`)."""

    top: tuple[str, ...]  # the bots it is among
    blocks_done: int  # rerun blocks recorded, in all
    cap: int
    overlapping: tuple[tuple[str, str], ...]  # the pairs of them not yet told apart


@dataclass(frozen=True, slots=True)
class SeasonProgress:
    """A snapshot for a progress display."""

    blocks_done: int
    blocks_total: int
    deals: int  # deals played in this run
    deals_per_second: float
    leader: str | None  # best conservative rating so far
    leader_rating: float | None
    rerun: RerunProgress | None = None  # set once the final rerun has begun


ProgressCallback = Callable[[SeasonProgress], None]


class BlockPlayer(Protocol):
    """What plays a season's blocks: a referee through its Admin service
    (:func:`brandeln.ladder.season.runner.run_season`), or any other executor (the cluster's, beside
    the CLI), handed to :func:`brandeln.ladder.season.runner.run_blocks`, which claims, records and
    rates."""

    @property
    def workers(self) -> int:
        """How many blocks it plays at once."""
        ...

    async def play_block(self, plan: BlockPlan, on_deal: Callable[[], None]) -> list[MatchOutcome]:
        """Every match of ``plan`` (``on_deal`` after each deal, where it can tell), or raise."""
        ...


class SeasonRun:
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
        # Set by the final rerun (brandeln.ladder.season.rerun) when it begins: its blocks count
        # there.
        self.rerun: RerunProgress | None = None

    async def play(self, player: BlockPlayer, pending: Sequence[BlockPlan]) -> None:
        config = self.config
        by_index = {plan.index: plan for plan in pending}
        season = config.name

        async def play_blocks() -> None:
            # Claim a block, play it, record it; until no block is left to claim. The claim is
            # a transaction in the database, so other runners of the season share the blocks.
            while True:
                index = await finish_in_thread(self.store.blocks.claim_block, season, self.runner)
                if index is None:
                    return
                plan = by_index.get(index)
                if plan is None:  # recorded meanwhile by another run: nothing to play
                    continue
                await self.play_one(player, plan)

        async with self.heartbeating():
            await all_or_nothing([play_blocks() for _ in range(player.workers)])
        claims = await asyncio.to_thread(self.store.blocks.claims, season)
        self.blocks_elsewhere = sum(
            1
            for state, holder in claims.values()
            if state is ClaimState.CLAIMED and holder != self.runner
        )

    async def play_one(self, player: BlockPlayer, plan: BlockPlan) -> None:
        """Play a claimed block and record it."""
        outcomes = await player.play_block(plan, self.deal_ended)
        await finish_in_thread(self.record, plan, outcomes)
        self.report(force=True)

    @asynccontextmanager
    async def heartbeating(self) -> AsyncIterator[None]:
        """The run's claims kept fresh while the body plays them."""

        async def heartbeat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_S)
                await asyncio.to_thread(self.store.blocks.heartbeat, self.config.name, self.runner)

        beating = asyncio.ensure_future(heartbeat())
        try:
            yield
        finally:
            beating.cancel()
            await asyncio.gather(beating, return_exceptions=True)

    def record(self, plan: BlockPlan, outcomes: list[MatchOutcome]) -> None:
        """Record a played block (in a worker thread: a database that is away is retried
        with backoff without stopping the matches in flight)."""
        outcomes.sort(key=lambda outcome: outcome.plan.rotation)
        results = block_results(plan, outcomes)
        record_and_rate(
            self.store, self.config.name, plan, outcomes, results, self.model.rate_block
        )
        if self.rerun is None:
            self.blocks_done += 1
        else:
            self.rerun = replace(self.rerun, blocks_done=self.rerun.blocks_done + 1)
        self.blocks_played += 1
        # The pointer printed at the end names the last match of the highest block this run
        # recorded, not of whichever block finished last: with several workers that order is
        # a race, and a pointer should not change between two runs of one season.
        if plan.index > self._last_block_index:
            self._last_block_index = plan.index
            self.last_match_id = outcomes[-1].match_id
        self._leader = _leader(self.store.reads.ratings(self.config.name))

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
                rerun=self.rerun,
            )
        )


def _leader(ratings: Sequence[RatingRow]) -> RatingRow | None:
    """The best conservative rating among the bots rated so far."""
    rated = [row for row in ratings if row.blocks]
    return max(rated, key=lambda row: (row.rating.conservative, row.bot), default=None)

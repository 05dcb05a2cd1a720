"""One worker slot of a cluster season: an embedded referee and the season's command bots on
this node, playing whole blocks.

The bots connect to the referee on 127.0.0.1 of their own node: they never cross the network
to a referee on another machine. The referee keeps its sessions in memory and its matches and
logs in the shared PostgreSQL database, as every worker's does. The bots are started with
``die_with_parent``: if the worker's process dies (its node lost, the actor killed), the kernel
kills them too.

>>> async def example(spec, plan):                         # doctest: +SKIP
...     async with BlockWorker(spec) as worker:
...         played = await worker.play(plan)
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.cluster.spec import WorkerSpec
from brandeln.ladder.bots.processes import stop_orphans
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome
from brandeln.ladder.season.runner import RefereeBlocks, launched_bots
from brandeln.ladder.store.database import token_hash

__all__ = ["BlockWorker", "PlayedBlock"]


@dataclass(frozen=True, slots=True)
class PlayedBlock:
    """A block's outcomes, and where it was played (for the driver's messages)."""

    index: int
    outcomes: list[MatchOutcome]
    node: str  # the worker's host name and its address as seen by its referee

    @property
    def deals(self) -> int:
        return sum(outcome.deals_played for outcome in self.outcomes)


class BlockWorker:
    """Start with ``async with`` (the referee, then the bots, which must all connect), then
    :meth:`play` blocks one after another; leaving stops the bots and the referee."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.node = socket.gethostname()
        self._stack = contextlib.AsyncExitStack()
        self._blocks: RefereeBlocks | None = None

    async def __aenter__(self) -> BlockWorker:
        spec = self.spec
        work = Path(spec.work_dir)
        try:
            referee = await self._stack.enter_async_context(
                EmbeddedReferee(work / "referee", database=spec.database)
            )
            admin = await self._stack.enter_async_context(
                AdminClient(referee.address, referee.admin_token)
            )
            # A worker of this season that died on this node left no bot (die_with_parent),
            # unless the kernel is not Linux: then its bots are found by their tokens.
            await stop_orphans(token_hash(token) for token in spec.tokens.values())
            processes = await self._stack.enter_async_context(
                launched_bots(
                    admin,
                    spec.config,
                    referee.address,
                    spec.bot_ids,
                    spec.tokens,
                    work / "bots",
                    die_with_parent=True,
                )
            )
        except BaseException:
            await self._stack.aclose()
            raise
        self._blocks = RefereeBlocks(admin, spec.config, spec.bot_ids, processes)
        return self

    async def play(self, plan: BlockPlan, deals: int | None = None) -> PlayedBlock:
        """Play every match of ``plan`` (``deals`` per match: the season's unless given, as
        an always-on ladder's challenge asks); raises the ladder's error when a bot fails."""
        blocks = self._blocks
        if blocks is None:
            raise RuntimeError("BlockWorker.play before it was started")
        if deals is not None and deals != blocks.config.deals_per_match:
            config = dataclasses.replace(blocks.config, deals_per_match=deals)
            blocks = RefereeBlocks(blocks.admin, config, blocks.bot_ids, blocks.processes)
        outcomes = await blocks.play_block(plan, lambda: None)
        return PlayedBlock(plan.index, outcomes, self.node)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._blocks = None
        await self._stack.aclose()

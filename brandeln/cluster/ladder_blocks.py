"""An always-on ladder on a Ray cluster (``brandeln ladder serve --cluster``).

:class:`ClusterLadder` is both seams of :class:`brandeln.ladder.living.ladder.LivingLadder`
(:mod:`brandeln.ladder.living.play`): it plays each block on a Ray actor
(:mod:`brandeln.cluster.ray_blocks`, each actor an embedded referee and the ladder's command
versions on its node, as a cluster season's) and tells presence without a referee to ask.

- **Who plays.** Every active *command* version (``bots version add ... --command``) runs on
  every actor under its own bot id, with a fresh token registered in the shared PostgreSQL
  database (:func:`brandeln.cluster.driver.register_tokens`). When the set of those versions changes
  (one published or retired), the actors are rebuilt between blocks: the blocks in flight finish
  first, then the actors stop and new ones start with the new set.
- **Presence.** A command version is idle whenever it is not seated in a block in flight and
  opens the sessions a block's matches at once need (each actor has its own copy of it). A
  version that connects by itself holds its sessions at one referee: it cannot follow the
  blocks from node to node, so it is skipped (away), and said once, in the log and as its last
  error (``ladder status``). So is a version whose program a node lacks, whose bot id the
  database does not know, or whose process exits before connecting: not launched again in this
  run (it would fail every block it sits in), as a local ladder does.
- **Faults.** A block lost with its actor's node goes to the next actor (:class:`RayBlocks`);
  a block that cannot be finished is given back to the ladder, which plans it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from brandeln.cluster.bot_files import absolute_paths
from brandeln.cluster.driver import register_tokens
from brandeln.cluster.errors import ClusterError, NodeNotReadyError
from brandeln.cluster.spec import WorkerSpec
from brandeln.ladder.errors import BlockFailedError, BotStartError, LadderError
from brandeln.ladder.living.config import LadderConfig
from brandeln.ladder.living.play import Seen
from brandeln.ladder.season.config import CommandBot
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome
from brandeln.ladder.season.settings import SeasonConfig
from brandeln.ladder.store.database import LadderStore, LadderVersion
from brandeln.ladder.store.schema import Presence
from brandeln.ladder.tasks import finish_in_thread

if TYPE_CHECKING:
    from brandeln.cluster.ray_blocks import RayBlocks

__all__ = ["ClusterLadder", "cluster_ladder"]

log = logging.getLogger("brandeln.cluster.ladder")

SELF_CONNECTING = (
    "it connects by itself, at one referee: a ladder on a cluster seats only the versions it "
    "launches (publish one with --command, or serve the ladder without --cluster)"
)

# What the actors run: each command version's name, bot id, program and sessions.
Launched = tuple[tuple[str, str, tuple[str, ...], int], ...]


class ClusterLadder:
    """The ladder's block player and presence source on Ray actors (see the module)."""

    def __init__(
        self, config: LadderConfig, store: LadderStore, database: str, slots: int, work_dir: str
    ) -> None:
        self.config = config
        self.store = store
        self.database = database
        self.slots = slots
        self.work_dir = work_dir
        self.nodes = 0
        self._blocks: RayBlocks | None = None
        self._launched: Launched = ()
        self._generation = contextlib.AsyncExitStack()
        self._changing = asyncio.Condition()
        self._in_flight = 0
        self._said: set[str] = set()  # the versions skipped, said once each
        self._ended: set[str] = set()  # not launched again in this run

    async def presence(
        self, versions: Sequence[LadderVersion], playing: set[str], need: int
    ) -> Seen:
        seen: Seen = {}
        for version in versions:
            if not version.active:
                continue
            if version.command is None:
                await self._skip(version.name, SELF_CONNECTING)
            elif version.command.tables < need:
                await self._skip(
                    version.name,
                    f"it opens {version.command.tables} session(s); the ladder plays "
                    f"{need} of a block's matches at once (--matches-at-once)",
                )
            tables = 0 if version.command is None else version.command.tables
            if version.name in playing:
                seen[version.name] = (Presence.PLAYING, tables)
            elif tables >= need and version.name not in self._ended:
                seen[version.name] = (Presence.IDLE, tables)
            else:
                seen[version.name] = (Presence.AWAY, tables)
        return seen

    async def play_block(
        self, season: SeasonConfig, versions: Sequence[LadderVersion], plan: BlockPlan
    ) -> list[MatchOutcome]:
        async with self._actors(self._wanted(versions)) as blocks:
            try:
                return await blocks.play_block(plan, lambda: None, season.deals_per_match)
            except BotStartError as error:
                # A version that cannot start (or exits before connecting) would fail every
                # block again: the actors are rebuilt without it at the next block.
                for name, *_ in self._launched:
                    if repr(name) in str(error):
                        self._ended.add(name)
                        await self._skip(name, f"not launched again in this run: {error}")
                raise
            except ClusterError as error:  # given back, planned again later
                raise BlockFailedError(str(error)) from None

    def status(self) -> str:
        busy = self._blocks.status() if self._blocks is not None else "no actors yet"
        return f"{self.slots} worker slots: {busy}"

    def _wanted(self, versions: Sequence[LadderVersion]) -> Launched:
        return tuple(
            (v.name, v.bot_id, v.command.argv, v.command.tables)
            for v in sorted(versions, key=lambda v: v.name)
            if v.active and v.command is not None and v.name not in self._ended
        )

    @asynccontextmanager
    async def _actors(self, wanted: Launched) -> AsyncIterator[RayBlocks]:
        """The actors running ``wanted``: rebuilt once no block is in flight on the old ones."""
        async with self._changing:
            await self._changing.wait_for(lambda: self._launched == wanted or self._in_flight == 0)
            if self._blocks is None or self._launched != wanted:
                await self._rebuild(wanted)
            blocks = self._blocks
            if blocks is None:
                raise BlockFailedError("no command version can run on the cluster now")
            self._in_flight += 1
        try:
            yield blocks
        finally:
            async with self._changing:
                self._in_flight -= 1
                self._changing.notify_all()

    async def _rebuild(self, wanted: Launched) -> None:
        from brandeln.cluster import ray_blocks  # noqa: PLC0415 - Ray, only for --cluster

        await self.close()
        base = Path.cwd()  # relative file names name the same files on every node
        bots = []
        for name, _, argv, tables in wanted:
            bot = CommandBot(name, absolute_paths(argv, base), tables)
            try:
                self.nodes = await asyncio.to_thread(ray_blocks.check_nodes, [bot])
            except NodeNotReadyError as error:
                self._ended.add(name)
                await self._skip(name, str(error))
                continue
            bots.append(bot)
        ids = {name: bot_id for name, bot_id, _, _ in wanted}
        tokens, unknown = await register_tokens(ids, self.database)
        for name in unknown:
            self._ended.add(name)
            await self._skip(name, "its bot id is not registered in the ladder's database")
        bots = [bot for bot in bots if bot.name in tokens]
        self._launched = wanted  # what was asked: asked again only when it changes
        if not bots:
            return
        season = replace(self.config.season([]), bots=tuple(bots))
        bot_ids = {bot.name: ids[bot.name] for bot in bots}
        spec = WorkerSpec(season, bot_ids, tokens, self.database, self.work_dir)
        blocks = await self._generation.enter_async_context(ray_blocks.ray_blocks(spec, self.slots))
        blocks.nodes = self.nodes
        self._blocks = blocks
        log.info(
            "%d actor(s) running %s",
            self.slots,
            ", ".join(bot.name for bot in bots),
            extra={"event": "cluster_actors"},
        )

    async def _skip(self, name: str, detail: str) -> None:
        """Say once, in the log and as the version's last error, why it is not seated."""
        if name in self._said:
            return
        self._said.add(name)
        log.warning("%s skipped: %s", name, detail, extra={"event": "version_skipped"})
        with contextlib.suppress(LadderError):  # said in the log already
            await finish_in_thread(
                self.store.presence.version_error, self.config.name, name, detail
            )

    async def close(self) -> None:
        """Stop the actors (their bots and referees)."""
        self._blocks = None
        self._launched = ()
        generation, self._generation = self._generation, contextlib.AsyncExitStack()
        await generation.aclose()


@asynccontextmanager
async def cluster_ladder(
    config: LadderConfig,
    store: LadderStore,
    *,
    address: str,
    database: str,
    slots: int | None = None,
    work_dir: str,
) -> AsyncIterator[ClusterLadder]:
    """Join the Ray cluster at ``address`` and yield the ladder's player there (``slots``
    actors, default one per CPU of the cluster); its actors are stopped on the way out."""
    import ray  # noqa: PLC0415 - the optional extra, only for --cluster

    from brandeln.cluster import ray_blocks  # noqa: PLC0415

    await asyncio.to_thread(ray_blocks.connect, address)
    try:
        count = slots or ray_blocks.cluster_cpus()
        on_cluster = ClusterLadder(config, store, database, count, work_dir)
        on_cluster.nodes = len(ray_blocks.alive_nodes())
        try:
            yield on_cluster
        finally:
            await on_cluster.close()
    finally:
        ray.shutdown()

"""Playing blocks on Ray actors: one actor per worker slot, each a :class:`BlockWorker`.

Imported only for ``--cluster`` (Ray is the optional extra ``brandeln-arena[cluster]``).

**Faults.** The actors are restartable (``max_restarts=-1``) and need no CPU reservation, so
an actor whose node died is started again on a node that lives; the block it was playing is
lost with it and goes back to the next free actor, to be played again from its start. The
driver records a block only when its outcomes come back, so a lost block is counted once, by
the run that finishes it. The actors belong to the driver's job: if the driver dies, Ray stops
them, and their bots die with them (``die_with_parent``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import ray
import ray.exceptions
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from brandeln.cluster.bot_files import missing
from brandeln.cluster.errors import ClusterError, ClusterUnreachableError, NodeNotReadyError
from brandeln.cluster.spec import WorkerSpec
from brandeln.cluster.worker import BlockWorker, PlayedBlock
from brandeln.ladder.errors import LadderError
from brandeln.ladder.season.config import CommandBot
from brandeln.ladder.season.duplicate import BlockPlan, MatchOutcome

__all__ = ["RayBlocks", "connect", "ray_blocks"]

# A block whose worker dies this often is not the nodes' bad luck: stop and say so.
MAX_LOSSES_PER_BLOCK: Final = 6
# Before a lost block goes to the next actor, while Ray restarts one. The pause doubles with
# each loss: on a busy cluster Ray can take tens of seconds to mark a node dead and restart its
# actors elsewhere, and every call to them fails at once meanwhile (1+2+4+8+16 s = 31 s in all).
RETRY_PAUSE_S: Final = 1.0
RETRY_PAUSE_MAX_S: Final = 16.0
NODES_POLL_S: Final = 2.0
PROBE_TIMEOUT_S: Final = 5.0
STOP_TIMEOUT_S: Final = 20.0
log = logging.getLogger("brandeln.cluster")


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``ray://HOST:PORT`` through Ray Client,
    ``HOST:PORT`` of its GCS, or ``auto``: the cluster running on this machine)."""
    _probe(address)
    try:
        ray.init(
            address=address,
            log_to_driver=False,  # the actors' output stays in Ray's logs, not in our terminal
            configure_logging=False,
            include_dashboard=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as error:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ClusterUnreachableError(
            f"cannot join the Ray cluster at {address}: {detail} (start one with `ray start "
            "--head`, see the README's cluster section)"
        ) from None


def _probe(address: str) -> None:
    """Fail in seconds, not after Ray's minutes of retries, when nothing listens there."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterUnreachableError(
            f"--cluster {address!r}: expected ray://HOST:PORT, HOST:PORT or auto"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S).close()
    except OSError as error:
        raise ClusterUnreachableError(
            f"cannot join the Ray cluster at {address}: {error.strerror or error} (is `ray "
            "start --head` running there? see the README's cluster section)"
        ) from None


def alive_nodes() -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    return [node for node in nodes if node.get("Alive")]


def _node_name(node: dict[str, Any]) -> str:
    return f"{node.get('NodeManagerHostname', '?')} ({node.get('NodeManagerAddress', '?')})"


@ray.remote(num_cpus=0)
def _check_here(commands: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    return [
        f"bot {name!r}: {problem}" for name, command in commands for problem in missing(command)
    ]


def check_nodes(bots: Sequence[CommandBot]) -> int:
    """Run :func:`~brandeln.cluster.bot_files.missing` for every command bot on every live node;
    raise :class:`NodeNotReadyError` naming the node and what it lacks. Returns the nodes."""
    commands = [(bot.name, bot.command) for bot in bots]
    nodes = alive_nodes()
    checks = [
        _check_here.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        ).remote(commands)
        for node in nodes
    ]
    for node, problems in zip(nodes, ray.get(checks), strict=True):
        if problems:
            raise NodeNotReadyError(
                f"node {_node_name(node)} cannot run the season's bots: {'; '.join(problems)} "
                "(install the project there, or put the bots on a path every node shares)"
            )
    return len(nodes)


class _BlockActor:
    """A worker slot: starts its :class:`BlockWorker` at its first block (again after a
    restart, on whichever node Ray chose) and keeps it for the next blocks."""

    def __init__(self, spec: WorkerSpec, slot: int) -> None:
        work_dir = Path(spec.work_dir) / spec.config.name / f"slot-{slot}"
        self.spec = dataclasses.replace(spec, work_dir=str(work_dir))
        self.worker: BlockWorker | None = None

    async def play(self, plan: BlockPlan, deals: int | None = None) -> PlayedBlock:
        if self.worker is None:
            worker = BlockWorker(self.spec)
            await worker.__aenter__()
            self.worker = worker
        return await self.worker.play(plan, deals)

    async def stop(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            await worker.__aexit__(None, None, None)

    def node(self) -> str:
        return socket.gethostname()


_RemoteActor = ray.remote(max_restarts=-1, max_task_retries=0, num_cpus=0)(_BlockActor)


class RayBlocks:
    """A :class:`~brandeln.ladder.season.runner.BlockPlayer` over ``actors``: each block goes to a
    free actor; a block lost with its actor's node goes to the next free one."""

    def __init__(self, actors: Sequence[Any]) -> None:
        self.actors = list(actors)
        self._idle: asyncio.Queue[Any] = asyncio.Queue()
        for actor in self.actors:
            self._idle.put_nowait(actor)
        self.busy = 0
        self.nodes = 0
        self.lost_blocks = 0

    @property
    def workers(self) -> int:
        return len(self.actors)

    def status(self) -> str:
        """For the progress bar: how many nodes live and how many actors play."""
        return f"{self.nodes} nodes, {self.busy}/{self.workers} actors busy"

    async def play_block(
        self, plan: BlockPlan, on_deal: Callable[[], None], deals: int | None = None
    ) -> list[MatchOutcome]:
        """Play ``plan`` on a free actor (``deals`` per match: the spec's season's unless
        given); on a lost actor, again on the next."""
        for losses in range(MAX_LOSSES_PER_BLOCK):
            actor = await self._idle.get()
            self.busy += 1
            try:
                played: PlayedBlock = await actor.play.remote(plan, deals)
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as error:
                self.lost_blocks += 1
                log.warning(
                    "block %d was lost with its worker (%s): playing it again",
                    plan.index,
                    type(error).__name__,
                )
                if losses + 1 < MAX_LOSSES_PER_BLOCK:
                    await asyncio.sleep(min(RETRY_PAUSE_S * 2**losses, RETRY_PAUSE_MAX_S))
                continue
            except ray.exceptions.RayTaskError as error:
                raise _cause(error) from None
            finally:
                self.busy -= 1
                self._idle.put_nowait(actor)
            for _ in range(played.deals):
                on_deal()
            return played.outcomes
        raise ClusterError(
            f"block {plan.index} lost its worker {MAX_LOSSES_PER_BLOCK} times; see Ray's logs "
            "(`ray status`, the nodes' /tmp/ray/session_latest/logs)"
        )

    async def watch_nodes(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a status line is not worth failing for
                self.nodes = len(await asyncio.to_thread(alive_nodes))
            await asyncio.sleep(NODES_POLL_S)

    async def stop(self) -> None:
        """Stop every actor's bots and referee, then the actors."""
        stops = [actor.stop.remote() for actor in self.actors]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*stops, return_exceptions=True), STOP_TIMEOUT_S)
        for actor in self.actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)


def _cause(error: ray.exceptions.RayTaskError) -> Exception:
    """The error an actor raised, as the driver reports it (a bot that failed on a node)."""
    cause = error.cause
    if isinstance(cause, LadderError | ClusterError):
        return cause
    detail = str(cause) if cause is not None else str(error).strip().splitlines()[-1]
    return ClusterError(f"a cluster worker failed: {detail}")


@asynccontextmanager
async def ray_blocks(spec: WorkerSpec, slots: int) -> AsyncIterator[RayBlocks]:
    """``slots`` actors spread over the nodes, stopped on the way out."""
    actors = [
        _RemoteActor.options(scheduling_strategy="SPREAD").remote(spec, slot)
        for slot in range(slots)
    ]
    blocks = RayBlocks(actors)
    watching = asyncio.ensure_future(blocks.watch_nodes())
    try:
        yield blocks
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
        await blocks.stop()


def cluster_cpus() -> int:
    """The live nodes' CPUs: the default number of worker slots."""
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1)))

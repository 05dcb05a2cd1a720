"""The driver of a cluster season: the only writer of results and ratings.

It joins the Ray cluster, checks that every live node can start the season's command bots,
registers the bots once (their identities are shared by every node's referee through the
PostgreSQL database), starts one actor per worker slot and hands the ladder's block loop
(:func:`brandeln.ladder.season.runner.run_blocks`) a player that sends each block to a free actor.
The loop claims blocks in the ladder database, records each finished block in one transaction and
rates in block order, exactly as a local run does: so a season gives the same results and
ratings on one machine and on a cluster of any size, and a driver killed and started again
resumes from the database (its dead run's claims are taken over).

>>> async def example(config, store):                       # doctest: +SKIP
...     await run_cluster_season(config, store, address="auto",
...                              database="postgresql+psycopg://u@db/brandeln")
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.cluster.bot_files import absolute_paths
from brandeln.cluster.errors import ClusterError
from brandeln.cluster.spec import WorkerSpec
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.config import CommandBot, ExternalBot, SeasonConfig
from brandeln.ladder.season.runner import (
    BlockPlayer,
    ProgressCallback,
    SeasonSummary,
    another_run_plays,
    run_blocks,
    season_identities,
)
from brandeln.ladder.store.database import LadderStore

__all__ = ["DEFAULT_WORKER_DATA", "register_tokens", "run_cluster_season"]

# On each worker node: the embedded referees' folders and the bots' logs, by season and slot.
DEFAULT_WORKER_DATA = str(Path(tempfile.gettempdir()) / "brandeln-worker")


async def run_cluster_season(
    config: SeasonConfig,
    store: LadderStore,
    *,
    address: str,
    database: str,
    slots: int | None = None,
    worker_data: str = DEFAULT_WORKER_DATA,
    progress: ProgressCallback | None = None,
    on_ready: Callable[[str, Callable[[], str]], None] | None = None,
) -> SeasonSummary:
    """Play the blocks of ``config`` not yet in ``store`` on the Ray cluster at ``address``.

    ``database`` is the PostgreSQL URL every node's referee uses (results and logs); ``slots``
    the number of actors (default: one per CPU of the cluster); ``on_ready(summary, status)``
    is called once the actors exist, ``status()`` then tells how many nodes and actors are
    busy. Raises :class:`ClusterError` or a ladder error; recorded blocks stay recorded.
    """
    refuse_external_bots(config)

    def open_player() -> AbstractAsyncContextManager[BlockPlayer]:
        return _cluster_player(config, store, address, database, slots, worker_data, on_ready)

    return await run_blocks(config, store, open_player, progress=progress)


def refuse_external_bots(config: SeasonConfig) -> None:
    """A bot that connects by itself holds sessions at one referee: it cannot follow the
    blocks from node to node."""
    external = [bot.name for bot in config.bots if isinstance(bot, ExternalBot)]
    if external:
        raise ClusterError(
            f"bots that connect by themselves ({', '.join(map(repr, external))}) play at one "
            "referee: run this season without --cluster, or give them a command"
        )


@asynccontextmanager
async def _cluster_player(
    config: SeasonConfig,
    store: LadderStore,
    address: str,
    database: str,
    slots: int | None,
    worker_data: str,
    on_ready: Callable[[str, Callable[[], str]], None] | None,
) -> AsyncIterator[BlockPlayer]:
    import ray  # noqa: PLC0415 - the optional extra, only for --cluster

    from brandeln.cluster import ray_blocks  # noqa: PLC0415

    ray_blocks.connect(address)
    try:
        # Relative file names in the season file name the same files on every node where the
        # project sits at the same path (the driver's current folder is not the workers').
        base = Path.cwd()
        portable = dataclasses.replace(
            config,
            bots=tuple(
                dataclasses.replace(bot, command=absolute_paths(bot.command, base))
                if isinstance(bot, CommandBot)
                else bot
                for bot in config.bots
            ),
        )
        nodes = ray_blocks.check_nodes(
            [bot for bot in portable.bots if isinstance(bot, CommandBot)]
        )
        bot_ids, tokens = await _register(config, store, database)
        spec = WorkerSpec(portable, bot_ids, tokens, database, worker_data)
        count = slots or ray_blocks.cluster_cpus()
        async with ray_blocks.ray_blocks(spec, count) as blocks:
            blocks.nodes = nodes
            if on_ready is not None:
                on_ready(f"{count} worker slots on {nodes} nodes", blocks.status)
            yield blocks
    finally:
        ray.shutdown()


async def _register(
    config: SeasonConfig, store: LadderStore, database: str
) -> tuple[dict[str, str], dict[str, str]]:
    """The season's bot ids and fresh tokens, from a referee of our own on the shared
    database (the workers' referees then know the bots too); only the tokens' hashes are
    stored."""
    async with _registrar(database) as admin:
        return await season_identities(
            admin, config, store, rotate=not another_run_plays(store, config.name)
        )


async def register_tokens(
    bot_ids: Mapping[str, str], database: str
) -> tuple[dict[str, str], list[str]]:
    """A fresh token for each bot id (by name), from a referee of our own on the shared
    database, as :func:`_register` gets a season's; and the names whose bot id the database
    does not know."""
    tokens: dict[str, str] = {}
    unknown: list[str] = []
    async with _registrar(database) as admin:
        for name, bot_id in sorted(bot_ids.items()):
            token = await admin.rotate_bot_token(bot_id)
            if token is None:
                unknown.append(name)
            else:
                tokens[name] = token
    return tokens, unknown


@asynccontextmanager
async def _registrar(database: str) -> AsyncIterator[AdminClient]:
    """The Admin service of a referee started here on ``database``, for as long as needed."""
    with tempfile.TemporaryDirectory(prefix="brandeln-driver-") as folder:
        async with (
            EmbeddedReferee(Path(folder), database=database) as referee,
            AdminClient(referee.address, referee.admin_token) as admin,
        ):
            yield admin

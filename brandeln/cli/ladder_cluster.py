"""`brandeln ladder serve --cluster`: the always-on ladder's blocks played on a Ray cluster
(:mod:`brandeln.cluster.ladder_blocks`), its command versions run on every worker slot; the loop,
the store and what it prints are a local ladder's (:mod:`brandeln.ladder.living.ladder`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from brandeln.cli.cluster_options import ClusterSettings
from brandeln.cli.ladder_view import metrics_server, printer
from brandeln.cli.options import DEFAULT_LADDER
from brandeln.cli.output import console, fail, hint
from brandeln.cli.service_options import MetricsAddress
from brandeln.cli.terminal_text import markup
from brandeln.engine.plurals import plural

if TYPE_CHECKING:
    from brandeln.ladder.living.config import LadderConfig
    from brandeln.ladder.store.database import LadderStore

__all__ = ["serve_on_cluster"]


async def serve_on_cluster(
    config: LadderConfig,
    store: LadderStore,
    settings: ClusterSettings,
    database: str,
    metrics: MetricsAddress | None,
    stop: asyncio.Event,
) -> None:
    """Serve ``config`` on the cluster of ``settings`` until ``stop`` is set; the actors,
    their referees and bots stopped whatever ends the run. A cluster's error is one line."""
    from brandeln.cluster.driver import DEFAULT_WORKER_DATA  # noqa: PLC0415 - Ray, only for --cluster
    from brandeln.cluster.errors import ClusterError  # noqa: PLC0415
    from brandeln.cluster.ladder_blocks import cluster_ladder  # noqa: PLC0415
    from brandeln.ladder.living.ladder import LivingLadder  # noqa: PLC0415

    try:
        async with cluster_ladder(
            config,
            store,
            address=settings.address,
            database=database,
            slots=settings.slots,
            work_dir=settings.worker_data or DEFAULT_WORKER_DATA,
        ) as on_cluster:
            ladder = LivingLadder(
                config,
                store,
                None,
                listener=printer(config),
                player=on_cluster,
                presence=on_cluster,
            )
            server = None if metrics is None else metrics_server(ladder, None, metrics)
            if server is not None:
                console.print(f"metrics on {markup(server.url)} (Prometheus, plain HTTP)")
            try:
                console.print(
                    f"ladder {markup(config.name)} ({markup(config.ruleset)}, "
                    f"{plural(config.deals_per_match, 'deal')} a match) is serving on the Ray "
                    f"cluster {markup(settings.address)} "
                    f"({plural(on_cluster.slots, 'worker slot')} on "
                    f"{plural(on_cluster.nodes, 'node')}); Ctrl-C stops it"
                )
                where = f" --ladder {config.name}" if config.name != DEFAULT_LADDER else ""
                hint(
                    "publish a version it launches on every slot (one that connects by itself "
                    "cannot play on a cluster)",
                    f"brandeln bots version add BOT VERSION{where} --db <the same database URL> "
                    '--command "python -m brandeln.cli bot run heuristic --server {server} '
                    '--token {token}"',
                )
                await ladder.serve(stop)
            finally:
                if server is not None:
                    await asyncio.to_thread(server.stop)
            console.print(
                f"ladder {markup(config.name)} stopped after "
                f"{plural(ladder.blocks_recorded, 'block')} this run"
            )
    except ClusterError as error:
        raise fail(str(error)) from None

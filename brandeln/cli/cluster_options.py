"""``--cluster``, ``--slots`` and ``--worker-data``: the options of ``season run`` and
``ladder serve`` that play their blocks on a Ray cluster, and the one check of them both
commands make before anything is opened."""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Annotated

import typer

from brandeln.cli.db_option import is_postgresql
from brandeln.cli.output import fail

__all__ = [
    "ClusterOption",
    "ClusterSettings",
    "SlotsOption",
    "WorkerDataOption",
    "cluster_settings",
]

ClusterOption = Annotated[
    str | None,
    typer.Option(
        help="Play the blocks on a Ray cluster: ray://HOST:PORT (Ray Client), HOST:PORT "
        "(its GCS) or auto (the one running here). Needs --db postgresql://... and the "
        "cluster extra (pip install 'brandeln-arena[cluster]').",
        show_default=False,
    ),
]
SlotsOption = Annotated[
    int | None,
    typer.Option(
        help="--cluster: worker slots (actors, each a referee and the bots); default "
        "one per CPU of the cluster.",
        min=1,
        show_default=False,
    ),
]
WorkerDataOption = Annotated[
    str | None,
    typer.Option(
        help="--cluster: the folder on each node for its referees and the bots' logs "
        "[default: TMP/brandeln-worker].",
        show_default=False,
    ),
]


@dataclasses.dataclass(frozen=True)
class ClusterSettings:
    """``--cluster`` and its companions, checked."""

    address: str
    slots: int | None
    worker_data: str | None


def cluster_settings(
    address: str,
    slots: int | None,
    worker_data: str | None,
    db: str | None,
    referee: str | None,
    *,
    what: str = "season",
) -> ClusterSettings:
    """Refuse, in one line, what a cluster ``what`` (a season, a ladder) cannot do, before
    anything is opened."""
    if referee is not None:
        raise fail("--cluster and --referee exclude each other: each node runs its referees")
    if not is_postgresql(db):
        raise fail(
            f"a cluster {what} needs a database that every node reaches: give --db "
            "postgresql://USER@HOST/DB (a SQLite file is on one machine only)",
            code=2,
        )
    if not address.strip():
        raise fail("--cluster needs an address: ray://HOST:PORT, HOST:PORT or auto", code=2)
    if importlib.util.find_spec("ray") is None:
        raise fail(
            "--cluster needs Ray: pip install 'brandeln-arena[cluster]' (make install has it)"
        )
    return ClusterSettings(address.strip(), slots, worker_data)

"""What `brandeln ladder serve` tells as it works, on a referee or on a cluster: each block
as it is recorded or given back, how to publish a version to it, and its metrics served."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from brandeln.cli.options import DEFAULT_LADDER
from brandeln.cli.output import console, fail, hint
from brandeln.cli.service_options import MetricsAddress
from brandeln.cli.terminal_text import plain
from brandeln.cli.wrapped_text import Hanging

if TYPE_CHECKING:
    from prometheus_client.registry import Collector

    from brandeln.arena.referee import Referee
    from brandeln.ladder.living.config import LadderConfig, LadderEvent
    from brandeln.ladder.living.ladder import LivingLadder
    from brandeln.services.metrics.endpoint import MetricsServer

__all__ = ["hint_versions", "metrics_server", "printer"]


def metrics_server(
    ladder: LivingLadder, referee: Referee | None, metrics: MetricsAddress
) -> MetricsServer:
    """The ladder's metrics, and its own referee's beside them (prometheus_client imported
    only when they are asked for)."""
    from brandeln.services.metrics.endpoint import MetricsServer  # noqa: PLC0415
    from brandeln.services.metrics.ladder import LadderCollector  # noqa: PLC0415
    from brandeln.services.metrics.referee import RefereeCollector  # noqa: PLC0415

    collectors: list[Collector] = [LadderCollector(ladder.counts, ladder.store)]
    if referee is not None:
        collectors.append(RefereeCollector(referee))
    try:
        return MetricsServer(collectors, metrics.host, metrics.port, metrics.trusted_hosts)
    except OSError as error:
        raise fail(f"cannot serve metrics on {metrics.host}:{metrics.port}: {error}") from None


def hint_versions(
    name: str, address: str, referee: str | None, data: Path | None, db: str | None
) -> None:
    """How to publish a version and connect it, with this run's own options."""
    where = [f"--ladder {name}"] if name != DEFAULT_LADDER else []
    if data is not None:
        where.append(f"--data {data}")
    if db is not None:
        where.append("--db <the same database URL>")
    if referee is not None:
        where.append(f"--referee {referee}")
    hint("publish a bot version to it", " ".join(["brandeln bots version add BOT VERSION", *where]))
    hint(
        "then connect the bot with the token that prints (a sample bot here)",
        f"brandeln bot run heuristic --server {address} --token <token>",
    )


def printer(config: LadderConfig) -> Callable[[LadderEvent], None]:
    from brandeln.ladder.living.config import EventKind  # noqa: PLC0415

    def show(event: LadderEvent) -> None:
        bots = ", ".join(event.bots)
        what = f"block {event.block}"
        if event.challenge is not None:
            what += f" (challenge #{event.challenge}{'' if event.rated else ', unrated'})"
        if event.kind is EventKind.RECORDED:
            console.print(plain(f"{what} recorded: {bots}"))
        elif event.kind is EventKind.GIVEN_BACK:
            console.print(plain(f"{what} given back ({event.detail}): {bots}", style="yellow"))
        elif event.kind is EventKind.REFUSED:
            console.print(
                plain(f"challenge #{event.challenge} refused: {event.detail}", style="yellow")
            )
        elif event.kind is EventKind.COMMITTED:  # the digest, never cut, copies whole
            console.print(Hanging(event.detail))

    return show

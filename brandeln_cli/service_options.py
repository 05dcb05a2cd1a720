"""The options the two long-running services share (`brandeln serve`, `brandeln ladder
serve`): where their Prometheus metrics are served, and how their log records are written."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated, Any

import typer

__all__ = [
    "LogJsonOption",
    "LogLevel",
    "MetricsAddress",
    "MetricsHostOption",
    "MetricsPortOption",
    "log_level_option",
    "metrics_address",
]


class LogLevel(enum.StrEnum):
    """``--log-level``: the least severe of the service's log records written."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def number(self) -> int:
        """The level as the logging module numbers it."""
        import logging  # noqa: PLC0415

        return int(logging.getLevelName(self.name))


@dataclass(frozen=True)
class MetricsAddress:
    """Where ``--metrics-port`` serves ``/metrics``."""

    host: str
    port: int


def metrics_address(port: int | None, host: str | None, default_host: str) -> MetricsAddress | None:
    """``--metrics-port``/``--metrics-host`` as an address (None: no metrics)."""
    if port is None:
        return None
    return MetricsAddress(host if host is not None else default_host, port)


MetricsPortOption = Annotated[
    int | None,
    typer.Option(
        min=0,
        max=65535,
        help="Serve Prometheus metrics (the service's brandeln_* ones, and the process's) at "
        "http://HOST:PORT/metrics (0: a free port; the address is printed at start) "
        "[default: off].",
    ),
]
MetricsHostOption = Annotated[
    str | None,
    typer.Option(help="Address of --metrics-port [default: the service's, --host]."),
]
LogJsonOption = Annotated[
    bool,
    typer.Option(
        "--log-json",
        help="Write the log records as JSON, one object per line (ts, level, event, and the "
        "match, bot, session, seat or block they are about), instead of text. The lines "
        "above them (the address, the admin token) stay as they are.",
    ),
]


def log_level_option(what: str) -> Any:
    """``--log-level``, its help naming what the service's records are about (Any: what
    ``typer.Option`` returns, to go in an ``Annotated``)."""
    return typer.Option(
        case_sensitive=False,
        help=f"The least severe of the service's log records written to stderr ({what}).",
    )

"""The options the two long-running services share (`brandeln serve`, `brandeln ladder
serve`): where their Prometheus metrics are served, and how their log records are written."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from brandeln.cli.output import fail
from brandeln.services.trusted_hosts import TrustedHosts

__all__ = [
    "LogJsonOption",
    "LogLevel",
    "MetricsAddress",
    "MetricsAllowedHostOption",
    "MetricsHostOption",
    "MetricsPortOption",
    "log_level_option",
    "metrics_address",
    "trusted_hosts",
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
    """Where ``--metrics-port`` serves ``/metrics``, and the names it answers to."""

    host: str
    port: int
    trusted_hosts: TrustedHosts


def metrics_address(
    port: int | None,
    host: str | None,
    default_host: str,
    allowed_hosts: Sequence[str] | None = None,
) -> MetricsAddress | None:
    """``--metrics-port``/``--metrics-host``/``--metrics-allowed-host`` as an address (None:
    no metrics); a bad allowed host is a one-line usage error."""
    if port is None:
        if allowed_hosts:
            raise fail("--metrics-allowed-host goes with --metrics-port", code=2)
        return None
    bind = host if host is not None else default_host
    return MetricsAddress(bind, port, trusted_hosts(bind, allowed_hosts, "--metrics-allowed-host"))


def trusted_hosts(bind: str, allowed: Sequence[str] | None, option: str) -> TrustedHosts:
    """The names a server listening on ``bind`` answers to, with ``allowed`` (given with
    ``option``, which a one-line usage error names when one is no name)."""
    try:
        return TrustedHosts.for_bind(bind, allowed or ())
    except ValueError as error:
        raise fail(f"{option}: {error}", code=2) from None


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
MetricsAllowedHostOption = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics-allowed-host",
        help="A name --metrics-port is scraped by, NAME (at that port) or NAME:PORT; "
        "repeatable. It answers 127.0.0.1, localhost and [::1] always, any IP address too off "
        "loopback, and any other name with a 421 (a hostile site's DNS pointed here: DNS "
        "rebinding).",
    ),
]
LogJsonOption = Annotated[
    bool,
    typer.Option(
        "--log-json",
        help="Write the log records as JSON, one object per line (ts, level, event, and the "
        "match, bot, session, seat or block they are about), instead of text; every other "
        "line the command writes too (the address, the admin token: event output).",
    ),
]


def log_level_option(what: str) -> Any:
    """``--log-level``, its help naming what the service's records are about (Any: what
    ``typer.Option`` returns, to go in an ``Annotated``)."""
    return typer.Option(
        case_sensitive=False,
        help=f"The least severe of the service's log records written to stderr ({what}).",
    )

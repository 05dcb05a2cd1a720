"""The options several commands share, declared once so they read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

REFEREE_ENV = "BRANDELN_REFEREE"


def _referee(default: str) -> Any:  # typer.Option is typed as returning Any
    return typer.Option(
        "--referee",
        envvar=REFEREE_ENV,
        show_envvar=True,
        help=f"HOST:PORT of a running referee (admin token in $BRANDELN_ADMIN_TOKEN); {default}.",
    )


DataOption = Annotated[
    Path | None,
    typer.Option("--data", help="Data folder [default: ./brandeln-data or $BRANDELN_DATA]."),
]
# Where the commands that read matches and bots look without --referee.
RefereeOption = Annotated[str | None, _referee("default: read the local files")]
# `season run` without --referee plays against a referee of its own.
SeasonRefereeOption = Annotated[
    str | None, _referee("default: start an embedded referee on a free loopback port")
]
CaOption = Annotated[Path | None, typer.Option("--ca", help="CA file (PEM) for a TLS referee.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

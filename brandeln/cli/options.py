"""The options several commands share, declared once so they read the same everywhere."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from brandeln.services import data_folder

REFEREE_ENV = "BRANDELN_REFEREE"


def _referee(default: str) -> Any:  # typer.Option is typed as returning Any
    return typer.Option(
        "--referee",
        envvar=REFEREE_ENV,
        show_envvar=True,
        help=f"HOST:PORT of a running referee (admin token in ${data_folder.ADMIN_TOKEN_ENV}); "
        f"{default}.",
    )


DataOption = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help=f"Data folder [default: ./{data_folder.DEFAULT_DATA_DIR} or ${data_folder.DATA_ENV}].",
    ),
]
# Where the commands that read matches and bots look without --referee.
RefereeOption = Annotated[str | None, _referee("default: read the local files")]
# `season run` without --referee plays against a referee of its own.
SeasonRefereeOption = Annotated[
    str | None, _referee("default: start an embedded referee on a free loopback port")
]
CaOption = Annotated[Path | None, typer.Option("--ca", help="CA file (PEM) for a TLS referee.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

# An always-on ladder: `--name` in `brandeln ladder ...`, `--ladder` where a command is about
# something else on it (a version, a challenge).
DEFAULT_LADDER = "ladder"
LadderNameOption = Annotated[
    str, typer.Option("--name", help="The ladder (one data folder or database may hold several).")
]
LadderOption = Annotated[str, typer.Option("--ladder", help="The always-on ladder.")]


def referee_credentials(referee: str | None, ca: Path | None) -> tuple[str | None, bytes | None]:
    """``(admin token, CA certificates)`` for a command that drives a running referee: the
    token from $BRANDELN_ADMIN_TOKEN (required with ``--referee``), the CA file's bytes; a
    missing token or an unreadable file ends the command (exit code 2) with one line."""
    from brandeln.cli.output import fail  # noqa: PLC0415 - options stays import-light

    admin_token = None
    if referee is not None:
        admin_token = os.environ.get(data_folder.ADMIN_TOKEN_ENV)
        if not admin_token:
            raise fail(f"--referee needs the admin token in ${data_folder.ADMIN_TOKEN_ENV}", code=2)
    try:
        roots = ca.read_bytes() if ca else None
    except OSError as error:
        raise fail(f"cannot read the CA file {ca}: {error.strerror}", code=2) from None
    return admin_token, roots

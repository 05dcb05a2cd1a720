"""`brandeln db copy SRC DST`: both stores and every match log, SQLite <-> PostgreSQL.

The copy and its verification are brandeln.services.db_copy's (the CLI and the web front share the
services); this module parses the arguments and prints what was copied.
"""

from __future__ import annotations

from typing import Annotated

import typer

from brandeln.cli.output import console, fail
from brandeln.engine.plurals import plural

db_app = typer.Typer(help="Copy the stores between SQLite and PostgreSQL.", no_args_is_help=True)


@db_app.command("copy")
def copy(
    source: Annotated[str, typer.Argument(help="Data folder or postgresql:// URL to copy.")],
    destination: Annotated[
        str, typer.Argument(help="Data folder or postgresql:// URL to copy into (empty).")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Replace what the destination's stores hold.")
    ] = False,
) -> None:
    """Copy the referee's and the ladder's stores and every match log, then verify the copy
    row by row and byte by byte (SQLite <-> PostgreSQL).

    Stop the referees and season runs on both first. The source is opened through its
    migrations (an older file is upgraded in place first, as any command would).
    """
    from brandeln.services.db_copy import CopyError, copy_stores  # noqa: PLC0415 - keep --help fast

    try:
        copied = copy_stores(source, destination, force)
    except CopyError as error:
        raise fail(str(error)) from None
    from brandeln.cli.layout import compact_table, fixed  # noqa: PLC0415

    table = compact_table(title="copied and verified")
    fixed(table, "table")
    fixed(table, "rows", right=True)
    fixed(table, "bytes", right=True)
    for side, tally in copied.items():
        for name, rows in tally.rows.items():
            table.add_row(f"{side}.{name}", str(rows), "")
        if tally.logs or tally.missing_logs:
            table.add_row(f"{side} match logs", str(tally.logs), str(tally.log_bytes))
    console.print(table, soft_wrap=False)
    for side, tally in copied.items():
        if tally.missing_logs:
            console.print(
                f"{plural(len(tally.missing_logs), f'{side} match')} had no readable log to copy "
                f"(their rows are copied): {', '.join(tally.missing_logs[:5])}"
                + (", ..." if len(tally.missing_logs) > 5 else ""),
                highlight=False,
                markup=False,
            )

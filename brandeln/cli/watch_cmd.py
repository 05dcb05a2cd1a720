"""`brandeln watch MATCH_ID`: follow a match in the terminal, live from ``Admin.WatchMatch``.

A running match is followed as it is played (its events from the first, then live, until it
ends); a finished one is replayed from its log and the command ends. Only public information
is shown (``brandeln.cli.watch_view``). ``match run --watch`` uses :func:`follow` for the
match it starts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.options import CaOption, DataOption, RefereeOption
from brandeln.cli.output import console, fail
from brandeln.services import data_folder

if TYPE_CHECKING:
    from brandeln.arena.logreader import MatchLog
    from brandeln.cli.watch_view import WatchPrinter
    from brandeln.ladder.referee.admin_client import AdminClient
    from brandeln.ladder.referee.records import RefereeMatch

AdminTokenOption = Annotated[
    str | None,
    typer.Option(
        "--admin-token",
        envvar=data_folder.ADMIN_TOKEN_ENV,
        show_envvar=True,
        help="The referee's admin token, with --referee (the variable keeps it out of `ps`).",
    ),
]


async def follow(admin: AdminClient, match_id: str, printer: WatchPrinter) -> RefereeMatch:
    """Print match ``match_id``: live while it runs, else from its log; then its result."""
    from brandeln.arena.logreader import read_log  # noqa: PLC0415 - the arena loads slowly
    from brandeln.cli.watch_view import logged_events  # noqa: PLC0415
    from brandeln.ladder.errors import RefereeNotFoundError  # noqa: PLC0415
    from brandeln.protocol.statuses import MatchStatus  # noqa: PLC0415
    from brandeln.services.sources import get_match  # noqa: PLC0415

    summary, text = await get_match(admin, match_id)
    match_id = summary.match_id
    log = read_log(text, f"the log of match {match_id}")
    _start(printer, log)
    if summary.status is MatchStatus.RUNNING:
        try:
            async for event in admin.watch_match(match_id):
                printer.event(event)
        except RefereeNotFoundError:
            # It ended between the two calls: what it played is in its log now.
            summary, text = await admin.get_match(match_id)
            for event in logged_events(read_log(text, f"match {match_id}")):
                printer.event(event)
        summary, _ = await admin.get_match(match_id)
    else:
        for event in logged_events(log):
            printer.event(event)
    printer.result(summary)
    return summary


def _start(printer: WatchPrinter, log: MatchLog) -> None:
    header = log.header
    printer.names = [seat.bot_name for seat in header.seats]
    printer.header(header.match_id, header.ruleset_id, header.deals)


def watch(
    match_id: Annotated[str, typer.Argument(help="The match id (or a unique prefix of one).")],
    referee: RefereeOption = None,
    admin_token: AdminTokenOption = None,
    ca: CaOption = None,
    data: DataOption = None,
) -> None:
    """Follow a match live: every bid, each trick as it falls, each deal's settlement.

    Public information only: no hand is shown while its deal is live. A finished match is
    replayed from its log. Without --referee the match is looked up in the local data folder;
    a match running on a local referee is followed there (with its admin token).
    """
    from brandeln.cli.watch_view import WatchPrinter  # noqa: PLC0415

    printer = WatchPrinter(console, [])
    if referee is None:
        referee = _local_referee_of(match_id, data, admin_token, printer)
        if referee is None:
            return
    if not admin_token:
        raise fail(
            f"--referee needs the admin token (--admin-token or ${data_folder.ADMIN_TOKEN_ENV})"
        )
    _follow_remote(referee, admin_token, ca, match_id, printer)


def _follow_remote(
    referee: str, admin_token: str, ca: Path | None, match_id: str, printer: WatchPrinter
) -> None:
    import asyncio  # noqa: PLC0415

    from brandeln.ladder.errors import LadderError  # noqa: PLC0415
    from brandeln.ladder.referee.admin_client import AdminClient  # noqa: PLC0415
    from brandeln.services.sources import SourceError  # noqa: PLC0415

    try:
        root_certificates = ca.read_bytes() if ca else None
    except OSError as error:
        raise fail(f"cannot read the CA file {ca}: {error.strerror}", code=2) from None

    async def run() -> None:
        async with AdminClient(referee, admin_token, root_certificates=root_certificates) as admin:
            await follow(admin, match_id, printer)

    try:
        asyncio.run(run())
    except (LadderError, SourceError) as error:  # SourceError: an ambiguous id prefix
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _local_referee_of(
    match_id: str, data: Path | None, admin_token: str | None, printer: WatchPrinter
) -> str | None:
    """Replay a finished local match (None), or the address of the local referee running it."""
    from brandeln.arena.datalock import current_holder  # noqa: PLC0415
    from brandeln.arena.logreader import MatchLogError, read_log  # noqa: PLC0415
    from brandeln.cli.watch_view import logged_events  # noqa: PLC0415
    from brandeln.protocol.statuses import MatchStatus  # noqa: PLC0415
    from brandeln.services.sources import LocalSource, SourceError  # noqa: PLC0415

    try:
        source = LocalSource(data)
        store, full_id = source.resolve_match(match_id)
        record, text = source.match(full_id)
        log = read_log(text, record.log_path)
    except (SourceError, MatchLogError) as error:
        raise fail(str(error)) from None
    if record.status == MatchStatus.RUNNING:
        holder = current_holder(store.path)
        if holder is None or not holder.address:
            raise fail(
                f"match {full_id} is marked running but no referee holds {store.path}: "
                "it was cut off (the referee's next start marks it aborted)"
            )
        if store.path == data_folder.referee_db(data_folder.embedded_dir(data)):
            raise fail(
                f"match {full_id} is running on an embedded referee ({holder.describe()}), "
                "whose admin token lives only in that process: start it with "
                "`brandeln match run ... --watch` to follow it"
            )
        if not (admin_token or os.environ.get(data_folder.ADMIN_TOKEN_ENV)):
            raise fail(
                f"match {full_id} is running on the referee at {holder.address}: follow it "
                f"with its admin token (--admin-token or ${data_folder.ADMIN_TOKEN_ENV})"
            )
        return holder.address
    _start(printer, log)
    for event in logged_events(log):
        printer.event(event)
    printer.result(record)
    return None

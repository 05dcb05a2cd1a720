"""`brandeln season verify NAME`: a season checked from its stored data and match logs alone
(:mod:`brandeln.services.verify.season`), mounted on ``season_app`` by
:mod:`brandeln.cli.season_cmd`.

The ladder's database is where ``season run`` put it (``--db``, else ``DATA/ladder.db``); the
logs are the local referees' (the data folder's, or the PostgreSQL ``--db`` holding both).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Annotated

import typer

from brandeln.cli.db_option import DbOption, is_postgresql, ladder_database
from brandeln.cli.options import DataOption
from brandeln.cli.output import console, errors, fail
from brandeln.cli.terminal_text import json_text, plain
from brandeln.engine.plurals import plural

if TYPE_CHECKING:
    from brandeln.services.verify.matches import FetchedLog, Stage
    from brandeln.services.verify.season import VerifyReport

__all__ = ["season_verify"]


def season_verify(
    name: Annotated[str, typer.Argument(help="The season (or always-on ladder) to verify.")],
    data: DataOption = None,
    db: DbOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the report as JSON (verdict, counts, stages, the first difference).",
        ),
    ] = False,
) -> None:
    """Check a season from its stored data and match logs alone: the revealed seed against
    its commitment, every deal against the seed, every log replayed through the engine, every
    stored result, rating and total recomputed, bit for bit.

    Exit 0 when everything is verified; exit 1 naming the first thing that differs (season,
    block, match, deal, field), or when the seed is not revealed yet (a season still being
    played: the rest is checked and the report says what was not).
    """
    from brandeln.ladder.errors import LadderError  # noqa: PLC0415 - keep --help fast
    from brandeln.ladder.store.database import LadderStore  # noqa: PLC0415
    from brandeln.services.sources import SourceError, open_source  # noqa: PLC0415
    from brandeln.services.verify.matches import FetchedLog, LogUnavailableError  # noqa: PLC0415
    from brandeln.services.verify.season import SeasonVerdict, verify_season  # noqa: PLC0415

    try:
        source = open_source(data, None, db=db if is_postgresql(db) else None)
    except SourceError as error:
        raise fail(str(error)) from None

    def fetch(match_id: str) -> FetchedLog:
        try:
            record, text = source.match(match_id)
        except SourceError as error:
            raise LogUnavailableError(str(error)) from None
        return FetchedLog(text, source.log_name(record), dataclasses.asdict(record))

    def stage_done(stage: Stage, text: str) -> None:
        if not as_json:
            console.print(plain(f"{stage.value}: {text}"), highlight=False, soft_wrap=True)

    try:
        with LadderStore.open(ladder_database(db, data), create=False) as store:
            report = verify_season(store, name, fetch, stage_done)
    except LadderError as error:
        raise fail(str(error)) from None
    if as_json:
        typer.echo(json_text(report.to_json()))
        if report.verdict is not SeasonVerdict.VERIFIED:
            raise typer.Exit(1)
        return
    _print_verdict(report)


def _print_verdict(report: VerifyReport) -> None:
    from brandeln.services.verify.season import SeasonVerdict  # noqa: PLC0415

    what = "ladder" if report.ladder else "season"
    counts = ", ".join(
        (
            plural(report.blocks, "block"),
            plural(report.matches, "match"),
            plural(report.deals, "deal"),
        )
    )
    if report.verdict is SeasonVerdict.VERIFIED:
        console.print(
            plain(f"verified: {what} {report.season}: {counts}, ratings bit for bit", "green"),
            highlight=False,
            soft_wrap=True,
        )
        return
    difference = report.difference
    if difference is not None:
        errors.print(
            plain(f"error: {what} {report.season} {difference.line}", "red"),
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)
    errors.print(
        plain(
            f"not verified yet: {what} {report.season}: {counts} checked; {report.unchecked}",
            "yellow",
        ),
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(1)

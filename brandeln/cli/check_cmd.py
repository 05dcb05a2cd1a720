"""`brandeln bot check [-- COMMAND]`: the conformance check's command line and its report.

The work is brandeln.services.bot_check's; this module parses the options, prints the report (a
table at 80 columns, or ``--json``) and sets the exit code: 0 only when every check passed.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from brandeln.cli.layout import compact_table, fixed, folding
from brandeln.cli.output import console, errors, fail, notes
from brandeln.cli.terminal_text import json_text, markup, plain, safe
from brandeln.engine.plurals import plural

if TYPE_CHECKING:
    from brandeln.services.bot_check import CheckReport

CHECK_FAILED_EXIT = 1
DEFAULT_TABLES = 3
DEFAULT_MATCHES = 10


def check(
    command: Annotated[
        list[str] | None,
        typer.Argument(help="The bot program and its arguments (after --); none: it connects."),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="HOST:PORT",
            help="Where the check's referee listens, for a bot that connects by itself "
            "[default: 127.0.0.1 and a free port, printed].",
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token", help="The bot token the check accepts [default: a fresh one, printed]."
        ),
    ] = None,
    ruleset: Annotated[
        list[str] | None,
        typer.Option(help="Check this ruleset only (repeat it) [default: all the bot plays]."),
    ] = None,
    tables: Annotated[
        int, typer.Option(min=1, max=16, help="Tables at once (BRANDELN_TABLES of the bot).")
    ] = DEFAULT_TABLES,
    matches: Annotated[
        int, typer.Option(min=1, max=1000, help="Matches of the many-matches check.")
    ] = DEFAULT_MATCHES,
    connect_timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="How long the bot has to connect.")
    ] = 60.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Check that a bot follows the protocol everywhere, on a referee of its own.

    With COMMAND the check starts the bot with BRANDELN_SERVER, BRANDELN_TOKEN and
    BRANDELN_TABLES set, as a season does. Without it, it prints the address and token to
    connect with and waits for the bot. Exit code 0 only when every check passed.
    """
    from brandeln.engine.errors import EngineError  # noqa: PLC0415
    from brandeln.engine.rulesets import find_ruleset  # noqa: PLC0415

    for ruleset_id in ruleset or ():
        try:
            find_ruleset(ruleset_id)
        except EngineError as error:
            raise fail(str(error), code=2) from None
    host, port = _listen_address(server)
    command = _resolve(command or [])
    report, work = _run(
        command,
        token,
        tuple(ruleset or ()),
        tables,
        matches,
        connect_timeout,
        host,
        port,
        quiet=as_json,
    )
    if as_json:
        typer.echo(json_text(report_document(report)))
    else:
        console.print(report_table(report), soft_wrap=False)
    if report.passed:
        shutil.rmtree(work, ignore_errors=True)
        if not as_json:
            console.print("all checks passed", highlight=False)
        return
    if not as_json:
        failed = len(report.failures())
        console.print(
            plain(
                f"{plural(failed, 'check')} failed; the referee's logs and the bot's output: {work}"
            ),
            soft_wrap=True,
        )
    raise typer.Exit(CHECK_FAILED_EXIT)


def _resolve(command: list[str]) -> list[str]:
    """A lone sample bot's name (``bot check montecarlo``) or ``cmd:...`` is a BOT as
    `match run` and `ab` read it (brandeln.cli.bot_spec); anything else is the command."""
    if len(command) != 1:
        return command
    from brandeln.cli.bot_spec import (  # noqa: PLC0415
        COMMAND_PREFIX,
        BotArgError,
        parse_bot,
        sample_names,
    )
    from brandeln.ladder.season.config import CommandBot  # noqa: PLC0415

    word = command[0]
    if word not in sample_names() and not word.startswith(COMMAND_PREFIX):
        return command
    try:
        spec = parse_bot(word)
    except BotArgError as error:
        raise fail(str(error), code=2) from None
    assert isinstance(spec, CommandBot)
    return list(spec.command)


def _listen_address(server: str | None) -> tuple[str, int]:
    if server is None:
        return "127.0.0.1", 0
    host, sep, port = server.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise fail(f"--server {server}: expected HOST:PORT, e.g. 127.0.0.1:50070", code=2)
    return host, int(port)


def _run(
    command: list[str],
    token: str | None,
    rulesets: tuple[str, ...],
    tables: int,
    matches: int,
    connect_timeout: float,
    host: str,
    port: int,
    *,
    quiet: bool,
) -> tuple[CheckReport, Path]:
    import os  # noqa: PLC0415

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from brandeln.services.bot_check import CheckOptions, CheckTarget, run_check  # noqa: PLC0415

    work = Path(tempfile.mkdtemp(prefix="brandeln-check-"))
    options = CheckOptions(rulesets, tables, matches, connect_timeout)

    def ready(address: str, bot_token: str) -> None:
        if command:
            return
        notes.print(plain(f"connect the bot to {address} with token {bot_token}"))
        notes.print(
            plain(
                f"(open {plural(tables, 'session')}: BRANDELN_TABLES={tables}; waiting "
                f"{connect_timeout:g} s)"
            )
        )

    def say(step: str) -> None:
        if not quiet:
            errors.print(plain(f"checking: {step}"), highlight=False)

    import asyncio  # noqa: PLC0415 - 15 ms of `brandeln --help` otherwise

    try:
        report = asyncio.run(
            run_check(
                work,
                CheckTarget(tuple(command), token, work / "bot"),
                options,
                host=host,
                port=port,
                say=say,
                ready=ready,
            )
        )
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except OSError as error:
        raise fail(f"cannot run the check: {error}") from None
    return report, work


def report_table(report: CheckReport) -> Table:
    """One row per check: its name, pass/fail/skip and the reason (folded at 80 columns)."""
    who = f"{safe(report.bot_name)} {safe(report.bot_version)}".strip() or "the bot"
    table = compact_table(title=f"bot check: {markup(who)}")
    fixed(table, "check")
    fixed(table, "result")
    folding(table, "reason", min_width=20)
    styles = {"pass": "green", "fail": "bold red", "skip": "dim"}
    for result in report.results:
        status = str(result.status)
        table.add_row(
            plain(result.label), plain(status, styles[status]), plain(safe(result.reason))
        )
    return table


def report_document(report: CheckReport) -> dict[str, object]:
    """The report for machines (``--json``)."""
    return {
        "passed": report.passed,
        "bot_name": report.bot_name,
        "bot_version": report.bot_version,
        "rulesets": list(report.rulesets),
        "checks": [
            {
                "check": str(r.check),
                "subject": r.subject,
                "status": str(r.status),
                "reason": r.reason,
            }
            for r in report.results
        ],
    }

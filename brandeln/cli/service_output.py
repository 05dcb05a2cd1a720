"""What a long-running service command writes (`brandeln serve`, `brandeln ladder serve`,
`brandeln web`): its log records at ``--log-level``, and under ``--log-json`` every line it
writes as one JSON object, from start to exit (``brandeln.services.logs.setup``).

Under ``--log-json`` the command's consoles (``brandeln.cli.output``) print records too: the
operator's lines (an address, the admin token shown once) at level info, an ``error:`` line at
error, each on one line (no wrapping at a terminal's width: a record is one line whatever its
length). An exception nothing handles is one record at level error with its traceback inside,
and the command exits with code 1, instead of Typer printing the traceback as text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, TYPE_CHECKING, cast

import click
import typer
from rich.console import Console

from brandeln.cli.output import console, copyable, errors, notes
from brandeln.cli.service_options import LogLevel

if TYPE_CHECKING:
    from brandeln.services.logs.setup import PrintedLines

__all__ = ["service_output"]

# The exits a command chose (a usage error, `fail`'s exit code): not unexpected.
_CHOSEN_EXITS = (click.exceptions.Exit, click.exceptions.Abort, click.ClickException)


@contextmanager
def service_output(level: LogLevel, *, json_lines: bool) -> Iterator[None]:
    """The service's log records (and, with ``json_lines``, all it prints) while inside."""
    from brandeln.services.logs.setup import log_unexpected, service_logging  # noqa: PLC0415

    with service_logging(level.number, json_lines=json_lines) as log:
        if not json_lines:
            yield
            return
        with ExitStack() as stack:
            # stdout is sys.stdout, whose lines are records already; stderr's consoles say
            # at which level their lines are.
            for each in (console, copyable):
                stack.enter_context(_one_line_each(each))
            for each, at in ((notes, logging.INFO), (errors, logging.ERROR)):
                stack.enter_context(_one_line_each(each, log.printed_lines(at, "brandeln.cli")))
            try:
                yield
            except _CHOSEN_EXITS:
                raise
            except Exception as error:
                log_unexpected(error)
                raise typer.Exit(1) from None


@contextmanager
def _one_line_each(printer: Console, into: PrintedLines | None = None) -> Iterator[None]:
    """``printer`` printing unwrapped lines (into ``into``, if given) while inside."""
    # Its own file, not the property: None means sys.stdout or sys.stderr as it prints.
    soft_wrap, file = printer.soft_wrap, printer._file
    printer.soft_wrap = True
    if into is not None:
        printer.file = cast("IO[str]", into)  # a text stream, as rich needs
    try:
        yield
    finally:
        printer.soft_wrap = soft_wrap
        printer._file = file
        if into is not None:
            into.close()

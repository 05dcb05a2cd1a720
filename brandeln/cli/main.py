"""The `brandeln` command line: a thin layer that parses arguments, composes the arena and the
ladder, and prints. Command groups live in their own modules and are mounted here; the
benchmarks' `brandeln bench` by name, loaded only when it runs (brandeln.cli.lazy_groups)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, ClassVar

import typer

from brandeln.cli.ab_cmd import ab
from brandeln.cli.admin_cmd import admin_app
from brandeln.cli.argument_help import name_arguments_plainly
from brandeln.cli.bot_cmd import bot_app
from brandeln.cli.challenge_cmd import challenge
from brandeln.cli.db_cmd import db_app
from brandeln.cli.ladder_cmd import ladder_app
from brandeln.cli.lazy_groups import LazyGroups
from brandeln.cli.match_cmd import match_app
from brandeln.cli.matches_cmd import bots_app, matches_app
from brandeln.cli.ratings_cmd import ratings
from brandeln.cli.season_cmd import demo, season_app
from brandeln.cli.serve_cmd import serve
from brandeln.cli.versions_cmd import version_app
from brandeln.cli.watch_cmd import watch
from brandeln.cli.web_cmd import web

# `brandeln bench`: its line in `brandeln --help` is said here, so that listing it imports no
# benchmark (tests/cli/test_cli_conventions.py holds it equal to brandeln.bench.cli's own help).
BENCH_HELP = "Benchmarks, each against its floor in the same run (figures, not pass/fail)."


class Commands(LazyGroups):
    """The `brandeln` group: every command, the benchmarks' loaded when a command line names
    them."""

    lazy: ClassVar[Mapping[str, str]] = {"bench": "brandeln.bench.cli:bench_app"}


app = typer.Typer(
    name="brandeln",
    cls=Commands,
    help="Brandeln Arena: a referee, ladder seasons and sample bots for the card game Brandeln. "
    "The rules (numbered R1 to R12, the rulesets in section 6): docs/RULES.md.",
    no_args_is_help=True,
    # Typer's --install-completion/--show-completion: they cost no measurable start-up time
    # (typer imports its completion module either way).
    add_completion=True,
    # Plain tracebacks: rich's would print local variables (tokens among them) and cost 20 ms
    # of imports at every start.
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

        try:
            typer.echo(f"brandeln-arena {version('brandeln-arena')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("brandeln-arena (not installed)")
        raise typer.Exit


@app.callback()
def main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Brandeln Arena: run a referee, connect bots, run ladder seasons, inspect matches."""


app.command()(serve)
app.add_typer(matches_app, name="matches")
app.add_typer(match_app, name="match")
app.command("watch")(watch)
bots_app.add_typer(version_app, name="version")
app.add_typer(bots_app, name="bots")
app.add_typer(bot_app, name="bot")
app.add_typer(season_app, name="season")
app.command("ratings")(ratings)
app.add_typer(ladder_app, name="ladder")
app.command("challenge")(challenge)
app.command("demo")(demo)
app.command("ab")(ab)
app.command("web")(web)
app.add_typer(typer.Typer(help=BENCH_HELP), name="bench")  # a placeholder (Commands.lazy)
app.add_typer(admin_app, name="admin")
app.add_typer(db_app, name="db")
# Every command's help names its arguments as they are typed (BOT..., not {bots}...).
name_arguments_plainly(app)

"""Every command's --help names its arguments and options the way they are typed (BOT...,
[NAME], --ruleset <str>), never in Python's notation ({bots}, <list[str]>)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer.main
from typer.testing import CliRunner

from brandeln.cli.lazy_groups import LazyGroups
from brandeln.cli.main import app

runner = CliRunner()
# What Typer writes for an argument or a repeatable option: "{bots}", "<list[str]>", "[str]".
PYTHON_NOTATION = re.compile(r"[{}]|<list\[|\[str\]|\[int\]")
# A term of the Arguments/Options lists: two spaces in, up to two spaces before its help.
TERM = re.compile(r"^  (\S.*?)(?:\s{2,}|$)")


def command_lines() -> Iterator[list[str]]:
    """The words of every command and group of `brandeln`, to any depth (bench's too)."""

    def walk(command: object, path: list[str]) -> Iterator[list[str]]:
        yield path
        for name in getattr(command, "commands", {}):
            if isinstance(command, LazyGroups) and name in command.lazy:
                sub = command.load(name)
            else:
                sub = command.commands[name]  # type: ignore[attr-defined]
            yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


def help_of(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def terms(text: str) -> list[str]:
    """The usage line and the terms of the Arguments and Options lists of a --help."""
    found = [line for line in text.splitlines() if line.startswith("Usage:")]
    section = False
    for line in text.splitlines():
        if line in ("Arguments:", "Options:"):
            section = True
        elif line and not line.startswith(" "):
            section = False
        elif section and (match := TERM.match(line)):
            found.append(match.group(1))
    return found


@pytest.mark.parametrize("path", list(command_lines()), ids=" ".join)
def test_help_writes_arguments_and_options_as_they_are_typed(path: list[str]) -> None:
    written = [term for term in terms(help_of(path)) if PYTHON_NOTATION.search(term)]
    assert written == []


def test_challenge_names_its_bots_as_bot_dots() -> None:
    text = help_of(["challenge"])
    assert "Usage: brandeln challenge [OPTIONS] BOT...\n" in text
    assert re.search(r"^  BOT\.\.\.  The bots", text, re.M)
    assert "<list[str]>" not in text


def test_optional_and_repeated_arguments_are_bracketed_and_dotted() -> None:
    assert "Usage: brandeln bot check [OPTIONS] [COMMAND]...\n" in help_of(["bot", "check"])
    assert "Usage: brandeln db copy [OPTIONS] SOURCE DESTINATION\n" in help_of(["db", "copy"])
    assert "--ruleset <str>" in help_of(["bot", "check"])

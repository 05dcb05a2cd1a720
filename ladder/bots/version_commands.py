"""A command version's command: how the always-on ladder launches a version itself.

A version published with ``--command`` (``brandeln bots version add``) is started by the ladder
as a season starts its ``[[bots]]`` with a ``command``: the same placeholders (``{server}``,
``{token}``, ``{name}``, ``{tables}``, :func:`brandeln.ladder.bots.processes.expand_command`), the
same environment, and ``tables`` seat sessions. It is kept with the version as JSON
(``season_bots.command_json``).

>>> command = parse_command("python -m brandeln.sample_bots random --token {token}", 2)
>>> command.argv[:3], command.tables
(('python', '-m', 'brandeln.sample_bots'), 2)
>>> VersionCommand.from_json(command.to_json()) == command
True
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Final

from brandeln.ladder.errors import LadderError

__all__ = ["MAX_TABLES", "CommandError", "VersionCommand", "parse_command"]

MAX_TABLES: Final = 1024  # as a season file's [[bots]] tables


class CommandError(LadderError):
    """A command that cannot be launched as given (one line: what is wrong)."""


@dataclass(frozen=True, slots=True)
class VersionCommand:
    """The program and arguments (placeholders unexpanded) and its seat sessions."""

    argv: tuple[str, ...]
    tables: int

    def to_json(self) -> str:
        return json.dumps({"command": list(self.argv), "tables": self.tables})

    @classmethod
    def from_json(cls, text: str) -> VersionCommand:
        """Read back what :meth:`to_json` wrote; CommandError for anything else (a row
        edited by hand), so a bad row is one line, never a traceback."""
        try:
            data = json.loads(text)
            argv, tables = data["command"], data["tables"]
        except (ValueError, TypeError, KeyError) as error:
            raise CommandError(f"a stored version command is not readable: {error}") from None
        if not isinstance(argv, list) or not all(isinstance(part, str) for part in argv):
            raise CommandError("a stored version command is not a list of strings")
        return _checked(tuple(argv), tables)


def parse_command(text: str, tables: int) -> VersionCommand:
    """``text`` split like a shell (as a season file's string command) and checked."""
    try:
        argv = tuple(shlex.split(text))
    except ValueError as error:
        raise CommandError(f"cannot split the command {text!r}: {error}") from None
    return _checked(argv, tables)


def _checked(argv: tuple[str, ...], tables: object) -> VersionCommand:
    if not argv or not argv[0]:
        raise CommandError("the command must name a program")
    # bool is an int subclass; `true` is no number of tables.
    if isinstance(tables, bool) or not isinstance(tables, int) or not 1 <= tables <= MAX_TABLES:
        raise CommandError(f"tables must be a whole number from 1 to {MAX_TABLES}: {tables!r}")
    return VersionCommand(argv, tables)

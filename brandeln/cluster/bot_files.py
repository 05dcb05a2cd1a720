"""Whether a command bot can start on this node: its program and the files it names.

A cluster season runs its command bots on the worker nodes, so their programs and files must
exist there (the same install on every machine, a shared path, or a container image). The
driver runs :func:`missing` on every node before the season starts, and refuses to start with
the node and the missing piece named.

>>> missing(("python", "-m", "no_such_module_here"))
["Python module 'no_such_module_here' is not installed"]
>>> missing(("/no/such/bot",))
["program '/no/such/bot' does not exist"]
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from brandeln.ladder.bots.processes import resolve_program

__all__ = ["absolute_paths", "missing"]


def missing(command: Sequence[str]) -> list[str]:
    """What this node lacks to run ``command`` (empty: nothing)."""
    if not command:
        return ["the command is empty"]
    problems: list[str] = []
    program = resolve_program(command[0])
    if os.sep in program:
        if not os.access(program, os.X_OK):
            problems.append(f"program {command[0]!r} does not exist")
    elif shutil.which(program) is None:
        problems.append(f"program {command[0]!r} is not on the PATH")
    arguments = list(command[1:])
    if Path(program).name.startswith("python") and arguments[:1] == ["-m"] and len(arguments) > 1:
        module = arguments[1]
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            problems.append(f"Python module {module!r} is not installed")
        arguments = arguments[2:]
    for argument in arguments:
        if _names_a_file(argument) and not os.path.exists(argument):
            problems.append(f"file {argument!r} is missing")
    return problems


def absolute_paths(command: Sequence[str], base: Path) -> tuple[str, ...]:
    """``command`` with its relative file arguments that exist under ``base`` made absolute:
    a season file's ``bots/x.py`` then names the same file on every node where the project
    sits at the same path, whatever the worker's current folder."""
    out = []
    for index, argument in enumerate(command):
        candidate = base / argument
        if (
            (index == 0 or _names_a_file(argument))
            and os.sep in argument
            and not Path(argument).is_absolute()
            and candidate.exists()
        ):
            out.append(str(candidate.resolve()))
        else:
            out.append(argument)
    return tuple(out)


def _names_a_file(argument: str) -> bool:
    """A path, not an option, a placeholder (``{server}``) or a URL."""
    return (
        os.sep in argument
        and not argument.startswith("-")
        and "{" not in argument
        and "://" not in argument
        and "=" not in argument
    )

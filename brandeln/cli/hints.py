"""The `brandeln ...` commands the CLI suggests next, spelled so they run where the user is.

A hint that says `brandeln matches show ...` fails with "command not found" when the virtual
environment is not activated, so the hint names the program the way it was started
(`.venv/bin/brandeln`, or `python -m brandeln.cli`), and it keeps the options that chose the
data (`--data`, `--referee`, `--ca`): the next command must read the same place.

For example ``command("matches", "show", "m_3bba", referee="10.0.0.5:50051")`` is
``.venv/bin/brandeln matches show m_3bba --referee 10.0.0.5:50051`` when the CLI was started as
``.venv/bin/brandeln`` and PATH finds no ``brandeln`` (or another one).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PROGRAM = "brandeln"


def _shown_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    absolute = path.absolute()
    try:
        relative = absolute.relative_to(Path.cwd())
    except ValueError:
        return str(absolute)
    # A bare name would be looked up on PATH: keep a slash in it.
    return str(relative) if relative.parent != Path() else f"./{relative}"


def _same_file(a: str | None, b: Path) -> bool:
    if a is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _quote(word: str) -> str:
    import shlex  # noqa: PLC0415 - only when a hint is printed, not at every start

    return shlex.quote(word)


def program() -> str:
    """How to start this CLI again: ``brandeln`` when that is what PATH finds, else a path."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    on_path = shutil.which(PROGRAM)
    if argv0 is not None and argv0.name == PROGRAM:
        if _same_file(on_path, argv0):
            return PROGRAM
        return _quote(_shown_path(argv0))
    if (
        argv0 is not None
        and argv0.name == "__main__.py"
        and argv0.parent.parts[-2:] == ("brandeln", "cli")
    ):
        # `python -m brandeln.cli`: the console script beside this interpreter, if PATH has it.
        script = Path(sys.executable).parent / PROGRAM
        if _same_file(on_path, script):
            return PROGRAM
        return f"{_quote(_shown_path(Path(sys.executable)))} -m brandeln.cli"
    # Called from elsewhere (tests, an embedding program): the documented name.
    return PROGRAM


def command(
    *words: str,
    data: Path | None = None,
    referee: str | None = None,
    ca: Path | None = None,
    db: str | None = None,
) -> str:
    """A copyable command line: the program, ``words`` and the options that chose the data.

    With ``referee`` the data lives there, so ``--data`` is left out; ``ca`` goes with it.
    ``db`` (a database URL) is shown with its password hidden: the user types it again.
    """
    parts = [_quote(word) for word in words]
    if referee is not None:
        parts += ["--referee", _quote(referee)]
        if ca is not None:
            parts += ["--ca", _quote(str(ca))]
    elif db is not None:
        from brandeln.datastore.url import scrub  # noqa: PLC0415

        parts += ["--db", _quote(scrub(db))]
    elif data is not None:
        parts += ["--data", _quote(str(data))]
    return " ".join([program(), *parts])


def reset_command(db_path: Path) -> str:
    """The exact command that resets the admin token of ``db_path``."""
    if db_path == _default_referee_db():
        return "brandeln admin token --reset"
    return f"brandeln admin token --reset --db {db_path}"


def _default_referee_db() -> Path:
    from brandeln.services import data_folder  # noqa: PLC0415 - hints imports nothing of the CLI at load

    return data_folder.referee_db()

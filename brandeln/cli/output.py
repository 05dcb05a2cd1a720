"""What every command prints with: the consoles, ``error:`` lines and copyable hints.

One place, so an error reads the same from every command and bot-supplied text in it is
always escaped (``terminal_text.markup``).
"""

from __future__ import annotations

import typer
from rich.console import Console

from brandeln.cli.terminal_text import markup, plain

# Prose: wraps at the terminal's width.
console = Console()
# Ids, tokens and commands stay on one line however long, so they copy whole.
copyable = Console(soft_wrap=True)
errors = Console(stderr=True)
# What a server says to its operator (addresses, the admin token once): stderr, one copyable
# line each, no colours guessed from the text.
notes = Console(stderr=True, soft_wrap=True, highlight=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on one line to stderr; the caller raises the returned Exit.

    Messages quote season files, bot names and the user's own arguments, so they are escaped
    (a match id of ``[/x]`` is not markup, an ESC byte in a name does not reach the terminal);
    one line however long (a list of candidate ids): never wrapped at the width.
    """
    errors.print(f"[red]error:[/red] {markup(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def hint(what: str, command: str) -> None:
    """``what:`` and the command on its own line, never wrapped, so it copies whole."""
    console.print(plain(f"{what}:"), highlight=False)
    console.print(plain(f"  {command}"), highlight=False, soft_wrap=True)

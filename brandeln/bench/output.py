"""What the benchmarks print with: rich's consoles, a one-line ``error:`` exit, and text made
literal inside rich markup.

The benchmarks' own rather than the CLI's: the CLI mounts them, so importing it back would be
a cycle. What they print is their figures, their own progress lines and the operator's paths,
never a bot's text, so rich's markup escape is all the escaping they need (the CLI's
terminal_text exists for hostile, bot-supplied text).
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

# Figures and tables: wrap at the terminal's width.
console = Console()
# Progress lines and errors: stderr, so that stdout holds the figures alone.
errors = Console(stderr=True)


def markup(text: str) -> str:
    """``text`` escaped for rich markup, to embed in a markup string (``[`` stays ``[``)."""
    return escape(text)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on one line to stderr; the caller raises the returned Exit."""
    errors.print(f"[red]error:[/red] {markup(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)

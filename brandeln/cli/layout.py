"""Tables and lists that fit an 80-column terminal, and a pipe (rich renders those at 80).

Nothing a reader needs may be cut to "…": tables have no borders (two spaces between columns),
columns of ids and numbers never wrap, and the one column of free text in a table (a bot's
name) folds onto more lines instead. A list whose rows would not fit on one line puts its
free text on a second, indented line under the fixed fields (:func:`two_line_list`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

GAP = 2  # spaces between columns
INDENT = 2  # of a row's second line


def compact_table(title: str | None = None, caption: str | None = None, *, gap: int = GAP) -> Table:
    """A borderless table with bold headers, left-aligned title and caption.

    ``gap=1`` suits a table of many short right-aligned numbers, which stay apart anyway.
    """
    return Table(
        title=title,
        caption=caption,
        box=None,
        padding=(0, 0, 0, gap),
        pad_edge=False,
        header_style="bold",
        title_justify="left",
        caption_justify="left",
    )


def fixed(table: Table, header: str, *, right: bool = False) -> None:
    """A column of ids, numbers or keywords: never wrapped, so never cut."""
    table.add_column(header, justify="right" if right else "left", no_wrap=True)


def folding(table: Table, header: str, *, min_width: int = 10) -> None:
    """A column of free text (bot names): folds onto further lines when it is long."""
    table.add_column(header, overflow="fold", min_width=min_width)


def two_line_list(
    title: str,
    headers: Sequence[tuple[str, bool]],
    rows: Sequence[tuple[Sequence[str], Text]],
) -> Group:
    """Rows of aligned fixed fields, each with its free text on an indented second line.

    ``headers`` are (name, right-aligned); each row is its fields (short, plain) and a text that
    wraps at the width of the terminal.
    """
    widths = [len(name) for name, _ in headers]
    for fields, _ in rows:
        widths = [max(w, len(f)) for w, f in zip(widths, fields, strict=True)]

    def line(fields: Sequence[str]) -> str:
        cells = [
            f.rjust(w) if right else f.ljust(w)
            for f, w, (_, right) in zip(fields, widths, headers, strict=True)
        ]
        return (" " * GAP).join(cells).rstrip()

    parts: list[Text | Padding] = [
        Text(title, style="bold"),
        Text(line([name for name, _ in headers]), style="bold", no_wrap=True),
    ]
    for fields, text in rows:
        parts.append(Text(line(fields), no_wrap=True))
        text.no_wrap = False
        text.overflow = "fold"
        parts.append(Padding(text, (0, 0, 0, INDENT), expand=False))
    return Group(*parts)

"""Text that keeps its shape when it wraps at the terminal's width (80 columns, or a pipe's 80).

rich wraps a long line flush left, so its continuation reads as a line of its own, and breaks a
table's caption at any space, so a legend's term ("TS #") can end one line and begin the next.
Two renderables wrap themselves instead: :class:`Hanging`, a line whose continuation is indented
under its start, and :class:`Legend`, a table's caption that starts an entry on a new line
rather than split it, and never splits a term.

>>> wrap_words(["B", "-", "A:", "+1.000", "chips/deal", "over", "44", "deals"], 20)
['B - A: +1.000', '  chips/deal over 44', '  deals']
>>> legend_lines(["TS #: rank by μ-3σ", "t/o = timeouts", "ill. = illegal actions"], 24)
['TS #: rank by μ-3σ', 't/o = timeouts', 'ill. = illegal actions']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len, chop_cells
from rich.text import Text

from brandeln.cli.terminal_text import safe

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions
    from rich.segment import Segment
    from rich.style import Style

__all__ = ["INDENT", "SEPARATOR", "TOGETHER", "Hanging", "Legend", "legend_lines", "wrap_words"]

INDENT = 2  # of a wrapped line's continuation, as of a two-line list's second line (layout)
SEPARATOR = " · "  # between a legend's entries on one line
# A space a line never breaks at ("8 s", "B - A:"): a no-break space, printed as a plain one.
TOGETHER = "\u00a0"
# Where a legend entry's term ends: "TS #: rank by ..." or "t/o = timeouts".
_TERM_END = re.compile(r": | = ")


def wrap_words(words: Sequence[str], width: int, indent: int = INDENT) -> list[str]:
    """``words`` joined by spaces in lines of at most ``width`` cells, every line after the
    first indented by ``indent``; a word wider than a line is cut into pieces that fit (the
    rest of the output stays within the width, nothing is dropped)."""
    rest_room = max(width - indent, 1)
    lines: list[str] = []
    line = ""
    for word in words:
        room = rest_room if lines else width
        joined = f"{line} {word}" if line else word
        if cell_len(joined) <= room:
            line = joined
            continue
        if line:
            lines.append(line)
            room = rest_room
        *full, line = _cut(word, room, rest_room)
        lines.extend(full)
    lines.append(line)
    return [lines[0], *(" " * indent + rest for rest in lines[1:])]


def _cut(word: str, room: int, rest_room: int) -> list[str]:
    """``word`` in pieces: the first at most ``room`` cells, the others ``rest_room``."""
    if cell_len(word) <= room:
        return [word]
    first = chop_cells(word, room)[0]
    return [first, *chop_cells(word[len(first) :], rest_room)]


def _units(entry: str) -> list[str]:
    """A legend entry's words, its term (up to ": " or " = ") kept as one."""
    found = _TERM_END.search(entry)
    if found is None:
        return entry.split()
    return [entry[: found.end()].rstrip(), *entry[found.end() :].split()]


def legend_lines(entries: Sequence[str], width: int, indent: int = INDENT) -> list[str]:
    """``entries`` on lines of at most ``width`` cells: as many a line as fit whole, joined by
    " · "; an entry too long for a line of its own wraps with its continuation indented."""
    lines: list[str] = []
    for entry in entries:
        if lines and cell_len(lines[-1] + SEPARATOR + entry) <= width:
            lines[-1] += SEPARATOR + entry
        else:
            lines.extend(wrap_words(_units(entry), width, indent))
    return lines


class Hanging:
    """One line of plain text (escaped: never markup), wrapped at the width it is printed at
    with its continuation indented under its start (which keeps the line's own leading
    spaces), so it reads as one item however narrow the terminal. It breaks at spaces, never
    at :data:`TOGETHER`."""

    def __init__(self, text: str, style: str = "", indent: int = INDENT) -> None:
        self.text = safe(text)
        self.style = style
        self.indent = indent

    def __str__(self) -> str:
        return self.text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        words = self.text.lstrip(" ")
        lead = " " * (len(self.text) - len(words))
        split = [word for word in words.split(" ") if word]  # not at TOGETHER
        lines = wrap_words(split, options.max_width - len(lead), self.indent)
        shown = [lead + line.replace(TOGETHER, " ") for line in lines]
        return _render(shown, self.style, console, options)


class Legend(Text):
    """A table's caption: its entries (``"term: meaning"`` or ``"term = meaning"``, our own
    words) joined by " · ", wrapped by :func:`legend_lines` at the table's width.

    A ``Text``, so a table takes it as its caption; its plain text is the entries on one line.
    """

    def __init__(self, *entries: str) -> None:
        super().__init__(SEPARATOR.join(entries), style="table.caption")
        self.entries = entries

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        lines = legend_lines(self.entries, options.max_width)
        return _render(lines, self.style, console, options)


def _render(
    lines: Sequence[str], style: str | Style, console: Console, options: ConsoleOptions
) -> Iterable[Segment]:
    """Lines that already fit, rendered as they are."""
    return Text("\n".join(lines), style=style, no_wrap=True).__rich_console__(console, options)

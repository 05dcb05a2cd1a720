"""A command's output against the page's: line by line after stripping trailing spaces, with
doctest's ELLIPSIS narrowed to lines (``...`` inside a line matches any text on that line; a
line that is only ``...`` matches any number of lines, none included) and its
NORMALIZE_WHITESPACE narrowed to spaces (a run of spaces on the page matches a run of any
length: a table's columns are as wide as the figures in them, which a page may not show)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from functools import cache
from typing import Final

ELLIPSIS: Final = "..."


def _trimmed(lines: Sequence[str]) -> list[str]:
    kept = [line.rstrip() for line in lines]
    while kept and not kept[-1]:
        kept.pop()
    return kept


def _literal(text: str) -> str:
    """``text`` as a pattern, each run of spaces matching a run of any length."""
    return " +".join(re.escape(word) for word in re.split(" +", text))


@cache
def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(_literal(part) for part in expected.split(ELLIPSIS)), re.S)


def line_matches(expected: str, actual: str) -> bool:
    """One line: equal, up to the length of its runs of spaces, with each ``...`` standing
    for any text."""
    return _line_pattern(expected).fullmatch(actual) is not None


def output_matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    """The whole output; trailing spaces and trailing blank lines never count."""
    want, got = _trimmed(expected), _trimmed(actual)
    # rest[j]: whether want[i:] matches got[j:], for i from the end back to 0 (no recursion:
    # an output may have thousands of lines).
    rest = [j == len(got) for j in range(len(got) + 1)]
    for line in reversed(want):
        now = [False] * (len(got) + 1)
        for j in range(len(got), -1, -1):
            if line == ELLIPSIS:  # no line, or one more and still the same ellipsis
                now[j] = rest[j] or (j < len(got) and now[j + 1])
            else:
                now[j] = j < len(got) and rest[j + 1] and line_matches(line, got[j])
        rest = now
    return rest[0]


def difference(expected: Sequence[str], actual: Sequence[str]) -> str:
    """What a failure shows: the page's lines, the command's, and a diff of the two."""
    want, got = _trimmed(expected), _trimmed(actual)
    diff = difflib.unified_diff(want, got, "the page", "the command", lineterm="", n=2)
    return "\n".join(
        [
            "expected (the page):",
            *(f"    {line}" for line in want),
            "actual (the command):",
            *(f"    {line}" for line in got or ["(nothing)"]),
            "diff (... in the page matches any text):",
            *diff,
        ]
    )

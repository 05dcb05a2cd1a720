"""The code's docstrings, written in reST for a reader of the source and for doctest, as the
Markdown that the API reference pages render (a griffe extension, mkdocs.yml).

- A role, ``:class:`Bot``` or ``:meth:`~brandeln.sdk.run```, becomes the name as code (with
  ``~``, its last dotted part, as Sphinx shows it): Markdown would print the role as text.
- A doctest (``>>>`` lines and their output, up to a blank line) becomes a fenced ``pycon``
  block: Markdown would run it into the paragraph around it, and read ``[...]`` in it as a
  link.
- A paragraph ending in ``::`` (reST: the indented block after it is code) ends in ``:``;
  the indented block is Markdown's code block already.

The source keeps its docstrings as they are; only what the pages show changes.
"""

from __future__ import annotations

import re
from typing import Any, Final

import griffe

ROLE: Final = re.compile(r":(?:py:)?(?:class|meth|func|data|mod|attr|exc|obj|const):`(~?)([^`]+)`")
PROMPT: Final = re.compile(r"^(\s*)>>> ")


def _role(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


def markdown(text: str) -> str:
    """``text`` (a docstring, dedented) with its reST roles, doctests and ``::`` as Markdown.

    >>> markdown("See :class:`~a.B`.\\n>>> 1 + 1\\n2\\n\\nDone::").splitlines()
    ['See `B`.', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done:']
    """
    out: list[str] = []
    doctest_indent: str | None = None  # the open doctest's indentation
    for source in text.splitlines():
        line = source
        prompt = PROMPT.match(line)
        if doctest_indent is None and prompt is not None:
            doctest_indent = prompt.group(1)
            out.append(f"{doctest_indent}```pycon")
        elif doctest_indent is not None and not line.strip():
            out.append(f"{doctest_indent}```")
            doctest_indent = None
        if doctest_indent is None:
            line = ROLE.sub(_role, line)
            if line.endswith("::") and line.strip() != "::":
                line = line[:-1]
        out.append(line)
    if doctest_indent is not None:
        out.append(f"{doctest_indent}```")
    return "\n".join(out)


class ReSTDocstrings(griffe.Extension):
    """Rewrites each object's docstring before mkdocstrings parses and renders it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

"""Text that came from a bot, made safe to print in the operator's terminal.

Everything a bot sends (its names, versions, log lines, even contract strings echoed in a
rejection) is hostile until escaped: raw ESC/OSC bytes can rewrite the terminal or its title,
bidi overrides can reorder what the operator reads, and square brackets are rich markup. Every
bot-supplied string the CLI prints goes through one of these functions.

>>> safe("mallory\\x1b]0;owned\\x07")
'mallory\\\\x1b]0;owned\\\\x07'
>>> markup("[/bold]")
'\\\\[/bold]'
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from rich.markup import escape as _escape_markup
from rich.text import Text

# Unicode format characters that reorder or hide text (bidi embeddings, overrides, isolates,
# zero-width marks); they are category Cf, which `_unsafe` treats like control characters.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in _UNSAFE_CATEGORIES


def safe(text: str) -> str:
    """`text` with every control or format character shown as a visible `\\xNN`/`\\uNNNN`."""
    if text.isprintable():  # the common case costs one C-level scan
        return text
    out = []
    for char in text:
        if not _unsafe(char):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)


# rich reads a backslash before "[" as an escape even where no tag follows, so such a
# backslash is shown as `\x5c` rather than silently dropped.
_BACKSLASH_BEFORE_BRACKET = re.compile(r"\\(?=\[)")


def markup(text: str) -> str:
    """`safe(text)` escaped for rich markup, to embed in a markup string."""
    return _escape_markup(_BACKSLASH_BEFORE_BRACKET.sub(r"\\x5c", safe(text)))


def plain(text: str, style: str = "") -> Text:
    """A rich `Text` of `safe(text)`: never parsed as markup, safe as a table cell."""
    return Text(safe(text), style=style)


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON with every character that could act on a terminal escaped.

    ``ensure_ascii`` escapes C0 controls and everything beyond ASCII (C1, bidi overrides...);
    DEL is ASCII, so it is escaped by hand. The result parses back to ``data``.

    >>> json_text({"name": "a\\x1b\\x7f\\u202e"}, indent=None)
    '{"name": "a\\\\u001b\\\\u007f\\\\u202e"}'
    """
    return json.dumps(data, indent=indent, ensure_ascii=True, default=list).replace(
        "\x7f", "\\u007f"
    )

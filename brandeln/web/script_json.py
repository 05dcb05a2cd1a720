"""JSON for a page's script (``/ladders/NAME/state.json``): bot-supplied names inside stay inert
however the bytes are read."""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["script_json"]

# What a script reads is escaped as Jinja's |tojson escapes it: a name holding "</script>" or
# "<!--" stays inert even should the JSON ever be read as HTML, or pasted into a page.
_SCRIPT_ESCAPES: Final = str.maketrans(
    {
        "<": "\\u003c",
        ">": "\\u003e",
        "&": "\\u0026",
        "'": "\\u0027",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)


def script_json(data: Any) -> bytes:
    """``data`` as JSON for a script: UTF-8, with ``<``, ``>``, ``&``, ``'`` and the two
    line separators written as escapes (the same value once parsed).

    >>> encoded = script_json({"name": "</script>&'"})
    >>> b"<" in encoded, json.loads(encoded) == {"name": "</script>&'"}
    (False, True)
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    return text.translate(_SCRIPT_ESCAPES).encode("utf-8")

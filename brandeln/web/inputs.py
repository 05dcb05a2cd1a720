"""What a request may ask for, checked before any store is opened.

A page number, an id or a season's name in the path, the head to head's sides: a malformed
one is a one-line 400 (or, in the path, the 404 of a thing that does not exist) rather than a
value handed to the stores. Path parameters are looked up only through the stores (an SQL
parameter, the referee's Admin service), never turned into a file name; the forms checked
here would keep even such a mistake harmless (no ``/``, no ``..``, no NUL).

>>> match_id("m_3bba0c1d2e3f4a5b"), page_number(QueryParams("page=2"))
('m_3bba0c1d2e3f4a5b', 2)
>>> match_id("../../etc/passwd")
Traceback (most recent call last):
...
brandeln.web.data.PageNotFoundError: no match with id '../../etc/passwd'
"""

from __future__ import annotations

import re
from typing import Final

from starlette.datastructures import QueryParams

from brandeln.web.data import BadRequestError, PageNotFoundError

__all__ = [
    "MAX_PAGE",
    "QueryParams",
    "bot_id",
    "match_id",
    "page_number",
    "season_name",
    "single",
]

# 2.5 million matches at 25 a page; a larger number would only make the stores count rows.
MAX_PAGE: Final = 100_000
# The referee's ids (``m_`` and ``bot_`` with hex digits) and older or synthetic ones alike:
# letters, digits, ``_`` and ``-``, a letter or digit first.
ID_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
# A season's name as a program may have stored it: any printable text, far longer than the
# 64 characters a season file allows, yet no page of text to look up.
SEASON_NAME_CHARS: Final = 200
SHOWN_CHARS: Final = 80  # of a refused value, quoted in its error line


def shown(text: str) -> str:
    """``text`` quoted for an error line, cut to :data:`SHOWN_CHARS` (a 100 KB id is no
    message)."""
    if len(text) <= SHOWN_CHARS:
        return repr(text)
    return f"{text[:SHOWN_CHARS]!r}... ({len(text)} characters)"


def single(params: QueryParams, name: str) -> str | None:
    """The query string's one value of ``name`` (None when absent); given twice, which one was
    meant is unknown: :class:`BadRequestError`."""
    values = params.getlist(name)
    if len(values) > 1:
        raise BadRequestError(f"?{name}= is given {len(values)} times: give it once")
    return values[0] if values else None


def page_number(params: QueryParams) -> int:
    """``?page=``: 1 when absent, else a whole number from 1 to :data:`MAX_PAGE`."""
    text = single(params, "page")
    if text is None:
        return 1
    digits = text.isascii() and text.isdigit() and len(text) <= len(str(MAX_PAGE))
    if not digits or not 1 <= int(text) <= MAX_PAGE:
        raise BadRequestError(f"?page= takes a whole number from 1 to {MAX_PAGE}")
    return int(text)


def match_id(text: str) -> str:
    if not ID_PATTERN.fullmatch(text):
        raise PageNotFoundError(f"no match with id {shown(text)}")
    return text


def bot_id(text: str) -> str:
    if not ID_PATTERN.fullmatch(text):
        raise PageNotFoundError(f"no bot with id {shown(text)}")
    return text


def season_name(text: str) -> str:
    if len(text) > SEASON_NAME_CHARS or not text.isprintable():
        raise PageNotFoundError(f"no season named {shown(text)}")
    return text

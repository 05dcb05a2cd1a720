"""Text a user typed as a key (a name, an id, a prefix), before it is bound to a query.

Every key reaches SQL as a bound parameter, so quotes, ``%``, ``_`` and backslashes are read as
themselves on both backends. One character cannot be bound at all: PostgreSQL's text type holds
no NUL, and psycopg refuses a parameter with one ("PostgreSQL text fields cannot contain NUL"),
where SQLite would simply find nothing. No stored name or id holds a NUL (names refuse control
characters, ids are generated), so a key with one names nothing: the stores answer "not found"
without asking the database, the same on both backends.

>>> can_name_a_row("m_0123"), can_name_a_row("m_\\x00")
(True, False)
"""

from __future__ import annotations

from typing import Final

__all__ = ["can_name_a_row"]

NUL: Final = "\x00"


def can_name_a_row(key: str) -> bool:
    """Whether ``key`` could equal (or prefix) a stored name or id: it holds no NUL."""
    return NUL not in key

"""INSERT with ``ON CONFLICT`` on both backends: the dialect's own insert construct, whose
``on_conflict_do_nothing`` and ``on_conflict_do_update`` PostgreSQL and SQLite speak alike
(the generic ``sqlalchemy.insert`` has neither). A store's idempotent writes are built on it: a
retried write whose first commit did land then inserts nothing.

>>> import sqlalchemy
>>> table = sqlalchemy.Table("t", sqlalchemy.MetaData(), sqlalchemy.Column("k", sqlalchemy.Text))
>>> print(insert_for("sqlite", table).values(k="x").on_conflict_do_nothing())
INSERT INTO t (k) VALUES (?) ON CONFLICT DO NOTHING
"""

from __future__ import annotations

from typing import Any

import sqlalchemy

__all__ = ["dialect_insert", "insert_for"]


def dialect_insert(conn: sqlalchemy.Connection, table: sqlalchemy.Table) -> Any:
    """The dialect's INSERT with ON CONFLICT (PostgreSQL's and SQLite's speak alike)."""
    return insert_for(conn.dialect.name, table)


def insert_for(dialect: str, table: sqlalchemy.Table) -> Any:
    """:func:`dialect_insert` by the dialect's name (``"postgresql"``, else SQLite's), for a
    statement built once per dialect and cached."""
    # Imported when first needed: a store on one backend never loads the other's dialect.
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert  # noqa: PLC0415

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert  # noqa: PLC0415

    return sqlite_insert(table)

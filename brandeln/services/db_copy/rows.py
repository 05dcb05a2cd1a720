"""A table's rows read in a stable order and written in batches; a side's tables checked for
rows and emptied."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy

from brandeln.services.db_copy.sides import Side

BATCH_ROWS = 1000

# A row as the destination holds it, from the table's name and the source's row.
Rewrite = Callable[[str, dict[str, Any]], dict[str, Any]]


def _ordered(table: sqlalchemy.Table) -> sqlalchemy.Select[Any]:
    keys = list(table.primary_key.columns) or list(table.columns)
    return sqlalchemy.select(table).order_by(*keys)


def rows(engine: sqlalchemy.Engine, table: sqlalchemy.Table) -> Iterator[dict[str, Any]]:
    """Every row of ``table`` by its primary key, binary columns as bytes."""
    with engine.connect() as conn:
        for row in conn.execute(_ordered(table)).mappings():
            yield {
                key: bytes(value) if isinstance(value, memoryview) else value
                for key, value in row.items()
            }


def is_empty(engine: sqlalchemy.Engine, side: Side) -> bool:
    """True when no table of ``side`` holds a row."""
    with engine.connect() as conn:
        return all(
            conn.execute(sqlalchemy.select(sqlalchemy.literal(1)).select_from(t).limit(1)).first()
            is None
            for t in side.metadata.sorted_tables
        )


def empty(engine: sqlalchemy.Engine, side: Side) -> None:
    """Delete every row of ``side``'s tables, the dependent ones first."""
    with engine.begin() as conn:
        for table in reversed(side.metadata.sorted_tables):
            conn.execute(table.delete())


def copy_table(
    src: sqlalchemy.Engine, dst: sqlalchemy.Engine, table: sqlalchemy.Table, rewrite: Rewrite
) -> int:
    """Copy every row of ``table`` (as ``rewrite`` has it) in one transaction; how many."""
    count = 0
    batch: list[dict[str, Any]] = []
    with dst.begin() as conn:
        for row in rows(src, table):
            batch.append(rewrite(table.name, row))
            if len(batch) == BATCH_ROWS:
                conn.execute(table.insert(), batch)
                count += len(batch)
                batch = []
        if batch:
            conn.execute(table.insert(), batch)
            count += len(batch)
    return count

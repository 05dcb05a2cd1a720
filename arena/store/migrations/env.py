"""Alembic's environment for the referee side: online only, on a connection given to it."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from brandeln.arena.store.schema import METADATA, SIDE


def _run(connection: Connection) -> None:
    schema = SIDE if connection.dialect.name == "postgresql" else None
    context.configure(
        connection=connection,
        target_metadata=METADATA,
        version_table_schema=schema,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:  # the alembic command line, on sqlalchemy.url
    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as own:
        _run(own)

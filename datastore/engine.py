# ruff: noqa
"""Engines (STAND-IN for pg-ladder's datastore commit: same API, replaced on cherry-pick)."""

from __future__ import annotations

from typing import Any

import sqlalchemy
from sqlalchemy import event

from datastore.errors import explain
from datastore.private_files import private_sqlite
from datastore.url import Backend, DatabaseUrl

__all__ = ["open_engine"]


def open_engine(url: DatabaseUrl, *, side: str) -> sqlalchemy.Engine:
    if url.backend is Backend.SQLITE:
        assert url.path is not None
        private_sqlite(url.path)
        engine = sqlalchemy.create_engine(url.url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi: Any, _record: Any) -> None:
            dbapi.isolation_level = None
            cursor = dbapi.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    schema = url.schema_for(side)
    engine = sqlalchemy.create_engine(
        url.url,
        pool_pre_ping=True,
        connect_args={"connect_timeout": 5},
        execution_options={"schema_translate_map": {None: schema}},
    )
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    except sqlalchemy.exc.SQLAlchemyError as error:
        engine.dispose()
        raise explain(error, url) from None
    return engine

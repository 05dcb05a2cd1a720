# ruff: noqa
"""STAND-IN for the pg-ladder datastore commit's `db_url` fixture (replaced on cherry-pick):
each test gets a fresh database on both backends, the same test body."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy

from tests import pg_server

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def pg() -> Iterator[pg_server.PostgresServer]:
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.skip(pg_server.INSTALL_HINT)
    with pg_server.postgres_server(bindir) as server:
        yield server


def fresh_pg_database(server: pg_server.PostgresServer) -> str:
    name = f"t{next(_numbers)}"
    engine = sqlalchemy.create_engine(server.url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return server.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'brandeln.db'}"
    server: pg_server.PostgresServer = request.getfixturevalue("pg")
    return fresh_pg_database(server)

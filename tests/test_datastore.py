"""datastore: the base both stores share (its private-file helper is in test_private_files):
URLs, engines on both backends, connection failures named, retrying, migrations."""

from __future__ import annotations

import doctest
import sqlite3
import stat
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest
import sqlalchemy
from alembic.config import Config
from alembic.script import ScriptDirectory

import brandeln.datastore.engine
import brandeln.datastore.keys
import brandeln.datastore.retry
import brandeln.datastore.sqlite_schema
import brandeln.datastore.transactions
import brandeln.datastore.upsert
import brandeln.datastore.url
from brandeln.datastore.engine import _postgresql_engine, open_engine, write_transaction
from brandeln.datastore.errors import (
    DatabaseAuthFailed,
    DatabaseConfigError,
    DatabaseConflict,
    DatabaseError,
    DatabaseMissing,
    DatabaseUnavailable,
    SchemaTooNew,
)
from brandeln.datastore.migrations import head_revision, upgrade
from brandeln.datastore.retry import retrying
from brandeln.datastore.sqlite_schema import missing_schema
from brandeln.datastore.url import Backend, parse_database_url, sqlite_url
from tests.pg_server import PostgresServer, free_port, password_role

SCHEMA = "CREATE TABLE bots (bot_id TEXT PRIMARY KEY, name TEXT); CREATE TABLE runs (n INTEGER);"


@pytest.mark.parametrize(
    "module",
    [
        brandeln.datastore.sqlite_schema,
        brandeln.datastore.url,
        brandeln.datastore.retry,
        brandeln.datastore.keys,
        brandeln.datastore.transactions,
        brandeln.datastore.upsert,
        brandeln.datastore.engine,
    ],
)
def test_the_module_examples_hold(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


def test_a_full_schema_lacks_nothing_and_the_check_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
    before = path.read_bytes()
    db = sqlite3.connect(path)
    try:
        assert missing_schema(db, SCHEMA) == ""
    finally:
        db.close()
    assert path.read_bytes() == before


def test_the_first_missing_table_or_column_is_named() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE bots (bot_id TEXT)")
    assert missing_schema(db, SCHEMA) == "table 'bots' has no column 'name'"
    assert missing_schema(db, SCHEMA, frozenset({"bots.name"})) == "no table 'runs'"


# -- URLs -----------------------------------------------------------------------------------


def test_a_plain_path_and_a_sqlite_url_are_the_same_sqlite_file(tmp_path: Path) -> None:
    plain = parse_database_url(str(tmp_path / "ladder.db"))
    url = parse_database_url(f"sqlite:///{tmp_path / 'ladder.db'}")
    assert plain.backend is url.backend is Backend.SQLITE
    assert plain.path == url.path == tmp_path / "ladder.db"
    assert plain.schema_for("ladder") is None


@pytest.mark.parametrize(
    "text", ["postgresql://u:pw@db:5433/arena", "postgresql+psycopg://u:pw@db:5433/arena"]
)
def test_postgresql_urls_use_psycopg_3_and_hide_the_password(text: str) -> None:
    url = parse_database_url(text)
    assert url.backend is Backend.POSTGRESQL
    assert url.url.drivername == "postgresql+psycopg"
    assert url.redacted() == "postgresql+psycopg://u:***@db:5433/arena"
    assert url.endpoint == "db:5433"
    assert url.schema_for("referee") == "referee"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("mysql://u:secret@h/db", "unsupported database 'mysql'"),
        ("postgresql+asyncpg://u:secret@h/db", "unsupported PostgreSQL driver 'asyncpg'"),
        ("postgresql://u:secret@h", "no database name"),
        ("postgresql://u:secret@h:notaport/db", "the port is not a number"),
        ("", "empty database URL"),
    ],
)
def test_an_unusable_url_is_one_line_that_never_shows_the_password(text: str, reason: str) -> None:
    with pytest.raises(DatabaseConfigError) as caught:
        parse_database_url(text)
    assert reason in str(caught.value)
    assert "secret" not in str(caught.value)
    assert "\n" not in str(caught.value)


# -- engines --------------------------------------------------------------------------------


def test_a_sqlite_engine_makes_a_private_file_with_foreign_keys_and_a_busy_timeout(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new" / "side.db"
    engine = open_engine(sqlite_url(path), side="ladder")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() > 0
    finally:
        engine.dispose()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_sqlite_write_transaction_holds_the_write_lock_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "side.db"
    engine = open_engine(sqlite_url(path), side="ladder")
    try:
        with write_transaction(engine) as connection:
            connection.exec_driver_sql("SELECT 1")  # a read only: a deferred BEGIN locks nothing
            other = sqlite3.connect(path, timeout=0)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()
    finally:
        engine.dispose()


def test_tables_without_a_schema_land_in_the_sides_schema_on_postgresql(db_url: str) -> None:
    url = parse_database_url(db_url)
    metadata = sqlalchemy.MetaData()
    table = sqlalchemy.Table("matches", metadata, sqlalchemy.Column("n", sqlalchemy.Integer))
    engines = [open_engine(url, side=side) for side in ("referee", "ladder")]
    try:
        for number, engine in enumerate(engines):
            metadata.create_all(engine)
            with engine.begin() as connection:
                connection.execute(table.insert().values(n=number))
        counts = []
        for engine in engines:
            with engine.connect() as connection:
                counts.append(connection.execute(sqlalchemy.select(table.c.n)).scalars().all())
    finally:
        for engine in engines:
            engine.dispose()
    if url.backend is Backend.POSTGRESQL:
        # Two tables named `matches`, one in each side's schema.
        assert counts == [[0], [1]]
    else:
        assert counts == [[0, 1], [0, 1]]  # one file: the caller gives each side its own


# -- connection failures --------------------------------------------------------------------


def test_a_postgresql_that_is_down_is_unavailable_naming_host_and_port() -> None:
    port = free_port()  # nothing listens there
    url = parse_database_url(f"postgresql://u:secret@127.0.0.1:{port}/arena")
    with pytest.raises(DatabaseUnavailable) as caught:
        open_engine(url, side="ladder")
    message = str(caught.value)
    assert f"127.0.0.1:{port}" in message
    assert "secret" not in message
    assert "\n" not in message


def test_a_missing_database_is_named(postgres: PostgresServer) -> None:
    url = parse_database_url(f"postgresql://{postgres.user}@127.0.0.1:{postgres.port}/nosuchdb")
    with pytest.raises(DatabaseMissing, match="database 'nosuchdb' does not exist"):
        open_engine(url, side="ladder")


def test_a_wrong_password_is_named_with_the_user(postgres: PostgresServer) -> None:
    password_role(postgres)
    url = parse_database_url(f"postgresql://pwuser:wrong@127.0.0.1:{postgres.port}/postgres")
    with pytest.raises(DatabaseAuthFailed) as caught:
        open_engine(url, side="ladder")
    assert "password authentication failed for user 'pwuser'" in str(caught.value)
    assert "wrong" not in str(caught.value)


# -- retrying -------------------------------------------------------------------------------


def test_retrying_backs_off_on_unavailability_and_raises_the_last_error() -> None:
    pauses: list[float] = []

    def down() -> None:
        raise DatabaseUnavailable("cannot reach PostgreSQL at h:1")

    with pytest.raises(DatabaseUnavailable, match="gave up saving after 4 attempts"):
        retrying(down, what="saving", attempts=4, first_delay=1.0, sleep=pauses.append)
    # Doubled each time, then up to half taken off by the jitter.
    assert [
        low <= pause <= 2 * low for low, pause in zip([0.5, 1.0, 2.0], pauses, strict=True)
    ] == [True, True, True]


def test_retrying_runs_a_conflicting_transaction_again_but_no_other_error() -> None:
    calls: list[int] = []

    def conflict_once() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise DatabaseConflict("serialization failure")
        return len(calls)

    assert retrying(conflict_once, what="t", sleep=lambda _: None) == 2

    def broken() -> None:
        calls.append(1)
        raise DatabaseMissing("database 'x' does not exist")

    calls.clear()
    with pytest.raises(DatabaseMissing):
        retrying(broken, what="t", sleep=lambda _: None)
    assert len(calls) == 1


def test_retrying_classifies_driver_errors_when_given_the_url(postgres: PostgresServer) -> None:
    url = parse_database_url(f"postgresql://u@127.0.0.1:{free_port()}/arena")
    engine = sqlalchemy.create_engine(url.url, connect_args={"connect_timeout": 2})
    tries: list[int] = []

    def connect() -> None:
        tries.append(1)
        with engine.connect():
            pass

    with pytest.raises(DatabaseUnavailable):
        retrying(connect, what="t", attempts=2, url=url, sleep=lambda _: None)
    assert len(tries) == 2
    engine.dispose()


# -- migrations -----------------------------------------------------------------------------

REVISION = '''"""{doc}"""
import sqlalchemy as sa
from alembic import op

revision = "{rev}"
down_revision = {down!r}


def upgrade() -> None:
    {body}
'''


def write_scripts(folder: Path, revisions: list[tuple[str, str]]) -> Path:
    """A migration folder with ``revisions`` [(id, upgrade body)] in a chain."""
    (folder / "versions").mkdir(parents=True)
    down = None
    for rev, body in revisions:
        (folder / "versions" / f"{rev}.py").write_text(
            REVISION.format(doc=rev, rev=rev, down=down, body=body)
        )
        down = rev
    return folder


LEGACY = {1: "0001"}
CREATE_BOTS = 'op.create_table("bots", sa.Column("name", sa.Text, primary_key=True))'
ADD_COLOUR = 'op.add_column("bots", sa.Column("colour", sa.Text, server_default="red"))'


def test_a_new_database_is_migrated_to_the_newest_revision_and_reopens_without_work(
    db_url: str, tmp_path: Path
) -> None:
    scripts = write_scripts(tmp_path / "m", [("0001", CREATE_BOTS), ("0002", ADD_COLOUR)])
    url = parse_database_url(db_url)
    engine = open_engine(url, side="ladder")
    try:
        first = upgrade(engine, url, side="ladder", script_location=scripts)
        again = upgrade(engine, url, side="ladder", script_location=scripts)
        with engine.begin() as connection:
            connection.exec_driver_sql("INSERT INTO bots (name) VALUES ('a')")
            colour = connection.exec_driver_sql("SELECT colour FROM bots").scalar_one()
    finally:
        engine.dispose()
    assert (first.before, first.after) == (None, "0002")
    assert (again.before, again.after) == ("0002", "0002")
    assert colour == "red"


def test_the_scripts_are_read_once_until_a_revision_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A store opened per web request must not load every revision file again each time.
    scripts = write_scripts(tmp_path / "m", [("0001", CREATE_BOTS)])
    reads: list[str] = []
    read = ScriptDirectory.from_config.__func__  # type: ignore[attr-defined]

    def counted(cls: type[ScriptDirectory], config: Config) -> ScriptDirectory:
        reads.append(str(config.get_main_option("script_location")))
        return read(cls, config)  # type: ignore[no-any-return]

    monkeypatch.setattr(ScriptDirectory, "from_config", classmethod(counted))
    url = parse_database_url(f"sqlite:///{tmp_path / 'store.db'}")
    engine = open_engine(url, side="ladder")
    try:
        first = upgrade(engine, url, side="ladder", script_location=scripts)
        again = upgrade(engine, url, side="ladder", script_location=scripts)
        assert head_revision(scripts) == "0001"
        assert len(reads) == 1
        (scripts / "versions" / "0002.py").write_text(
            REVISION.format(doc="0002", rev="0002", down="0001", body=ADD_COLOUR)
        )
        newer = upgrade(engine, url, side="ladder", script_location=scripts)
    finally:
        engine.dispose()
    assert (first.after, again.before, newer.before, newer.after) == ("0001",) * 3 + ("0002",)
    assert len(reads) == 2


def test_a_database_of_a_newer_revision_is_refused(db_url: str, tmp_path: Path) -> None:
    newer = write_scripts(tmp_path / "new", [("0001", CREATE_BOTS), ("0002", ADD_COLOUR)])
    older = write_scripts(tmp_path / "old", [("0001", CREATE_BOTS)])
    url = parse_database_url(db_url)
    engine = open_engine(url, side="ladder")
    try:
        upgrade(engine, url, side="ladder", script_location=newer)
        with pytest.raises(SchemaTooNew) as caught:
            upgrade(engine, url, side="ladder", script_location=older)
    finally:
        engine.dispose()
    assert "schema is version 0002, this brandeln knows up to 0001: upgrade brandeln" in str(
        caught.value
    )


def test_a_legacy_sqlite_file_is_stamped_at_its_revision_and_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE bots (name TEXT PRIMARY KEY)")
        db.execute("INSERT INTO bots VALUES ('kept')")
        db.execute("PRAGMA user_version = 1")
    db.close()
    scripts = write_scripts(tmp_path / "m", [("0001", CREATE_BOTS), ("0002", ADD_COLOUR)])
    url = sqlite_url(path)
    engine = open_engine(url, side="ladder")
    try:
        result = upgrade(
            engine, url, side="ladder", script_location=scripts, legacy_revisions={1: "0001"}
        )
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT name, colour FROM bots").all()
            mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar_one()
    finally:
        engine.dispose()
    assert (result.before, result.after, result.adopted_from) == ("0001", "0002", 1)
    assert [tuple(row) for row in rows] == [("kept", "red")]
    assert mode == "wal"


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    before = path.read_bytes()
    scripts = write_scripts(tmp_path / "m", [("0001", CREATE_BOTS)])
    url = sqlite_url(path)
    engine = open_engine(url, side="ladder")
    try:
        with pytest.raises(DatabaseError, match="not a ladder database"):
            upgrade(
                engine, url, side="ladder", script_location=scripts, legacy_revisions={1: "0001"}
            )
    finally:
        engine.dispose()
    assert path.read_bytes() == before


def test_a_legacy_file_of_a_newer_user_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE bots (name TEXT)")
        db.execute("PRAGMA user_version = 7")
    db.close()
    scripts = write_scripts(tmp_path / "m", [("0001", CREATE_BOTS)])
    url = sqlite_url(path)
    engine = open_engine(url, side="ladder")
    try:
        with pytest.raises(SchemaTooNew, match="version 7"):
            upgrade(
                engine, url, side="ladder", script_location=scripts, legacy_revisions={1: "0001"}
            )
    finally:
        engine.dispose()


def test_a_postgresql_connection_a_cut_left_mid_query_is_dropped_as_a_disconnect() -> None:
    # A cut can leave a pooled psycopg connection mid-query (status ACTIVE): the pool's ping
    # then fails with a ProgrammingError that is no disconnect to SQLAlchemy, so the pool would
    # hand it out again and a match's log append would give up (seen once in a full run).
    url = brandeln.datastore.url.parse_database_url("postgresql+psycopg://u@127.0.0.1:9/db")
    engine = _postgresql_engine(url, "referee")  # no connection made: the engine alone
    stuck = SimpleNamespace(
        original_exception=psycopg.ProgrammingError(
            "can't change 'autocommit' now: connection in transaction status ACTIVE"
        ),
        is_disconnect=False,
    )
    refused = SimpleNamespace(
        original_exception=psycopg.errors.UniqueViolation("duplicate key"), is_disconnect=False
    )
    # handle_error is a dialect event: its listeners sit on the engine's dialect.
    engine.dialect.dispatch.handle_error(stuck)
    engine.dialect.dispatch.handle_error(refused)
    assert stuck.is_disconnect
    assert not refused.is_disconnect

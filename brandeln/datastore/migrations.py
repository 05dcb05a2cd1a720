"""Schema migrations with Alembic, run programmatically when a store opens (no alembic.ini:
each side ships its revision scripts as package data, ``<side>/migrations/versions/``).

:func:`upgrade` brings a database to the newest revision the code knows, in one transaction
(PostgreSQL's DDL is transactional; SQLite's too, under ``BEGIN IMMEDIATE``), under a lock so
that processes opening a new database at once create it once. It refuses:

- a database at a revision the code does not know (a newer brandeln migrated it):
  :class:`~brandeln.datastore.errors.SchemaTooNew`;
- a file or schema holding tables but no revision and no known legacy version: another
  program's database.

**Adopting the files of older versions.** Before Alembic, each SQLite store kept its schema
version in ``PRAGMA user_version``. ``legacy_revisions`` maps such a version to the revision
whose schema it is: the file is stamped at that revision (after ``check_legacy`` found its
tables complete) and upgraded from there like any other.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy
from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError

from brandeln.datastore.engine import write_transaction
from brandeln.datastore.errors import DatabaseError, SchemaTooNew, explain
from brandeln.datastore.url import Backend, DatabaseUrl

__all__ = ["LegacyCheck", "UpgradeResult", "head_revision", "upgrade"]

# (connection, user_version) -> what the legacy file lacks of that version's schema ("": ok).
LegacyCheck = Callable[[sqlalchemy.Connection, int], str]
VERSION_TABLE = "alembic_version"


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    """Where the database stood before :func:`upgrade` (None: it was new) and where it stands."""

    before: str | None
    after: str
    adopted_from: int | None = None  # the legacy user_version it was stamped from


@dataclass(frozen=True, slots=True)
class _State:
    revision: str | None
    user_version: int
    tables: int  # tables other than the version table
    sqlite: bool


def _config(script_location: Path) -> Config:
    config = Config()
    config.set_main_option("script_location", str(script_location))
    return config


def _script(script_location: Path) -> tuple[ScriptDirectory, str]:
    """The scripts at ``script_location`` and their head revision.

    Read once per process and folder state: every store open (the web app opens its stores per
    request) would otherwise load and run each revision file again, some 5 ms a store. A
    folder whose revision files change is read afresh.
    """
    return _read_scripts(str(script_location), _fingerprint(script_location))


def _fingerprint(script_location: Path) -> tuple[tuple[str, int, int], ...]:
    try:
        with os.scandir(script_location / "versions") as entries:
            stats = [(e.name, e.stat()) for e in entries if e.name.endswith(".py")]  # one each
            return tuple(sorted((name, st.st_mtime_ns, st.st_size) for name, st in stats))
    except OSError:
        return ()  # no folder: ScriptDirectory says so, uncached below


@functools.lru_cache(maxsize=16)
def _read_scripts(
    location: str, fingerprint: tuple[tuple[str, int, int], ...]
) -> tuple[ScriptDirectory, str]:
    # The fingerprint is the cache key only: a changed folder is a new key.
    script = ScriptDirectory.from_config(_config(Path(location)))
    # Loads the revision map now, once: the cached object is then only read, from any thread.
    head = script.get_current_head()
    if head is None:
        raise DatabaseError(f"{location}: no migration scripts")
    return script, head


def head_revision(script_location: Path) -> str:
    """The newest revision of the scripts at ``script_location``."""
    return _script(script_location)[1]


def upgrade(
    engine: sqlalchemy.Engine,
    url: DatabaseUrl,
    *,
    side: str,
    script_location: Path,
    legacy_revisions: Mapping[int, str] | None = None,
    check_legacy: LegacyCheck | None = None,
) -> UpgradeResult:
    """Migrate ``side``'s tables at ``engine`` to the newest revision (see the module doc)."""
    script, head = _script(script_location)
    legacy = dict(legacy_revisions or {})
    schema = url.schema_for(side)
    where = url.redacted()
    try:
        # First a look without writing: a refused file stays exactly as it was.
        with engine.connect() as connection, connection.begin():
            state = _state(connection, url, schema)
            _refuse(state, script, head, legacy, side, where)
            _check_legacy(connection, state, legacy, check_legacy, side, where)
            if state.revision == head:
                return UpgradeResult(head, head)
        if url.backend is Backend.SQLITE and not url.is_memory:
            # Persistent in the file; not allowed inside a transaction, so on the driver's
            # connection (SQLAlchemy's would begin one first).
            raw = engine.raw_connection()
            try:
                raw.driver_connection.execute("PRAGMA journal_mode=WAL")  # type: ignore[union-attr]
            finally:
                raw.close()
        with write_transaction(engine) as connection:
            if url.backend is Backend.POSTGRESQL:
                connection.execute(
                    sqlalchemy.text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                    {"key": f"brandeln-migrate-{side}"},
                )
            # Again under the lock: another process may have migrated meanwhile.
            state = _state(connection, url, schema)
            _refuse(state, script, head, legacy, side, where)
            _check_legacy(connection, state, legacy, check_legacy, side, where)
            adopted = None
            if state.revision is None and state.user_version in legacy:
                adopted = state.user_version
                MigrationContext.configure(connection, opts={"version_table_schema": schema}).stamp(
                    script, legacy[adopted]
                )
            before = state.revision if adopted is None else legacy[adopted]
            _run_to_head(_config(script_location), script, connection, schema)
            if url.backend is Backend.SQLITE:
                # Older brandeln versions read user_version: one they do not know makes them
                # refuse the file instead of misreading it.
                connection.exec_driver_sql(f"PRAGMA user_version = {max(legacy, default=0) + 1}")
    except DatabaseError:
        raise
    except (sqlalchemy.exc.SQLAlchemyError, sqlite3.Error) as error:
        raise explain(error, url) from None
    return UpgradeResult(before, head, adopted)


def _state(connection: sqlalchemy.Connection, url: DatabaseUrl, schema: str | None) -> _State:
    inspector = sqlalchemy.inspect(connection)
    tables = [name for name in inspector.get_table_names(schema=schema) if name != VERSION_TABLE]
    revision = MigrationContext.configure(
        connection, opts={"version_table_schema": schema}
    ).get_current_revision()
    user_version = 0
    if url.backend is Backend.SQLITE:
        user_version = int(connection.exec_driver_sql("PRAGMA user_version").scalar_one())
    return _State(revision, user_version, len(tables), url.backend is Backend.SQLITE)


def _check_legacy(
    connection: sqlalchemy.Connection,
    state: _State,
    legacy: Mapping[int, str],
    check: LegacyCheck | None,
    side: str,
    where: str,
) -> None:
    """A legacy file must hold its version's tables before it is stamped (read only)."""
    if state.revision is not None or state.user_version not in legacy or check is None:
        return
    lacking = check(connection, state.user_version)
    if lacking:
        raise DatabaseError(
            f"{where}: not a usable {side} database (schema version {state.user_version} but "
            f"{lacking}); restore it from a backup or move it away to start afresh"
        )


def _refuse(
    state: _State,
    script: ScriptDirectory,
    head: str,
    legacy: Mapping[int, str],
    side: str,
    where: str,
) -> None:
    if state.revision is not None:
        try:
            script.get_revision(state.revision)
        except CommandError:
            raise SchemaTooNew(
                f"{where}: the {side} database schema is version {state.revision}, this "
                f"brandeln knows up to {head}: upgrade brandeln"
            ) from None
        return
    if state.user_version > max(legacy, default=0):
        raise SchemaTooNew(
            f"{where}: the {side} database schema is version {state.user_version}, this "
            f"brandeln knows up to {head}: upgrade brandeln"
        )
    if (state.user_version == 0 and state.tables) or (
        state.user_version and state.user_version not in legacy
    ):
        holder = "an SQLite file" if state.sqlite else "its schema holds tables"
        raise DatabaseError(f"{where}: {holder}, but not a {side} database")


def _run_to_head(
    config: Config, script: ScriptDirectory, connection: sqlalchemy.Connection, schema: str | None
) -> None:
    def revisions(revision: str, _context: object) -> object:
        # What `alembic upgrade head` runs (alembic.command.upgrade).
        return script._upgrade_revs("head", revision)

    with EnvironmentContext(config, script, fn=revisions, destination_rev="head") as env:
        env.configure(connection=connection, version_table_schema=schema)
        with env.begin_transaction():
            env.run_migrations()

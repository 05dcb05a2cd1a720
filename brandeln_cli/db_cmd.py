"""`brandeln db copy SRC DST`: both stores and every match log, SQLite <-> PostgreSQL.

SRC and DST are each a data folder (its ``referee.db`` or ``embedded/referee.db``, its logs,
its ``ladder.db``) or a PostgreSQL URL (one database: the ``referee`` and ``ladder`` schemas,
the logs in ``referee.match_logs``). The copy lives here, in the CLI, because it composes the
two sides (arena and ladder never import each other).

How: each side's destination is opened through its own migrations (the same tables at the
same revision as the source, which is opened, and so migrated, the same way); every table of
the side's ``METADATA`` is copied row for row in its foreign-key order, except the logs table,
whose logs are copied as logs: read whole from the source (a file or the database), written
whole to the destination (a 0600 file in ``DST/logs``, or one piece in ``match_logs``), and
the match row's ``log_path`` says where. Then it is verified: every row of every table read
back from both and compared (``log_path`` as rewritten), every log read back and compared
byte for byte. A destination that holds any row is refused unless ``--force`` (which empties
its tables first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from brandeln_cli.output import console, fail

if TYPE_CHECKING:
    import sqlalchemy

    from datastore.url import DatabaseUrl

db_app = typer.Typer(help="Copy the stores between SQLite and PostgreSQL.", no_args_is_help=True)

BATCH_ROWS = 1000
LOG_TABLE = "match_logs"


class CopyError(Exception):
    """A one-line reason the copy cannot be made or did not verify."""


@dataclass(frozen=True)
class Location:
    """SRC or DST: a data folder, or a PostgreSQL database holding both sides."""

    text: str
    folder: Path | None  # a data folder (SQLite files), else None
    url: DatabaseUrl | None  # PostgreSQL

    def describe(self) -> str:
        return str(self.folder) if self.folder is not None else self.url_text()

    def url_text(self) -> str:
        return self.url.redacted() if self.url is not None else ""


def parse_location(text: str) -> Location:
    from datastore.errors import DatabaseError  # noqa: PLC0415 - keep --help fast
    from datastore.url import Backend, parse_database_url  # noqa: PLC0415

    if "://" not in text:
        return Location(text, Path(text).expanduser(), None)
    try:
        url = parse_database_url(text)
    except DatabaseError as error:
        raise CopyError(str(error)) from None
    if url.backend is not Backend.POSTGRESQL:
        raise CopyError(
            f"{text!r}: for SQLite give the data folder (it holds a file per side), not a URL"
        )
    return Location(text, None, url)


@dataclass
class Tally:
    """What one side's copy moved: rows per table, logs and their bytes."""

    rows: dict[str, int] = field(default_factory=dict)
    logs: int = 0
    log_bytes: int = 0
    missing_logs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Side:
    """One store: its name (the PostgreSQL schema), tables and how to open it at the newest
    revision (its migrations run), giving the engine and what closes it."""

    name: str
    metadata: sqlalchemy.MetaData
    open_store: Callable[[DatabaseUrl, Path | None], tuple[sqlalchemy.Engine, Callable[[], None]]]
    sqlite_files: Callable[[Path], list[Path]]  # where it lives in a data folder, in order
    has_logs: bool = False


def _referee_side() -> Side:
    from arena.schema import METADATA, SIDE  # noqa: PLC0415
    from arena.store import RefereeStore  # noqa: PLC0415

    def open_store(
        url: DatabaseUrl, logs_dir: Path | None
    ) -> tuple[sqlalchemy.Engine, Callable[[], None]]:
        store = RefereeStore(url, logs_dir)
        return store.engine, store.close

    def files(folder: Path) -> list[Path]:
        return [folder / "referee.db", folder / "embedded" / "referee.db"]

    return Side(SIDE, METADATA, open_store, files, has_logs=True)


def _ladder_side() -> Side:
    """The ladder's store, opened by the ladder's own code: a ladder.db of an older version
    (``user_version`` 1 or 2, no Alembic table) is adopted and migrated as `season run` would."""
    from ladder.schema import METADATA as LADDER_METADATA  # noqa: PLC0415 - keep --help fast

    def open_store(
        url: DatabaseUrl, _logs: Path | None
    ) -> tuple[sqlalchemy.Engine, Callable[[], None]]:
        from ladder.errors import StorageError  # noqa: PLC0415
        from ladder.storage import LadderStore  # noqa: PLC0415

        try:
            store = LadderStore.open(url)
        except StorageError as error:
            raise CopyError(str(error)) from None
        return store.engine, store.close

    return Side("ladder", LADDER_METADATA, open_store, lambda folder: [folder / "ladder.db"])


def sides() -> list[Side]:
    return [_referee_side(), _ladder_side()]


# --- one side -------------------------------------------------------------------------------
def _sqlite_source(side: Side, folder: Path) -> Path | None:
    present = [p for p in side.sqlite_files(folder) if p.is_file() and p.stat().st_size]
    if len(present) > 1:
        names = " and ".join(str(p) for p in present)
        raise CopyError(
            f"{folder} holds two {side.name} databases ({names}): copy one folder per "
            "database (move one of them into a folder of its own)"
        )
    return present[0] if present else None


def _pg_side_present(url: DatabaseUrl, side: str) -> bool:
    import sqlalchemy  # noqa: PLC0415

    from datastore.engine import open_engine  # noqa: PLC0415

    engine = open_engine(url, side=side)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                sqlalchemy.text(
                    "SELECT 1 FROM information_schema.tables WHERE table_schema = :side "
                    "AND table_name = 'alembic_version'"
                ),
                {"side": side},
            ).first()
    finally:
        engine.dispose()
    return found is not None


def _source_url(side: Side, location: Location) -> DatabaseUrl | None:
    from datastore.url import sqlite_url  # noqa: PLC0415

    if location.folder is not None:
        path = _sqlite_source(side, location.folder)
        return None if path is None else sqlite_url(path)
    assert location.url is not None
    return location.url if _pg_side_present(location.url, side.name) else None


def _destination_url(side: Side, location: Location, source: DatabaseUrl) -> DatabaseUrl:
    from arena.datalock import current_holder  # noqa: PLC0415
    from datastore.url import sqlite_url  # noqa: PLC0415

    if location.folder is None:
        assert location.url is not None
        return location.url
    candidates = side.sqlite_files(location.folder)
    # An embedded referee's database goes where an embedded one would be.
    path = candidates[0]
    if source.path is not None and source.path.parent.name == "embedded" and len(candidates) > 1:
        path = candidates[1]
    holder = current_holder(path) if side.has_logs else None
    if holder is not None:
        raise CopyError(f"{holder.describe()} is using {path}: stop it first")
    return sqlite_url(path)


def _ordered(table: sqlalchemy.Table) -> sqlalchemy.Select[Any]:
    import sqlalchemy  # noqa: PLC0415

    keys = list(table.primary_key.columns) or list(table.columns)
    return sqlalchemy.select(table).order_by(*keys)


def _rows(engine: sqlalchemy.Engine, table: sqlalchemy.Table) -> Iterator[dict[str, Any]]:
    with engine.connect() as conn:
        for row in conn.execute(_ordered(table)).mappings():
            yield {
                key: bytes(value) if isinstance(value, memoryview) else value
                for key, value in row.items()
            }


def _is_empty(engine: sqlalchemy.Engine, side: Side) -> bool:
    import sqlalchemy  # noqa: PLC0415

    with engine.connect() as conn:
        return all(
            conn.execute(sqlalchemy.select(sqlalchemy.literal(1)).select_from(t).limit(1)).first()
            is None
            for t in side.metadata.sorted_tables
        )


def _empty(engine: sqlalchemy.Engine, side: Side) -> None:
    with engine.begin() as conn:
        for table in reversed(side.metadata.sorted_tables):
            conn.execute(table.delete())


class _Logs:
    """Reading and writing whole logs at either end (a file, or pieces in ``match_logs``)."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl, logs_dir: Path | None) -> None:
        self.engine = engine
        self.url = url
        self.logs_dir = logs_dir
        self.table = _referee_side().metadata.tables[LOG_TABLE]

    @property
    def in_database(self) -> bool:
        return self.logs_dir is None

    def path_for(self, match_id: str) -> str:
        from arena.logstore import db_log_path  # noqa: PLC0415

        if self.logs_dir is None:
            return db_log_path(match_id)
        return str((self.logs_dir / f"{match_id}.jsonl").resolve())

    def read(self, log_path: str) -> bytes:
        import sqlalchemy  # noqa: PLC0415

        from arena.logstore import log_in_database  # noqa: PLC0415

        match_id = log_in_database(log_path)
        if match_id is None:
            return Path(log_path).read_bytes()
        query = (
            sqlalchemy.select(self.table.c.chunk, self.table.c.body)
            .where(self.table.c.match_id == match_id)
            .order_by(self.table.c.chunk)
        )
        with self.engine.connect() as conn:
            pieces = [(int(n), bytes(body)) for n, body in conn.execute(query)]
        if [n for n, _ in pieces] != list(range(len(pieces))) or not pieces:
            raise OSError(f"the log of match {match_id} in the database is missing or damaged")
        return b"".join(body for _, body in pieces)

    def write(self, match_id: str, data: bytes) -> None:
        from datastore.private_files import private_dir, private_file  # noqa: PLC0415

        if self.logs_dir is None:
            with self.engine.begin() as conn:
                conn.execute(self.table.delete().where(self.table.c.match_id == match_id))
                conn.execute(self.table.insert().values(match_id=match_id, chunk=0, body=data))
            return
        private_dir(self.logs_dir)
        path = Path(self.path_for(match_id))
        private_file(path)  # 0600 before a byte is in it
        path.write_bytes(data)


def _copy_side(
    side: Side, source: Location, destination: Location, force: bool, stack: ExitStack
) -> Tally | None:
    """Copy one side; None when SRC has no such store."""
    src_url = _source_url(side, source)
    if src_url is None:
        return None
    dst_url = _destination_url(side, destination, src_url)
    if src_url.redacted() == dst_url.redacted():
        raise CopyError(f"{src_url.redacted()}: the source and the destination are one database")
    src_logs = None if src_url.path is None else src_url.path.parent / "logs"
    dst_logs = None if dst_url.path is None else dst_url.path.parent / "logs"
    src_engine, close = side.open_store(src_url, src_logs)
    stack.callback(close)
    dst_engine, close = side.open_store(dst_url, dst_logs)
    stack.callback(close)
    if not _is_empty(dst_engine, side):
        if not force:
            raise CopyError(
                f"{dst_url.redacted()}: the {side.name} store there is not empty; copy into an "
                "empty one, or give --force to replace what it holds"
            )
        _empty(dst_engine, side)
    tally = Tally()
    logs_src = _Logs(src_engine, src_url, src_logs) if side.has_logs else None
    logs_dst = _Logs(dst_engine, dst_url, dst_logs) if side.has_logs else None
    rewrite = _log_paths(logs_dst)
    for table in side.metadata.sorted_tables:
        if side.has_logs and table.name == LOG_TABLE:
            continue
        tally.rows[table.name] = _copy_table(src_engine, dst_engine, table, rewrite)
    if logs_src is not None and logs_dst is not None:
        _copy_logs(src_engine, side, logs_src, logs_dst, tally)
        _bump_session_numbers(dst_engine, dst_url)
    _verify(side, src_engine, dst_engine, rewrite, logs_src, logs_dst, tally)
    return tally


Rewrite = Callable[[str, dict[str, Any]], dict[str, Any]]


def _log_paths(logs: _Logs | None) -> Rewrite:
    """A row as the destination holds it: a match's ``log_path`` names its log there."""

    def rewrite(table: str, row: dict[str, Any]) -> dict[str, Any]:
        if logs is not None and table == "matches":
            return {**row, "log_path": logs.path_for(str(row["match_id"]))}
        return row

    return rewrite


def _copy_table(
    src: sqlalchemy.Engine, dst: sqlalchemy.Engine, table: sqlalchemy.Table, rewrite: Rewrite
) -> int:
    count = 0
    batch: list[dict[str, Any]] = []
    with dst.begin() as conn:
        for row in _rows(src, table):
            batch.append(rewrite(table.name, row))
            if len(batch) == BATCH_ROWS:
                conn.execute(table.insert(), batch)
                count += len(batch)
                batch = []
        if batch:
            conn.execute(table.insert(), batch)
            count += len(batch)
    return count


def _copy_logs(
    src: sqlalchemy.Engine, side: Side, logs_src: _Logs, logs_dst: _Logs, tally: Tally
) -> None:
    matches = side.metadata.tables["matches"]
    for row in _rows(src, matches):
        match_id = str(row["match_id"])
        try:
            data = logs_src.read(str(row["log_path"]))
        except OSError:
            tally.missing_logs.append(match_id)
            continue
        logs_dst.write(match_id, data)
        tally.logs += 1
        tally.log_bytes += len(data)


def _bump_session_numbers(engine: sqlalchemy.Engine, url: DatabaseUrl) -> None:
    """On PostgreSQL the session sequence goes past the copied sessions, so a referee on the
    copy numbers new sessions after them."""
    import sqlalchemy  # noqa: PLC0415

    from datastore.url import Backend  # noqa: PLC0415

    if url.backend is not Backend.POSTGRESQL:
        return
    with engine.begin() as conn:
        highest = conn.execute(
            sqlalchemy.text(
                "SELECT max(CAST(substr(session_id, 2) AS BIGINT)) FROM referee.sessions "
                "WHERE session_id LIKE 's%'"
            )
        ).scalar()
        if highest:
            conn.execute(
                sqlalchemy.text("SELECT setval('referee.session_numbers', :n)"), {"n": highest}
            )


def _verify(
    side: Side,
    src: sqlalchemy.Engine,
    dst: sqlalchemy.Engine,
    rewrite: Rewrite,
    logs_src: _Logs | None,
    logs_dst: _Logs | None,
    tally: Tally,
) -> None:
    """Every row and every log of the destination against the source's."""
    for table in side.metadata.sorted_tables:
        if side.has_logs and table.name == LOG_TABLE:
            continue
        theirs = _rows(dst, table)
        for number, mine in enumerate(_rows(src, table), start=1):
            copied = next(theirs, None)
            if copied != rewrite(table.name, mine):
                raise CopyError(
                    f"verification failed: {side.name}.{table.name} row {number} differs in "
                    "the destination"
                )
        if next(theirs, None) is not None:
            raise CopyError(f"verification failed: {side.name}.{table.name} has extra rows")
    if logs_src is None or logs_dst is None:
        return
    checked = 0
    for row in _rows(src, side.metadata.tables["matches"]):
        match_id = str(row["match_id"])
        if match_id in tally.missing_logs:
            continue
        if logs_dst.read(logs_dst.path_for(match_id)) != logs_src.read(str(row["log_path"])):
            raise CopyError(f"verification failed: the log of match {match_id} differs")
        checked += 1
    if checked != tally.logs:
        raise CopyError(f"verification failed: {checked} logs compared, {tally.logs} copied")


@contextmanager
def _database_errors() -> Iterator[None]:
    from arena.errors import StoreError  # noqa: PLC0415
    from datastore.errors import DatabaseError  # noqa: PLC0415

    try:
        yield
    except (StoreError, DatabaseError) as error:
        raise CopyError(str(error)) from None
    except OSError as error:
        raise CopyError(f"{error.filename or ''}: {error.strerror or error}") from None
    except Exception as error:
        import sqlalchemy.exc  # noqa: PLC0415

        if isinstance(error, sqlalchemy.exc.SQLAlchemyError):
            raise CopyError(str(error).splitlines()[0]) from None
        raise


def copy_stores(source_text: str, destination_text: str, force: bool) -> dict[str, Tally]:
    """Copy every side SRC has to DST and verify it; what was copied, by side."""
    source = parse_location(source_text)
    destination = parse_location(destination_text)
    if source.folder is not None and not source.folder.is_dir():
        raise CopyError(f"{source.folder}: no such data folder")
    copied: dict[str, Tally] = {}
    with _database_errors(), ExitStack() as stack:
        for side in sides():
            tally = _copy_side(side, source, destination, force, stack)
            if tally is not None:
                copied[side.name] = tally
    if not copied:
        raise CopyError(f"{source.describe()}: no referee or ladder database to copy")
    return copied


@db_app.command("copy")
def copy(
    source: Annotated[str, typer.Argument(help="Data folder or postgresql:// URL to copy.")],
    destination: Annotated[
        str, typer.Argument(help="Data folder or postgresql:// URL to copy into (empty).")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Replace what the destination's stores hold.")
    ] = False,
) -> None:
    """Copy the referee's and the ladder's stores and every match log, then verify the copy
    row by row and byte by byte (SQLite <-> PostgreSQL).

    Stop the referees and season runs on both first. The source is opened through its
    migrations (an older file is upgraded in place first, as any command would).
    """
    try:
        copied = copy_stores(source, destination, force)
    except CopyError as error:
        raise fail(str(error)) from None
    from brandeln_cli.layout import compact_table, fixed  # noqa: PLC0415

    table = compact_table(title="copied and verified")
    fixed(table, "table")
    fixed(table, "rows", right=True)
    fixed(table, "bytes", right=True)
    for side, tally in copied.items():
        for name, rows in tally.rows.items():
            table.add_row(f"{side}.{name}", str(rows), "")
        if tally.logs or tally.missing_logs:
            table.add_row(f"{side} match logs", str(tally.logs), str(tally.log_bytes))
    console.print(table, soft_wrap=False)
    for side, tally in copied.items():
        if tally.missing_logs:
            console.print(
                f"{len(tally.missing_logs)} {side} match(es) had no readable log to copy "
                f"(their rows are copied): {', '.join(tally.missing_logs[:5])}"
                + (", ..." if len(tally.missing_logs) > 5 else ""),
                highlight=False,
                markup=False,
            )

"""The copy itself: each side SRC has, copied to DST and verified, inside one error boundary
that makes every database or file failure a one-line :class:`CopyError`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import sqlalchemy
import sqlalchemy.exc

from brandeln.arena.errors import StoreError
from brandeln.datastore.errors import DatabaseError
from brandeln.datastore.url import Backend, DatabaseUrl
from brandeln.services import data_folder
from brandeln.services.db_copy.logs import LOG_TABLE, MatchLogs
from brandeln.services.db_copy.rows import Rewrite, copy_table, empty, is_empty, rows
from brandeln.services.db_copy.sides import (
    CopyError,
    Location,
    Side,
    Tally,
    destination_url,
    parse_location,
    sides,
    source_url,
)
from brandeln.services.db_copy.verify import verify


def _copy_side(
    side: Side, source: Location, destination: Location, force: bool, stack: ExitStack
) -> Tally | None:
    """Copy one side; None when SRC has no such store."""
    src_url = source_url(side, source)
    if src_url is None:
        return None
    dst_url = destination_url(side, destination, src_url)
    if src_url.redacted() == dst_url.redacted():
        raise CopyError(f"{src_url.redacted()}: the source and the destination are one database")
    src_logs = None if src_url.path is None else data_folder.logs_dir(src_url.path.parent)
    dst_logs = None if dst_url.path is None else data_folder.logs_dir(dst_url.path.parent)
    src_engine, close = side.open_store(src_url, src_logs)
    stack.callback(close)
    dst_engine, close = side.open_store(dst_url, dst_logs)
    stack.callback(close)
    if not is_empty(dst_engine, side):
        if not force:
            raise CopyError(
                f"{dst_url.redacted()}: the {side.name} store there is not empty; copy into an "
                "empty one, or give --force to replace what it holds"
            )
        empty(dst_engine, side)
    tally = Tally()
    logs_src = MatchLogs(src_engine, src_url, src_logs) if side.has_logs else None
    logs_dst = MatchLogs(dst_engine, dst_url, dst_logs) if side.has_logs else None
    rewrite = _log_paths(logs_dst)
    for table in side.metadata.sorted_tables:
        if side.has_logs and table.name == LOG_TABLE:
            continue
        tally.rows[table.name] = copy_table(src_engine, dst_engine, table, rewrite)
    if logs_src is not None and logs_dst is not None:
        _copy_logs(src_engine, side, logs_src, logs_dst, tally)
        _bump_session_numbers(dst_engine, dst_url)
    verify(side, src_engine, dst_engine, rewrite, logs_src, logs_dst, tally)
    return tally


def _log_paths(logs: MatchLogs | None) -> Rewrite:
    """A row as the destination holds it: a match's ``log_path`` names its log there."""

    def rewrite(table: str, row: dict[str, Any]) -> dict[str, Any]:
        if logs is not None and table == "matches":
            return {**row, "log_path": logs.path_for(str(row["match_id"]))}
        return row

    return rewrite


def _copy_logs(
    src: sqlalchemy.Engine, side: Side, logs_src: MatchLogs, logs_dst: MatchLogs, tally: Tally
) -> None:
    matches = side.metadata.tables["matches"]
    for row in rows(src, matches):
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


@contextmanager
def _database_errors() -> Iterator[None]:
    try:
        yield
    except (StoreError, DatabaseError) as error:
        raise CopyError(str(error)) from None
    except OSError as error:
        raise CopyError(f"{error.filename or ''}: {error.strerror or error}") from None
    except sqlalchemy.exc.SQLAlchemyError as error:
        raise CopyError(str(error).splitlines()[0]) from None


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

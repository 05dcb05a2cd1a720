"""Match logs at either end of a copy: read whole and written whole, as a file in the data
folder's logs or as one piece in the referee's ``match_logs`` table."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy

from brandeln.arena.store.logs import db_log_path, log_in_database
from brandeln.arena.store.schema import METADATA
from brandeln.datastore.private_files import private_dir, private_file
from brandeln.datastore.url import DatabaseUrl

LOG_TABLE = "match_logs"


class MatchLogs:
    """Reading and writing whole logs at either end (a file, or pieces in ``match_logs``)."""

    def __init__(self, engine: sqlalchemy.Engine, url: DatabaseUrl, logs_dir: Path | None) -> None:
        self.engine = engine
        self.url = url
        self.logs_dir = logs_dir
        self.table = METADATA.tables[LOG_TABLE]

    @property
    def in_database(self) -> bool:
        """True when this end keeps its logs in the database."""
        return self.logs_dir is None

    def path_for(self, match_id: str) -> str:
        """Where this end keeps the log of ``match_id`` (a match row's ``log_path``)."""
        if self.logs_dir is None:
            return db_log_path(match_id)
        return str((self.logs_dir / f"{match_id}.jsonl").resolve())

    def read(self, log_path: str) -> bytes:
        """The whole log a match row's ``log_path`` names; OSError when missing or damaged."""
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
        """Write the whole log of ``match_id`` where :meth:`path_for` says."""
        if self.logs_dir is None:
            with self.engine.begin() as conn:
                conn.execute(self.table.delete().where(self.table.c.match_id == match_id))
                conn.execute(self.table.insert().values(match_id=match_id, chunk=0, body=data))
            return
        private_dir(self.logs_dir)
        path = Path(self.path_for(match_id))
        private_file(path)  # 0600 before a byte is in it
        path.write_bytes(data)

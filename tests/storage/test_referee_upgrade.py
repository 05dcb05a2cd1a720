"""Today's referee.db (``PRAGMA user_version`` 1) opens with the Alembic-migrated store, and a
database newer than the code is refused.

``tests/data/referee_v1.db`` was made by the code of main before issue 13 (commit c8d28d1:
``RefereeStore(path)``; two bots ``alice`` and ``bob``, an admin token, sessions ``s1`` (closed)
and ``s2`` (left open), a finished match ``m_0123456789abcdef`` and one left running,
``m_running00000000``, as a referee killed mid-match leaves it; then a WAL checkpoint).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy

from brandeln.arena.errors import StoreError
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.store.database import RefereeStore, hash_token

V1_FILE = Path(__file__).resolve().parent.parent / "data" / "referee_v1.db"


@pytest.fixture
def v1_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "referee.db"
    shutil.copyfile(V1_FILE, copy)
    return copy


def test_a_database_of_schema_version_1_is_upgraded_with_its_rows(v1_copy: Path) -> None:
    store = RefereeStore(v1_copy)
    try:
        assert [b.name for b in store.bots()] == ["alice", "bob"]
        assert store.admin_token_hash() == hash_token("x" * 40)
        finished = store.match("m_0123456789abcdef")
        assert finished.status is MatchStatus.FINISHED
        assert finished.balances == (1, -1, 2, -2)
        assert store.last_session_number() == 2
        # The rows of a version-1 referee have no owner: its recovery treats them as gone.
        assert store.mark_running_aborted() == 1
        assert store.match("m_running00000000").status is MatchStatus.ABORTED
        assert store.close_open_sessions() == 1
        alice = store.bots()[0]
        assert [m.match_id for m in store.matches(bot_id=alice.bot_id)] == [
            "m_running00000000",
            "m_0123456789abcdef",
        ]
        store.register_bot("carol")  # and it is writable
    finally:
        store.close()
    with sqlite3.connect(v1_copy) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0002"
        # So the code of version 1 refuses the migrated file instead of misreading it.
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    db.close()
    again = RefereeStore(v1_copy)  # opening a migrated file again changes nothing
    assert len(again.bots()) == 3
    again.close()


def test_a_database_migrated_by_a_newer_brandeln_is_refused(db_url: str, tmp_path: Path) -> None:
    RefereeStore(db_url, tmp_path / "logs").close()
    engine = sqlalchemy.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    table = "referee.alembic_version" if engine.dialect.name == "postgresql" else "alembic_version"
    with engine.begin() as db:
        db.exec_driver_sql(f"UPDATE {table} SET version_num = '0099_from_the_future'")
    engine.dispose()
    with pytest.raises(StoreError, match=r"version 0099_from_the_future.*upgrade brandeln"):
        RefereeStore(db_url, tmp_path / "logs")

"""Match logs on both backends (files beside SQLite, chunks in PostgreSQL), the same bodies:
the same bytes come back; a live deal's hands are never in the store; GetMatch over gRPC from
a referee on either backend; `matches verify --db` names a damaged log in one line."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
import sqlalchemy
from typer.testing import CliRunner

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.errors import StoreError
from brandeln.arena.matchlog import MatchLogWriter
from brandeln.arena.replay import replay_log
from brandeln.arena.store.database import RefereeStore
from brandeln.arena.store.logs import log_in_database
from brandeln.cli.main import app
from brandeln.v1 import admin_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

runner = CliRunner()


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Iterator[RefereeStore]:
    opened = RefereeStore(db_url, tmp_path / "logs")
    yield opened
    opened.close()


def _engine(db_url: str) -> sqlalchemy.Engine:
    return sqlalchemy.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))


def test_a_log_reads_back_byte_for_byte_and_a_live_deal_is_not_in_it(
    store: RefereeStore, tmp_path: Path
) -> None:
    sink, log_path = store.log_store(tmp_path / "logs").open("m_test")
    writer = MatchLogWriter(sink)
    writer.write({"type": "header", "match_id": "m_test"})
    writer.flush()
    writer.start_deal({"type": "deal", "deal_number": 1, "hands": ["CA CK", "SA SK"]})
    writer.write({"type": "decision", "seat": 0, "action": "pass"})
    # The deal is live: its hands are nowhere in the store.
    assert store.read_log(log_path) == b'{"type":"header","match_id":"m_test"}\n'
    writer.end_deal()
    writer.write({"type": "footer", "status": "finished"})
    writer.close()
    expected = (
        b'{"type":"header","match_id":"m_test"}\n'
        b'{"type":"deal","deal_number":1,"hands":["CA CK","SA SK"]}\n'
        b'{"type":"decision","seat":0,"action":"pass"}\n'
        b'{"type":"footer","status":"finished"}\n'
    )
    assert store.read_log(log_path) == expected
    assert writer.committed == len(expected)
    # Where it lives: a file beside SQLite, the database on PostgreSQL.
    assert (log_in_database(log_path) is not None) == store.shared
    if not store.shared:
        assert Path(log_path).read_bytes() == expected


def test_a_log_missing_a_piece_is_refused(pg_url: str, tmp_path: Path) -> None:
    store = RefereeStore(pg_url)
    sink, log_path = store.log_store(tmp_path / "logs").open("m_cut")
    writer = MatchLogWriter(sink)
    for n in range(3):
        writer.write({"type": "header", "n": n})
        writer.flush()
    with store.engine.begin() as db:
        db.exec_driver_sql("DELETE FROM match_logs WHERE chunk = 1")
    with pytest.raises(StoreError, match="the log of match m_cut is damaged"):
        store.read_log(log_path)
    store.close()


@pytest.fixture
async def db_referee(db_url: str, tmp_path: Path) -> AsyncIterator[EmbeddedReferee]:
    async with EmbeddedReferee(tmp_path / "referee", database=db_url) as running:
        yield running


async def _played_match(
    referee: EmbeddedReferee, bot_processes: BotProcesses, deals: int = 3
) -> tuple[AdminClient, admin_pb2.MatchSummary]:
    admin = AdminClient(referee.address, referee.admin_token)
    ids = []
    for n, behaviour in enumerate(["first", "last", "first", "last"]):
        reply = await admin.register(f"{behaviour}-{n}")
        bot_processes.start([MINIMAL_BOT, referee.address, reply.token, behaviour], name=behaviour)
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, ruleset="standard", deals=deals, seed=11)
    )
    return admin, result


async def test_get_match_reads_the_log_from_the_referees_store(
    db_referee: EmbeddedReferee, bot_processes: BotProcesses, db_url: str, tmp_path: Path
) -> None:
    admin, result = await _played_match(db_referee, bot_processes)
    try:
        reply = await admin.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
        )
    finally:
        await admin.close()
    report = replay_log(reply.log_jsonl)
    assert report.reproduced, report.problems
    assert report.replayed_balances == tuple(result.balances)
    # Another reader of the same database (another machine: no data folder) gets the same.
    exported = runner.invoke(
        app,
        ["matches", "export", result.match_id, "--db", db_url, "--data", str(tmp_path / "x")],
    )
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == reply.log_jsonl
    on_postgresql = db_url.startswith("postgresql")
    assert (tmp_path / "referee" / "logs").exists() != on_postgresql


async def test_get_match_of_a_log_missing_a_piece_is_data_loss(
    bot_processes: BotProcesses, pg_url: str, tmp_path: Path
) -> None:
    async with EmbeddedReferee(tmp_path / "referee", database=pg_url) as referee:
        admin, result = await _played_match(referee, bot_processes, deals=2)
        engine = _engine(pg_url)
        with engine.begin() as db:
            db.exec_driver_sql(
                f"DELETE FROM referee.match_logs WHERE match_id = '{result.match_id}' AND chunk = 1"
            )
        engine.dispose()
        try:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await admin.stub.GetMatch(
                    admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
                )
        finally:
            await admin.close()
    assert refused.value.code() == grpc.StatusCode.DATA_LOSS
    assert f"the log of match {result.match_id} is damaged" in str(refused.value.details())


async def test_verify_names_a_damaged_or_cut_log_in_the_database_in_one_line(
    bot_processes: BotProcesses, pg_url: str, tmp_path: Path
) -> None:
    # (The log files of SQLite: tests/cli/test_corrupted_input.py.)
    db_url = pg_url
    async with EmbeddedReferee(tmp_path / "referee", database=pg_url) as referee:
        admin, result = await _played_match(referee, bot_processes)
        await admin.close()
        where = referee.referee.store.where if referee.referee else ""
    match_id = result.match_id
    verify = ["matches", "verify", match_id, "--db", db_url]
    assert runner.invoke(app, verify).exit_code == 0
    engine = _engine(db_url)
    with engine.begin() as db:  # cut short at its end: no footer
        db.exec_driver_sql(
            f"DELETE FROM referee.match_logs WHERE match_id = '{match_id}' AND chunk > 0 AND "
            f"chunk = (SELECT max(chunk) FROM referee.match_logs WHERE match_id = '{match_id}')"
        )
    short = runner.invoke(app, verify)
    assert short.exit_code == 1
    assert "the log has no footer" in short.output
    with engine.begin() as db:
        # A piece in the middle lost (a cut table, a bad restore).
        db.exec_driver_sql(
            f"DELETE FROM referee.match_logs WHERE match_id = '{match_id}' AND chunk = 2"
        )
    cut = runner.invoke(app, verify)
    assert cut.exit_code == 1
    assert cut.stderr.strip().splitlines() == [
        f"error: {where}: the log of match {match_id} is damaged (its piece 2 is missing)"
    ]
    with engine.begin() as db:
        db.exec_driver_sql(
            "UPDATE referee.match_logs SET body = overlay(body placing 'garbage' from 3) "
            f"WHERE match_id = '{match_id}' AND chunk = 1"
        )
        db.exec_driver_sql(
            f"UPDATE referee.match_logs SET chunk = chunk - 1 WHERE match_id = '{match_id}' "
            "AND chunk > 2"
        )
    damaged = runner.invoke(app, verify)
    assert damaged.exit_code == 1
    lines = damaged.stderr.strip().splitlines()
    assert len(lines) == 1, damaged.output
    assert f"the log of match {match_id}, line" in lines[0]
    assert "Traceback" not in damaged.output
    engine.dispose()


def test_a_log_file_is_indexed_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--data rel`: a later reader in another folder (`matches show`, the web front) must
    # still find the file the index row names.
    from brandeln.arena.store.logs import FileLogStore  # noqa: PLC0415

    monkeypatch.chdir(tmp_path)
    sink, where = FileLogStore(Path("data") / "logs").open("m_1")
    sink.append(b"{}\n")
    sink.close()
    assert Path(where).is_absolute()
    monkeypatch.chdir("/")
    assert FileLogStore(tmp_path / "data" / "logs").read(where) == b"{}\n"


def test_a_write_that_failed_leaves_no_gap_in_the_log(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deal whose write gave up (the database away longer than the retries) stays pending
    and goes out with the next write, under the piece number it was to have: the log stays
    whole, where a skipped number made all of it unreadable."""
    store = RefereeStore(pg_url)
    sink, log_path = store.log_store(tmp_path / "logs").open("m_retry")
    writer = MatchLogWriter(sink)
    writer.write({"type": "header", "match_id": "m_retry"})
    writer.flush()
    transact = store.transact
    failures = [StoreError("cannot append to the log of match m_retry: the database is away")]

    def away_once(*args: object, **kwargs: object) -> object:
        if failures:
            raise failures.pop()
        return transact(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "transact", away_once)
    writer.start_deal({"type": "deal", "deal_number": 1})
    with pytest.raises(StoreError, match="the database is away"):
        writer.end_deal()
    writer.write({"type": "footer", "status": "aborted"})
    writer.close()
    assert store.read_log(log_path) == (
        b'{"type":"header","match_id":"m_retry"}\n'
        b'{"type":"deal","deal_number":1}\n'
        b'{"type":"footer","status":"aborted"}\n'
    )
    store.close()

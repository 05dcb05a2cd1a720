"""The referee and PostgreSQL failures: a server down at start, a missing database or a
refused user are one line naming what is wrong (the password never shown); connections cut
mid-match are replaced and retried, and the match is recorded whole."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logrecords import MatchStatus
from brandeln.arena.replay import replay_log
from brandeln.arena.store.database import RefereeStore
from brandeln.cli.main import app
from brandeln.v1 import admin_pb2
from tests import pg_server
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses, create_database

runner = CliRunner()
_numbers = itertools.count(1)


def _one_line_error(args: list[str], *expected: str) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.output
    for text in expected:
        assert text in lines[0]
    return lines[0]


def test_serve_with_postgresql_down_is_one_line(tmp_path: Path) -> None:
    port = pg_server.free_port()  # nobody listens there
    _one_line_error(
        ["serve", "--db", f"postgresql://brandeln:hunter2@127.0.0.1:{port}/arena", "--port", "0"],
        f"cannot reach PostgreSQL at 127.0.0.1:{port}",
    )


def test_a_missing_database_is_named(postgres: pg_server.PostgresServer) -> None:
    url = f"postgresql://{postgres.user}@{postgres.host}:{postgres.port}/no_such_db"
    line = _one_line_error(["serve", "--db", url, "--port", "0"], "'no_such_db' does not exist")
    assert "createdb no_such_db" in line


def test_an_unknown_user_is_named_and_the_password_never_shown(
    postgres: pg_server.PostgresServer,
) -> None:
    url = f"postgresql://nobody:hunter2@{postgres.host}:{postgres.port}/postgres"
    line = _one_line_error(["matches", "list", "--db", url], 'role "nobody" does not exist')
    assert "hunter2" not in line


@pytest.fixture(scope="module")
def password_user(postgres: pg_server.PostgresServer) -> str:
    return pg_server.password_role(postgres)


def test_a_wrong_password_is_named(postgres: pg_server.PostgresServer, password_user: str) -> None:
    url = f"postgresql://{password_user}:wrong@{postgres.host}:{postgres.port}/postgres"
    line = _one_line_error(
        ["serve", "--db", url, "--port", "0"],
        f"password authentication failed for user '{password_user}'",
    )
    assert ":wrong@" not in line


def _cut_connections(postgres: pg_server.PostgresServer, database: str) -> int:
    """Terminate every referee connection to ``database`` (as a server restart or a network
    cut would): how many."""
    with psycopg.connect(
        host=postgres.host,
        port=postgres.port,
        user=postgres.user,
        dbname="postgres",
        autocommit=True,
    ) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND application_name = 'brandeln-referee'",
            (database,),
        ).fetchall()
    return len(rows)


async def test_a_match_is_recorded_whole_while_its_connections_are_cut(
    postgres: pg_server.PostgresServer, bot_processes: BotProcesses, tmp_path: Path
) -> None:
    name = f"cut_{os.getpid()}_{next(_numbers)}"
    url = create_database(postgres, name)
    async with EmbeddedReferee(tmp_path / "referee", database=url) as referee:
        admin = AdminClient(referee.address, referee.admin_token)
        ids = []
        for n, behaviour in enumerate(["first", "last", "first", "last"]):
            reply = await admin.register(f"{behaviour}-{n}")
            bot_processes.start([MINIMAL_BOT, referee.address, reply.token, behaviour])
            ids.append(reply.bot_id)
        await admin.wait_for_sessions(ids)
        cuts = 0
        # The cutter is a thread stopped by a flag and joined, not a cancelled task: cancelling
        # leaves its last cut running in a worker thread, which can then hit the store opened
        # below.
        stop = threading.Event()

        def cutting() -> None:
            nonlocal cuts
            while not stop.is_set():
                cuts += _cut_connections(postgres, name)
                stop.wait(0.05)

        cutter = threading.Thread(target=cutting, name="cutter")
        cutter.start()
        try:
            _, result = await admin.run_match(
                admin_pb2.RunMatchRequest(bot_ids=ids, ruleset="standard", deals=12, seed=4)
            )
        finally:
            stop.set()
            await asyncio.to_thread(cutter.join)
        assert cuts >= 1  # the cuts landed while it played
        assert result.status == "finished"
        assert referee.referee is not None
        record = referee.referee.store.match(result.match_id)
        assert record.status is MatchStatus.FINISHED
        assert record.deals_played == 12
        report = replay_log(referee.referee.store.read_log(record.log_path).decode())
        assert report.reproduced, report.problems
        assert report.deals_replayed == 12
        await admin.close()
        # Its advisory lock went with a cut connection; the next match's start takes it again,
        # so a referee starting now still counts this one alive and leaves its match running.
        await asyncio.to_thread(_cut_connections, postgres, name)
        store = referee.referee.store
        store.record_match(replace(record, match_id="m_still_running", status=MatchStatus.RUNNING))
        other = RefereeStore(url)
        try:
            assert other.mark_running_aborted() == 0
        finally:
            other.close()
        assert store.match("m_still_running").status is MatchStatus.RUNNING

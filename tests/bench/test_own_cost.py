"""brandeln.bench.referee.own_cost: the referee's own cost per decision, in-process (a tiny run)."""

from __future__ import annotations

import asyncio
import os

import pytest
import sqlalchemy

from brandeln.bench.referee.own_cost import OwnCostSettings, main, run_own_cost
from tests import pg_server
from tests.conftest import create_database


@pytest.mark.parametrize("snapshot_only", [False, True])
def test_a_real_referee_plays_its_matches_without_a_penalty(snapshot_only: bool) -> None:
    settings = OwnCostSettings(tables=2, matches=1, deals=1, snapshot_only=snapshot_only)
    cost = asyncio.run(run_own_cost(settings))
    # Two tables of one deal: every seat speaks in the auction (R5), then at most 28 cards.
    assert 2 * 4 <= cost.decisions <= 2 * 60
    assert cost.penalties == 0  # every answer was accepted in time
    assert cost.cpu_us_per_decision > 0


def test_main_prints_the_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tables", "1", "--matches", "1", "--deals", "1", "--repeats", "1"]) == 0
    assert "CPU" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--tables", "0"])


def test_the_tables_steps_are_timed_apart_from_the_bots_and_their_copies() -> None:
    plain = asyncio.run(run_own_cost(OwnCostSettings(tables=1, matches=1, deals=1)))
    assert plain.table_step_us_per_decision is None  # not profiled unless asked
    settings = OwnCostSettings(tables=1, matches=1, deals=1, foreign_kib=64)
    cost = asyncio.run(run_own_cost(settings))
    assert cost.penalties == 0
    step = cost.table_step_us_per_decision
    assert step is not None
    # A part of the whole: the bots' steps (and the copies in them) are not the table's.
    assert 0 < step < cost.cpu_us_per_decision


def test_main_prints_the_tables_steps(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--tables", "1", "--matches", "1", "--deals", "1", "--repeats", "1"]
    assert main([*argv, "--foreign-kib", "16"]) == 0
    assert "16 KiB of other memory" in capsys.readouterr().out
    assert main([*argv, "--table-steps"]) == 0
    out = capsys.readouterr().out
    assert "the tables' steps alone:" in out
    with pytest.raises(SystemExit):
        main([*argv, "--foreign-kib", "-1"])


def test_main_runs_the_referee_on_a_postgresql_database(
    postgres: pg_server.PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = create_database(postgres, f"own_cost_{os.getpid()}")
    argv = ["--tables", "1", "--matches", "1", "--deals", "1", "--repeats", "1"]
    assert main([*argv, "--db", url]) == 0
    out = capsys.readouterr().out
    assert "PostgreSQL" in out
    assert "wall" in out
    # The matches' logs went to that database, not to files.
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as connection:
        pieces = connection.execute(sqlalchemy.text("SELECT count(*) FROM referee.match_logs"))
        assert pieces.scalar_one() > 0
    engine.dispose()

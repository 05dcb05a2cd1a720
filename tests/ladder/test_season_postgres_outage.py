"""Seasons on PostgreSQL when the server goes away mid-season (stopped by its PID): the
recording of finished blocks is retried while it is gone; gone for good, the run ends with
one clear error, keeps what it recorded, and the season resumes once the server is back.

Apart from tests/ladder/test_season_postgres.py (whose helpers it uses) so that the suite's
processes can run the two files side by side.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from brandeln.cli.main import app
from brandeln.engine.plurals import plural
from brandeln.ladder.store.database import LadderStore
from tests import pg_server
from tests.ladder.test_season_postgres import (
    assert_every_block_once,
    heuristic_season,
    runner,
    start_season,
    wait_for_blocks,
)

pytestmark = [pytest.mark.timeout(300), pytest.mark.early]


@pytest.fixture
def restartable() -> Iterator[pg_server.RestartableServer]:
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.skip(pg_server.INSTALL_HINT)
    with pg_server.restartable_server(bindir) as server:
        yield server


def test_postgresql_gone_mid_season_is_retried_and_nothing_is_lost(
    tmp_path: Path, restartable: pg_server.RestartableServer
) -> None:
    blocks = 8
    db = restartable.url()
    file = tmp_path / "season.toml"
    file.write_text(heuristic_season("outage", blocks=blocks))
    log = tmp_path / "run.log"
    process = start_season(file, tmp_path / "data", db, log)
    try:
        wait_for_blocks(db, "outage", 1, process, log)
        restartable.stop()  # by its PID, mid-season
        time.sleep(6)  # blocks finish meanwhile: their recording is retried
        assert process.poll() is None, log.read_text()
        restartable.start()
        assert process.wait(timeout=300) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert f"cannot reach PostgreSQL at 127.0.0.1:{restartable.port}" in output
    assert "; retry 1 of" in output
    assert_every_block_once(db, "outage", blocks)


def test_postgresql_gone_for_good_ends_the_run_with_one_clear_error_and_the_season_resumes(
    tmp_path: Path, restartable: pg_server.RestartableServer
) -> None:
    db = restartable.url()
    file = tmp_path / "season.toml"
    file.write_text(heuristic_season("gone", blocks=6, deals=16))
    log = tmp_path / "run.log"
    # Four attempts (about 2 s of retries) prove the giving up as well as the default's 25 s.
    process = start_season(file, tmp_path / "data", db, log, attempts=4)
    try:
        wait_for_blocks(db, "gone", 1, process, log)
        restartable.stop()
        code = process.wait(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert code == 1, output
    last = output.strip().splitlines()[-1]
    # The run ends with one error line: the ladder's store giving up, or (the embedded referee
    # shares the database) the match it could not record ending aborted; the retries said why.
    assert last.startswith("error:"), output
    assert (
        f"cannot reach PostgreSQL at 127.0.0.1:{restartable.port}" in last and "gave up" in last
    ) or "ended 'aborted'" in last, output
    assert f"cannot reach PostgreSQL at 127.0.0.1:{restartable.port}" in output, output
    restartable.start()
    with LadderStore.open(db, create=False) as store:
        kept = store.blocks.finished_blocks("gone")  # what was recorded is still there
    assert kept
    # The season resumes once the database is back: the rest is played, nothing twice.
    resumed = runner.invoke(
        app, ["season", "run", str(file), "--data", str(tmp_path / "data"), "--db", db]
    )
    assert resumed.exit_code == 0, resumed.output
    assert f"{plural(6 - len(kept), 'block')} played now (6 of 6 in all)" in resumed.output
    assert_every_block_once(db, "gone", 6)

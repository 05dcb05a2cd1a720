"""The web front over a PostgreSQL database (`brandeln web --db postgresql://...`): the pages a
season run on that database shows, its match logs read from the database; and the app's hold
on the database, opened once and closed with the app (no engine or connection left behind,
counted by the server itself in ``pg_stat_activity``)."""

from __future__ import annotations

import html
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from brandeln.web.app import StorageLocation, create_app
from tests import pg_server
from tests.web.addresses import APP_BASE

runner = CliRunner()
WAIT_S = 60.0  # a closed connection's server process ends soon after, not at once
SEASON = """name = "webpg"
seed = 5
blocks = 1
deals_per_match = 4
concurrency = 2
""" + "".join(
    f'[[bots]]\nname = "{bot}"\n'
    'command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "1"]\n'
    for bot in ("r1", "r2", "r3", "r4")
)


@pytest.fixture
def season_db(postgres: pg_server.PostgresServer, tmp_path: Path) -> Iterator[str]:
    from tests.conftest import create_database, drop_database  # noqa: PLC0415

    name = f"web_{os.getpid()}_{time.monotonic_ns()}"
    url = create_database(postgres, name)
    file = tmp_path / "season.toml"
    file.write_text(SEASON)
    result = runner.invoke(
        app, ["season", "run", str(file), "--data", str(tmp_path / "data"), "--db", url]
    )
    assert result.exit_code == 0, result.output
    try:
        yield url
    finally:
        drop_database(postgres, name)


def test_the_pages_of_a_season_stored_in_postgresql(season_db: str, tmp_path: Path) -> None:
    assert not (tmp_path / "data" / "ladder.db").exists()  # everything went to the database
    with LadderStore.open(season_db, create=False) as store:
        match_id = store.reads.matches("webpg")[0].match_id
    with TestClient(create_app(StorageLocation(db_url=season_db)), base_url=APP_BASE) as client:
        index = client.get("/")
        board = client.get("/seasons/webpg/leaderboard")
        page = client.get(f"/matches/{match_id}")
        by_prefix = client.get(f"/matches/{match_id[:10]}")  # the CLI's rule: a unique prefix
    assert index.status_code == 200
    assert "webpg" in index.text
    assert board.status_code == 200
    for bot in ("r1", "r2", "r3", "r4"):
        assert bot in board.text
    assert page.status_code == 200
    assert by_prefix.status_code == 200
    assert by_prefix.text == page.text
    embedded = page.text.split('<script type="application/json" id="replay-data">')[1]
    model = json.loads(html.unescape(embedded.split("</script>")[0]))
    assert len(model["deals"]) == 4  # the log came out of the database, whole


@pytest.fixture
def empty_db(postgres: pg_server.PostgresServer) -> Iterator[tuple[str, Callable[[], int]]]:
    """A fresh database, and how many server connections it has now."""
    import psycopg  # noqa: PLC0415 - only the PostgreSQL tests need the driver

    from tests.conftest import create_database, drop_database  # noqa: PLC0415

    name = f"web_life_{os.getpid()}_{time.monotonic_ns()}"
    url = create_database(postgres, name)

    def connections() -> int:
        # From the maintenance database: this connection is not one of those counted.
        with psycopg.connect(
            host=postgres.host, port=postgres.port, user=postgres.user, dbname="postgres"
        ) as connection:
            row = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
            ).fetchone()
        assert row is not None
        return int(row[0])

    try:
        yield url, connections
    finally:
        drop_database(postgres, name)


def settles_at(count: int, connections: Callable[[], int]) -> bool:
    """Whether the database's connections come down to ``count`` (a server process ends a
    moment after its client closed it: asked again until then, never a fixed sleep)."""
    deadline = time.monotonic() + WAIT_S
    while connections() != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_apps_hold_the_database_while_they_run_and_leave_no_connection_behind(
    empty_db: tuple[str, Callable[[], int]],
) -> None:
    url, connections = empty_db
    before = connections()
    for _ in range(3):  # app after app, as tests and benchmarks make them
        app = create_app(StorageLocation(db_url=url))
        assert connections() == before  # nothing is opened before a page needs it
        with TestClient(app, base_url=APP_BASE) as client:
            assert client.get("/").status_code == 200
            assert client.get("/matches/m_0000").status_code == 404
            assert app.state.stores.opened
            assert connections() > before  # the app's pool and the referee store's lock
        assert not app.state.stores.opened  # its lifespan closed them
        assert settles_at(before, connections)
        # Started again (a test client may enter an app twice), it opens them again.
        with TestClient(app, base_url=APP_BASE) as client:
            assert client.get("/").status_code == 200
            assert connections() > before
        assert settles_at(before, connections)


def test_an_app_run_without_its_lifespan_is_closed_by_its_stores(
    empty_db: tuple[str, Callable[[], int]],
) -> None:
    url, connections = empty_db
    before = connections()
    app = create_app(StorageLocation(db_url=url))
    client = TestClient(app, base_url=APP_BASE)  # no `with`: the lifespan does not run
    assert client.get("/").status_code == 200
    assert connections() > before
    app.state.stores.close()
    assert not app.state.stores.opened
    assert settles_at(before, connections)

"""The web front over a PostgreSQL database (`brandeln web --db postgresql://...`): the pages a
season run on that database shows, its match logs read from the database."""

from __future__ import annotations

import html
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from brandeln_cli.main import app
from ladder.storage import LadderStore
from tests import pg_server
from web.app import StorageLocation, create_app

runner = CliRunner()
SEASON = """name = "webpg"
seed = 5
blocks = 1
deals_per_match = 4
concurrency = 2
""" + "".join(
    f'[[bots]]\nname = "{bot}"\n'
    'command = ["python", "-m", "brandeln_cli", "bot", "run", "random", "--seed", "1"]\n'
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
    client = TestClient(create_app(StorageLocation(db_url=season_db)))
    assert not (tmp_path / "data" / "ladder.db").exists()  # everything went to the database
    index = client.get("/")
    assert index.status_code == 200
    assert "webpg" in index.text
    board = client.get("/seasons/webpg/leaderboard")
    assert board.status_code == 200
    for bot in ("r1", "r2", "r3", "r4"):
        assert bot in board.text
    with LadderStore.open(season_db, create=False) as store:
        match_id = store.matches("webpg")[0].match_id
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    embedded = page.text.split('<script type="application/json" id="replay-data">')[1]
    model = json.loads(html.unescape(embedded.split("</script>")[0]))
    assert len(model["deals"]) == 4  # the log came out of the database, whole

"""`brandeln season run --cluster`: what it refuses, in one line, before anything is played;
and Ray stays unimported unless --cluster is given."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app
from tests import pg_server
from tests.conftest import create_database, drop_database

ROOT = Path(__file__).resolve().parents[2]
SEASON = (
    'name = "clustered"\nseed = 1\nblocks = 1\ndeals_per_match = 4\nconcurrency = 1\n'
    + "".join(
        f'[[bots]]\nname = "r{n}"\ncommand = ["python", "-m", "brandeln.cli", "bot", "run", '
        '"random"]\ntables = 1\n'
        for n in range(4)
    )
)


def _season(tmp_path: Path) -> Path:
    path = tmp_path / "season.toml"
    path.write_text(SEASON)
    return path


def test_a_cluster_season_on_sqlite_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["season", "run", str(_season(tmp_path)), "--data", str(tmp_path), "--cluster", "auto"],
    )
    assert result.exit_code == 2
    assert "a cluster season needs a database that every node reaches" in result.output
    assert "--db postgresql://" in result.output
    assert not (tmp_path / "ladder.db").exists()  # refused before anything was opened


def test_cluster_and_referee_exclude_each_other(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "season",
            "run",
            str(_season(tmp_path)),
            "--data",
            str(tmp_path),
            "--cluster",
            "auto",
            "--referee",
            "127.0.0.1:1",
        ],
        env={"BRANDELN_ADMIN_TOKEN": "x" * 20},
    )
    assert result.exit_code == 1
    assert "--cluster and --referee exclude each other" in result.output


def test_an_unreachable_cluster_is_one_line_in_seconds(
    tmp_path: Path, postgres: pg_server.PostgresServer
) -> None:
    name = "cluster_unreachable"
    url = create_database(postgres, name)
    try:
        started = time.monotonic()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "brandeln.cli",
                "season",
                "run",
                str(_season(tmp_path)),
                "--data",
                str(tmp_path),
                "--db",
                url,
                "--cluster",
                f"127.0.0.1:{pg_server.free_port()}",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert time.monotonic() - started < 60  # not Ray's minutes of retries
        assert result.returncode == 1, result.stderr
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1
        assert "cannot join the Ray cluster at 127.0.0.1:" in errors[0]
        assert "ray start --head" in errors[0]
    finally:
        drop_database(postgres, name)


def test_ray_is_not_imported_without_cluster() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from brandeln.cli.main import app\n"
        "import brandeln.cli.season_cmd, brandeln.ladder.season.runner, brandeln.arena.embedded\n"
        "CliRunner().invoke(app, ['season', 'run', '--help'])\n"
        "print('ray' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.stdout.strip() == "False", result.stderr

"""`brandeln ladder serve --cluster`: what it refuses, in one line, before anything is opened
(the same check as `season run --cluster`, brandeln.cli.cluster_options)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app


def test_a_cluster_ladder_on_sqlite_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["ladder", "serve", "--data", str(tmp_path), "--cluster", "auto"]
    )
    assert result.exit_code == 2
    assert "a cluster ladder needs a database that every node reaches" in result.output
    assert "--db postgresql://" in result.output
    assert not (tmp_path / "ladder.db").exists()  # refused before anything was opened


def test_cluster_and_referee_exclude_each_other(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "ladder",
            "serve",
            "--data",
            str(tmp_path),
            "--db",
            "postgresql://u@127.0.0.1:1/x",
            "--cluster",
            "auto",
            "--referee",
            "127.0.0.1:1",
        ],
        env={"BRANDELN_ADMIN_TOKEN": "x" * 20},
    )
    assert result.exit_code == 1
    assert "--cluster and --referee exclude each other" in result.output


def test_an_empty_cluster_address_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["ladder", "serve", "--db", "postgresql://u@127.0.0.1:1/x", "--cluster", " "],
    )
    assert result.exit_code == 2
    assert "--cluster needs an address" in result.output


@pytest.mark.parametrize("option", ["--slots", "--worker-data"])
def test_the_cluster_options_are_listed(option: str) -> None:
    result = CliRunner().invoke(app, ["ladder", "serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert option in result.output

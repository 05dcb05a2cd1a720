"""The options `brandeln serve` and `brandeln ladder serve` share, as real processes: their
``/metrics`` answers to the loopback names and the ``--metrics-allowed-host`` ones at its port,
and a hostile site's name pointed at this machine (DNS rebinding) gets a 421 with one line;
a bad ``--metrics-allowed-host`` is one line and exit 2, before anything is served."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.services.trusted_hosts import HostRefusal
from tests.cli_process import CliProcess, cli_process
from tests.http_requests import request_to
from tests.ladder.ladder_process import ladder_process

METRICS_PORT: Final = re.compile(r"metrics on http://127\.0\.0\.1:(\d+)/metrics")
ALLOWED: Final = ("--metrics-allowed-host", "prometheus.lan")
runner = CliRunner()


def scrape(port: int, host: str) -> tuple[int, str]:
    return request_to(port, host, "/metrics")


def metrics_port(service: CliProcess) -> int:
    """The port of the metrics line, read so far or read now."""
    while (found := METRICS_PORT.search(service.output())) is None:
        assert service.next_line() is not None, service.output()
    return int(found.group(1))


def assert_answers_only_its_names(port: int) -> None:
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"prometheus.lan:{port}"):
        status, text = scrape(port, host)
        assert status == 200, (host, text)
        assert "process_cpu_seconds" in text
    status, text = scrape(port, f"rebind.example:{port}")
    assert (status, text) == (421, f"{HostRefusal.FOREIGN_HOST.value}\n")


def test_serves_metrics_to_its_names_only(tmp_path: Path) -> None:
    args = ["serve", "--port", "0", "--db", str(tmp_path / "referee.db")]
    args += ["--logs", str(tmp_path / "logs"), "--metrics-port", "0", *ALLOWED]
    with cli_process(args) as referee:
        assert_answers_only_its_names(metrics_port(referee))


def test_ladder_serves_metrics_to_its_names_only(tmp_path: Path) -> None:
    args = ["--data", str(tmp_path), "--port", "0", "--metrics-port", "0", *ALLOWED]
    with ladder_process(args) as ladder:
        assert_answers_only_its_names(metrics_port(ladder))


@pytest.mark.parametrize("command", [["serve"], ["ladder", "serve"]])
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--metrics-port", "0", "--metrics-allowed-host", "*.lan"], "is NAME or NAME:PORT"),
        (["--metrics-allowed-host", "prometheus.lan"], "goes with --metrics-port"),
    ],
)
def test_a_bad_allowed_host_is_one_line_before_serving(
    tmp_path: Path, command: list[str], args: list[str], says: str
) -> None:
    where = ["--db", str(tmp_path / "referee.db")] if command == ["serve"] else []
    where = where or ["--data", str(tmp_path)]
    env = {"BRANDELN_ADMIN_TOKEN": "a-token-long-enough"}
    result = runner.invoke(app, [*command, *where, *args], env=env)
    assert result.exit_code == 2, result.output
    [line] = result.output.splitlines()
    assert line.startswith("error: --metrics-allowed-host")
    assert says in line
    assert not (tmp_path / "referee.db").exists()

"""`brandeln web`: serves the pages of a data folder at the address it prints; refuses what it
cannot serve before listening."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brandeln_cli.main import app

runner = CliRunner()


def test_web_prints_its_address_and_serves_the_pages_there(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BRANDELN_ADMIN_TOKEN"}
    process = subprocess.Popen(
        [sys.executable, "-m", "brandeln_cli", "web", "--data", str(tmp_path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+)/)", first)
        assert found is not None, first
        assert str(tmp_path) in first
        assert int(found.group(2)) > 0  # --port 0: the port it really got
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(found.group(1), timeout=5) as reply:
                    page = reply.read().decode()
                break
            except OSError:
                assert process.poll() is None, process.stdout.read()
                assert time.monotonic() < deadline, "the web app did not answer"
                time.sleep(0.1)
        assert "No seasons yet" in page
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert not any(tmp_path.iterdir())  # read-only: it created nothing


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--data", "x", "--db", "postgresql://h/db"], "give --data or --db, not both"),
        (["--referee", "127.0.0.1:1"], "--referee needs the admin token"),
    ],
)
def test_web_refuses_what_it_cannot_serve_before_listening(args: list[str], says: str) -> None:
    result = runner.invoke(app, ["web", *args], env={"BRANDELN_ADMIN_TOKEN": ""})
    assert result.exit_code != 0
    assert says in result.output

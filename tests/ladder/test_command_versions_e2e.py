"""Command versions end to end: a real `brandeln ladder serve` (its own referee, SQLite)
launches the versions published with `--command` itself and plays them unattended; a version
added while it runs is picked up, a retired one is stopped, a program that does not exist is
said once; SIGTERM stops the ladder and every process it launched, by PID.

Every wait is for a state, with a hang guard far above a healthy run
(tests/ladder/ladder_process.py).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from tests.ladder.ladder_process import data_args, ladder_process, ladder_serve_args, wait_until
from tests.pg_server import free_port

runner = CliRunner()
LADDER = "ladder"
SAMPLE = "python -m brandeln.sample_bots random --server {server} --token {token}"


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _launched_by(ladder_pid: int) -> dict[str, int]:
    """The live processes the ladder started, by the version each runs as (their environment:
    BRANDELN_STARTED_BY, BRANDELN_BOT_NAME)."""
    found: dict[str, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if state == "Z" or f"BRANDELN_STARTED_BY={ladder_pid}".encode() not in environ:
            continue
        for item in environ:
            if item.startswith(b"BRANDELN_BOT_NAME="):
                found[item.split(b"=", 1)[1].decode()] = int(entry.name)
    return found


def test_the_ladder_launches_its_command_versions_and_stops_them(tmp_path: Path) -> None:
    data = tmp_path / "data"
    where = data_args(data, None)
    port = free_port()
    more = ["--log-json", "--log-level", "info"]
    serve = ladder_serve_args(data, None, port, move_ms=20000, more=more)
    with ladder_process(serve) as ladder, LadderStore.open(data / "ladder.db") as store:
        pid = ladder.process.pid
        # Three, added while it runs: not enough for a table of four.
        for family in "abc":
            _cli("bots", "version", "add", family, "1", "--command", SAMPLE, *where)
        _cli("bots", "version", "add", "ghost", "1", "--command", "no-such-program-xyz", *where)
        wait_until("a, b, c launched", lambda: {"a@1", "b@1", "c@1"} <= set(_launched_by(pid)))
        assert store.planned.recent_blocks(LADDER, limit=1) == []
        # A fourth makes a table: blocks are played, unattended.
        _cli("bots", "version", "add", "d", "1", "--command", SAMPLE, *where)
        wait_until("two blocks recorded", lambda: len(store.blocks.finished_blocks(LADDER)) >= 2)
        # The program that is not there: said once, as the version's last error.
        ghost = store.presence.presence(LADDER)["ghost@1"]
        assert "exited with code 1" in ghost.last_error, ghost
        assert "No such file or directory" in ghost.last_error, ghost  # its log's last line
        trouble = [
            json.loads(line)
            for line in ladder.output().splitlines()
            if line.startswith("{") and '"version_trouble"' in line
        ]
        assert [t["bot"] for t in trouble] == ["ghost@1"]
        # Retired: its process is stopped; the others play on.
        _cli("bots", "version", "retire", "d@1", *where)
        wait_until("d@1 stopped", lambda: "d@1" not in _launched_by(pid))
        assert {"a@1", "b@1", "c@1"} <= set(_launched_by(pid))
        assert ladder.stop() == 0
        assert "stopped after" in ladder.output()
        assert _launched_by(pid) == {}  # every launched process stopped with it
        per_block = Counter(match.block_index for match in store.reads.matches(LADDER))
        assert per_block
        assert set(per_block.values()) == {4}  # each block's four rotations, once

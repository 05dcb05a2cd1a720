"""`match run` and `bot check` against a hostile bot process: nothing is left, the log stays
under its cap, and the command ends (tests/cli/hostile_bot_process.py is the bot).

Each test runs the real command in a subprocess, its environment carrying a marker that every
process of the bot inherits (or, for a grandchild that drops its environment, has in its
command line), then looks for what is left by the pids the bot's processes wrote and by
scanning /proc for the marker. Whatever it finds is killed by pid afterwards, pass or fail.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.cli.match_cmd import CONNECT_TIMEOUT_S
from brandeln.ladder.bots.processes import KILL_WAIT_S, MAX_OUTPUT_BYTES, STOP_GRACE_S
from brandeln.ladder.season.config import DEFAULT_CONNECT_TIMEOUT_MS
from tests.conftest import MINIMAL_BOT, ROOT

HOSTILE_BOT = str(Path(__file__).with_name("hostile_bot_process.py"))
MARKER_VAR = "HOSTILE_BOT_MARKER"
# The log holds the starting line and the note that the output was cut besides the output.
LOG_SLACK = 4096
COMMAND_TIMEOUT_S = 600  # generous: the suite runs beside CPU hogs; the bound is not timed here
PLAYS = ("flood", "ignores-sigterm", "grandchild-in-group", "grandchild-escaped")
NEVER_PLAYS = ("never-connects", "silent")
CONNECT_TIMEOUT = "3"  # for the bots that never connect: the command gives up at once


@dataclass(frozen=True)
class Hostile:
    marker: str
    pid_dir: Path

    def command(self, behaviour: str) -> list[str]:
        return ["python", HOSTILE_BOT, behaviour, self.marker, str(self.pid_dir)]

    def recorded_pids(self) -> list[int]:
        return [int(p.name) for p in self.pid_dir.iterdir() if p.name.isdigit()]

    def left(self) -> list[int]:
        """The processes carrying the marker (environment or command line), zombies aside."""
        return [pid for pid in _live_pids() if _carries(pid, self.marker)]


def _live_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in "ZX":
            pids.append(int(entry.name))
    return pids


def _carries(pid: int, marker: str) -> bool:
    wanted = marker.encode()
    for part in ("environ", "cmdline"):
        try:
            if wanted in Path(f"/proc/{pid}/{part}").read_bytes():
                return True
        except OSError:
            continue
    return False


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    """The marker and pid folder of one test; kills what carries the marker afterwards."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # `bot check` keeps a failed check's folder
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    found = Hostile(f"hostile-{uuid.uuid4().hex}", pid_dir)
    try:
        yield found
    finally:
        for pid in {*found.recorded_pids(), *found.left()}:
            if _carries(pid, found.marker):  # still ours, not a reused pid
                os.kill(pid, signal.SIGKILL)


def brandeln(hostile: Hostile, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess; ends within the generous timeout or fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "brandeln.cli", *args],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        cwd=ROOT,
        env={**os.environ, MARKER_VAR: hostile.marker, "GRPC_VERBOSITY": "ERROR"},
        check=False,
    )


def assert_nothing_left(hostile: Hostile, behaviour: str) -> None:
    recorded = hostile.recorded_pids()
    grandchildren = behaviour.startswith("grandchild")
    if behaviour in PLAYS:  # it played: its behaviour was in place before the match began
        assert len(recorded) == (2 if grandchildren else 1), recorded
    alive = [pid for pid in recorded if pid in _live_pids() and _carries(pid, hostile.marker)]
    assert alive == [], f"processes of the bot outlived the command: {alive}"
    assert hostile.left() == [], "processes carrying the test's marker outlived the command"


def assert_log_capped(log: Path, behaviour: str) -> None:
    size = log.stat().st_size
    assert size <= MAX_OUTPUT_BYTES + LOG_SLACK, f"{log} holds {size} bytes"
    if behaviour == "flood":
        assert "--- output cut" in log.read_text(errors="replace")


@pytest.mark.timeout(COMMAND_TIMEOUT_S + 60)
@pytest.mark.parametrize("behaviour", PLAYS + NEVER_PLAYS)
def test_match_run_leaves_no_process_of_a_hostile_bot_and_caps_its_log(
    hostile: Hostile, tmp_path: Path, behaviour: str
) -> None:
    data = tmp_path / "data"
    others = [f"cmd:python {MINIMAL_BOT} {{server}} {{token}} first"] * 3
    result = brandeln(
        hostile,
        "match", "run", *others, "--deals", "1", "--seed", "1", "--data", str(data),
        "--connect-timeout", CONNECT_TIMEOUT if behaviour in NEVER_PLAYS else "120",
        "--", *hostile.command(behaviour),
    )  # fmt: skip
    if behaviour in PLAYS:
        # Played to its end: a flood does not starve the referee or the bots.
        assert result.returncode == 0, result.stderr
        assert "status: finished" in result.stdout
    else:
        assert result.returncode == 1, result.stderr
        assert "did not connect within 3000 ms" in result.stderr
    assert_nothing_left(hostile, behaviour)
    assert_log_capped(data / "match" / "bots" / "hostile_bot_process.log", behaviour)
    if behaviour == "flood":  # read on past the cap: the flood was never blocked
        assert (hostile.pid_dir / "flooded").exists()


@pytest.mark.timeout(COMMAND_TIMEOUT_S + 60)
@pytest.mark.parametrize("behaviour", PLAYS + NEVER_PLAYS)
def test_bot_check_leaves_no_process_of_a_hostile_bot_and_caps_its_log(
    hostile: Hostile, tmp_path: Path, behaviour: str
) -> None:
    # Russian, where the bot bids nonsense: the check fails, so its folder (the log) is kept.
    result = brandeln(
        hostile,
        "bot", "check", "--json", "--ruleset", "russian", "--tables", "1", "--matches", "1",
        "--connect-timeout", CONNECT_TIMEOUT if behaviour in NEVER_PLAYS else "120",
        "--", *hostile.command(behaviour),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    checks = {row["check"]: row for row in json.loads(result.stdout)["checks"]}
    assert checks["handshake"]["status"] == ("pass" if behaviour in PLAYS else "fail")
    assert_nothing_left(hostile, behaviour)
    (log,) = tmp_path.glob("brandeln-check-*/bot/bot.log")
    assert_log_capped(log, behaviour)
    if behaviour == "flood":
        assert (hostile.pid_dir / "flooded").exists()


def test_the_manual_states_the_cap_and_the_bound_the_code_keeps() -> None:
    readme = (ROOT / "docs" / "bot-authors" / "improve.md").read_text()
    assert f"the first {MAX_OUTPUT_BYTES // 2**20} MiB of each process's output" in readme
    assert f"whatever of them is left {STOP_GRACE_S:g} s later gets SIGKILL" in readme
    # The bots' stop (grace, then the kill's own bound), then the embedded referee's.
    referee_s = inspect.signature(EmbeddedReferee.stop).parameters["grace"].default
    assert f"`match run` returns within {STOP_GRACE_S + KILL_WAIT_S + referee_s:g} s" in readme
    assert CONNECT_TIMEOUT_S * 1000 == DEFAULT_CONNECT_TIMEOUT_MS  # as a season's

"""`stop_bots` where a bot's own process is no longer the whole story: it exited and left a
child in its group, or left one out of reach (its own session, its environment dropped) that
holds the log's pipe. The CLI's side (`match run`, `bot check`) is tests/cli's
test_hostile_bot_processes.py."""

from __future__ import annotations

import asyncio
import os
import select
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from brandeln.ladder.bots.processes import BotProcess, start_bot, stop_bots

# The bot: starts a child (in its group, or out of reach: setsid() and an empty environment),
# waits for the child's word on a pipe, then exits. argv: the child's pid file, "stay" or
# "escape", the child's code.
PARENT = """
import os, subprocess, sys
pid_file, how, code = sys.argv[1:4]
ready, said = os.pipe()
subprocess.Popen(
    [sys.executable, "-c", code, pid_file, str(said)],
    pass_fds=(said,), start_new_session=how == "escape", env={},
)
os.close(said)
sys.exit(0 if os.read(ready, 1) == b"x" else 1)
"""
# The child: ignores SIGTERM, writes its pid, says so, then waits (in the group) or floods the
# log's pipe (out of reach: the stop closes the pipe, and its next write ends it).
CHILD = """
import os, signal, sys, threading
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1], "w") as out:
    out.write(str(os.getpid()))
os.write(int(sys.argv[2]), b"x")
if "{flood}" == "yes":
    while True:
        os.write(1, b"still here\\n" * 1000)
threading.Event().wait()
"""


@pytest.fixture
def strays(tmp_path: Path) -> Iterator[list[int]]:
    """Pids a test saw; each still alive afterwards is killed, pass or fail."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            ours = str(tmp_path).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue  # gone
        if ours:  # not a pid used again meanwhile
            os.kill(pid, signal.SIGKILL)


async def _bot_leaving_a_child(
    tmp_path: Path, strays: list[int], *, escape: bool, flood: bool = False
) -> tuple[BotProcess, int]:
    pid_file = tmp_path / "child.pid"
    bot = await start_bot(
        "parent",
        [
            "python", "-c", PARENT, str(pid_file), "escape" if escape else "stay",
            CHILD.replace("{flood}", "yes" if flood else "no"),
        ],
        server="127.0.0.1:1",
        token="hostile-test-token",
        tables=1,
        log_path=tmp_path / "bots" / "parent.log",
    )  # fmt: skip
    await bot.process.wait()  # it exits once its child has written its pid
    assert bot.process.returncode == 0, bot.log_tail()
    child = int(pid_file.read_text())
    strays.append(child)
    return bot, child


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in "ZX"


def _wait_for_exit(pid: int) -> None:
    """Block until ``pid`` exits (its pidfd turns readable); a generous bound, not a timing."""
    fd = os.pidfd_open(pid)
    try:
        select.select([fd], [], [], 120)
    finally:
        os.close(fd)


async def test_a_bot_that_exited_has_the_child_it_left_in_its_group_killed(
    tmp_path: Path, strays: list[int]
) -> None:
    bot, child = await _bot_leaving_a_child(tmp_path, strays, escape=False)
    assert not _gone(child)
    await stop_bots([bot], grace_s=0.5)
    assert _gone(child)


async def test_a_child_out_of_reach_loses_the_log_pipe_and_does_not_hold_up_the_stop(
    tmp_path: Path, strays: list[int]
) -> None:
    bot, child = await _bot_leaving_a_child(tmp_path, strays, escape=True, flood=True)
    await stop_bots([bot], grace_s=0.5)
    # No token and no group: the stop cannot find it (the security page), but it returned, and
    # it closed the pipe: the child's next write ends it (SIGPIPE).
    assert bot.output is not None
    await bot.output.ended()
    await asyncio.to_thread(_wait_for_exit, child)
    assert _gone(child)
    assert "still here" in bot.log_path.read_text()

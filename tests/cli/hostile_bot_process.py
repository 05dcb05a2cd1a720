"""A command bot whose process is hostile to whoever runs it (run as a script, not collected).

Usage: python hostile_bot_process.py BEHAVIOUR MARKER PID_DIR

BEHAVIOUR is one of

  flood                floods stdout and stderr as fast as it can, forever, and plays
  ignores-sigterm      ignores SIGTERM, and plays
  grandchild-in-group  starts a child that stays in its process group, ignores SIGTERM and
                       drops its environment (only the group reaches it), then plays
  grandchild-escaped   starts a child that leaves with setsid() and ignores SIGTERM, then plays
  never-connects       never connects and never exits
  silent               opens its Play streams, never says hello on them, and never exits

Every process it makes writes ``PID_DIR/<pid>`` once its behaviour is in place, and carries
MARKER in its command line, so a test can find what is left by pid and by scanning /proc.
Playing (the correct bot of tests/bots/broken/base.py, which bids nonsense in ``russian``, so
``bot check --ruleset russian`` fails and keeps its folder) starts only once the behaviour is
in place: a match cannot begin before it. MARKER is passed in the environment too.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the project is at the repository's root

from grpc import aio  # noqa: E402

from brandeln.ladder.bots.processes import MAX_OUTPUT_BYTES  # noqa: E402
from brandeln.v1 import bot_pb2_grpc  # noqa: E402
from tests.bots.broken.base import Breakage, main  # noqa: E402

# The flood has passed the cap twice over (then PID_DIR/flooded): the log's reader did not
# stop reading at the cap.
FLOODED_PAST = 2 * MAX_OUTPUT_BYTES
# Where stdout is a plain file (a version that does not cap the output), the flood stops here,
# so a failing run cannot fill the disk.
FILE_SAFETY_LIMIT = 3 * MAX_OUTPUT_BYTES
BLOCK = b"flood " * 10_000 + b"\n"

# A grandchild: ignores SIGTERM, says so (its pid file, a byte on its parent's pipe), lives on.
SLEEPER = """
import os, signal, sys, threading
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(os.path.join(sys.argv[2], str(os.getpid())), "w").close()
os.write(int(sys.argv[3]), b"x")
threading.Event().wait()
"""


def mark(pid_dir: Path, name: str) -> None:
    (pid_dir / name).write_text("")


def flood(pid_dir: Path, started: threading.Event) -> None:
    to_file = stat.S_ISREG(os.fstat(1).st_mode)
    written = 0
    while not to_file or written < FILE_SAFETY_LIMIT:
        for fd in (1, 2):
            written += os.write(fd, BLOCK)
        if written >= FLOODED_PAST and not started.is_set():
            mark(pid_dir, "flooded")
            started.set()
    started.set()


def grandchild(marker: str, pid_dir: Path, *, escape: bool) -> None:
    ready, said = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-c", SLEEPER, marker, str(pid_dir), str(said)],
        pass_fds=(said,),
        start_new_session=escape,  # setsid(): out of the bot's process group
        env=None if escape else {},  # in the group: no token, only the group reaches it
    )
    os.close(said)
    if os.read(ready, 1) != b"x":  # its end of the pipe closed: it died first
        sys.exit(f"the grandchild exited with {child.wait()}")


async def silent() -> None:
    tables = int(os.environ.get("BRANDELN_TABLES", "1"))
    async with aio.insecure_channel(os.environ["BRANDELN_SERVER"]) as channel:
        stub = bot_pb2_grpc.RefereeStub(channel)
        calls = [stub.Play() for _ in range(tables)]
        for call in calls:
            await call.wait_for_connection()
        await asyncio.Event().wait()


def run(behaviour: str, marker: str, pid_dir: Path) -> None:
    if behaviour == "flood":
        started = threading.Event()
        threading.Thread(target=flood, args=(pid_dir, started), daemon=True).start()
        started.wait()
    elif behaviour == "ignores-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif behaviour in ("grandchild-in-group", "grandchild-escaped"):
        grandchild(marker, pid_dir, escape=behaviour == "grandchild-escaped")
    elif behaviour == "silent":
        mark(pid_dir, str(os.getpid()))
        asyncio.run(silent())
    elif behaviour == "never-connects":
        mark(pid_dir, str(os.getpid()))
        threading.Event().wait()
    else:
        sys.exit(f"unknown behaviour {behaviour!r}")
    mark(pid_dir, str(os.getpid()))
    main(Breakage(unknown_rulesets=frozenset({"russian"})))


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2], Path(sys.argv[3]))

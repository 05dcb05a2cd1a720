"""Who plays a block: runner identities and whether the runner that claimed a block still lives.

A runner (one ``season run`` process) claims each block it plays in the ladder database
(:meth:`brandeln.ladder.store.blocks.BlockStore.claim_block`), so two runners of one season, on
one machine or several, never play the same block. A claim is taken over when its runner is known
dead (same host, its process gone: a SIGKILLed run is resumed at once) or has not refreshed the
claim's heartbeat for :data:`STALE_CLAIM_MS` (another host that went away).

>>> runner = new_runner_id()
>>> runner_alive(runner)
True
>>> retire(runner)
>>> runner_alive(runner)
False
>>> runner_alive(f"{socket.gethostname()}/999999999/x")
False
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from typing import Final

__all__ = ["HEARTBEAT_S", "STALE_CLAIM_MS", "new_runner_id", "retire", "runner_alive"]

HEARTBEAT_S: Final = 10.0  # how often a runner refreshes its claims
STALE_CLAIM_MS: Final = 120_000  # a claim of another host unrefreshed this long is taken over


# The runs of this process still going: one process may run several seasons, one after the
# other (tests, a service), and a run that is over is as dead as a killed one.
_LIVE: set[str] = set()


def new_runner_id() -> str:
    """``host/pid/nonce`` of a new run of this process, alive until :func:`retire`. The nonce
    tells the runs of one process apart (and two processes when a PID is reused)."""
    runner = f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:12]}"
    _LIVE.add(runner)
    return runner


def retire(runner: str) -> None:
    """The run is over: its claims left behind are free for any other run."""
    _LIVE.discard(runner)


def runner_alive(runner: str) -> bool | None:
    """True/False for a runner of this host (its process exists or not); None for another
    host's (only its heartbeat can tell)."""
    host, _, rest = runner.partition("/")
    pid_text = rest.partition("/")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return None
    pid = int(pid_text)
    if pid == os.getpid():
        return runner in _LIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    # A zombie (killed, not yet reaped by its parent) is dead for our purpose.
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        if stat.read().rpartition(")")[2].split()[0] == "Z":
            return False
    return True

"""A real `brandeln ladder serve` process for the tests: started on a given port, its output
read line by line, stopped (or SIGKILLed) by its PID.

:func:`ladder_process` waits for the line that says the ladder is serving (never a fixed
sleep) before it hands the process over.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from tests.cli_process import CliProcess, cli_process

SERVING: Final = "is serving; Ctrl-C stops it"
WAIT_S: Final = 180.0  # for a line or a state: generous, the suite runs beside CPU hogs

T = TypeVar("T")


@dataclass
class LadderProcess(CliProcess):
    def kill(self) -> None:
        """SIGKILL: no handler runs, nothing is given back."""
        self.signal(signal.SIGKILL)

    def stop(self) -> int:
        """SIGTERM, as an operator's ``kill`` or a service manager; its exit status."""
        return self.signal(signal.SIGTERM)


@contextmanager
def ladder_process(
    args: Sequence[str], env: dict[str, str] | None = None
) -> Iterator[LadderProcess]:
    """`brandeln ladder serve ARGS`, started (its "is serving" line read) and then stopped by
    its PID (SIGTERM, then SIGKILL if it is slow)."""
    with cli_process(["ladder", "serve", *args], env) as running:
        ladder = LadderProcess(running.process, running.lines, running._queue)
        ladder.wait_for(SERVING)
        yield ladder


def wait_until(what: str, probe: Callable[[], T | None], *, seconds: float = WAIT_S) -> T:
    """Poll ``probe`` until it returns something truthy; AssertionError naming ``what`` after
    ``seconds`` (a hang guard, not a timing check: it is far above any healthy run)."""
    deadline = time.monotonic() + seconds
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(0.1)


def data_args(data: Path, db: str | None) -> list[str]:
    return ["--data", str(data), *(["--db", db] if db else [])]


def ladder_serve_args(
    data: Path, db: str | None, port: int, *, move_ms: int, more: Sequence[str] = ()
) -> list[str]:
    """`ladder serve`'s arguments in the tests: one deal a match, a block planned every 0.2 s
    when idle, at ``port``, a move's time ``move_ms`` (far above a bot's answer), then ``more``."""
    return [
        *data_args(data, db),
        *("--port", str(port), "--deals", "1", "--interval", "0.2"),
        *("--move-ms", str(move_ms), *more),
    ]

"""A real `brandeln` command as a process for the tests: started with the project on its path,
its output (stdout and stderr together) read line by line on a thread, stopped by its PID.

``tests/web/web_process.py`` (`brandeln web`) and ``tests/ladder/ladder_process.py``
(`brandeln ladder serve`) build on it, each waiting for the line that says it is ready
(never a fixed sleep).
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.conftest import PROJECT_PYTHONPATH, ROOT

WAIT_S: Final = 180.0  # for a line or an exit: generous, the suite runs beside CPU hogs
_IGNORING_LAUNCHER: Final = (
    "import os, signal, sys\n"
    "for number in sys.argv[1].split(','):\n"
    "    signal.signal(int(number), signal.SIG_IGN)\n"
    "os.execv(sys.executable, sys.argv[2:])\n"
)


@dataclass
class CliProcess:
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)  # what it printed and was read so far
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def next_line(self) -> str | None:
        """Its next line of output (None at its end); AssertionError after WAIT_S of silence."""
        try:
            line = self._queue.get(timeout=WAIT_S)
        except queue.Empty:
            raise AssertionError(f"the command printed nothing for {WAIT_S} s") from None
        if line is not None:
            self.lines.append(line)
        return line

    def wait_for(self, ready: str) -> None:
        """Read lines until one holds ``ready``; AssertionError if the output ends first."""
        while (line := self.next_line()) is not None:
            if ready in line:
                return
        raise AssertionError(f"the command ended before {ready!r}: {''.join(self.lines)}")

    def output(self) -> str:
        """Every line it printed so far (what is waiting in the pipe read now)."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._queue.put(None)  # its end stays for next_line
                break
            self.lines.append(line)
        return "".join(self.lines)

    def rest(self) -> str:
        """What it printed after what was read, once it has stopped."""
        start = len(self.lines)
        while self.next_line() is not None:
            pass
        return "".join(self.lines[start:])

    def signal(self, number: int) -> int:
        """Send ``number`` and wait for the exit; its exit status."""
        os.kill(self.process.pid, number)
        return self.process.wait(timeout=WAIT_S)


def _pump(stream: Iterator[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@contextmanager
def cli_process(
    args: Sequence[str],
    env: dict[str, str] | None = None,
    *,
    stop: int = signal.SIGTERM,
    ignoring: Sequence[int] = (),
    module: str = "brandeln.cli",
    installed: Path | None = None,
) -> Iterator[CliProcess]:
    """`brandeln ARGS` (no $BRANDELN_ADMIN_TOKEN of the caller's), stopped afterwards by its
    PID: ``stop``, then SIGKILL if it has not ended in 30 s. ``ignoring``: signals it starts
    with ignored, as a shell without job control starts a background job (SIGINT, SIGQUIT).
    ``module``: run with ``python -m`` in its place (a test's wrapper around the command).
    ``installed``: a folder to run the console script of an installed copy in (a virtual
    environment's ``bin/brandeln``, started there, without this checkout on its path)."""
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("BRANDELN_ADMIN_TOKEN", "PYTHONPATH")},
        **({} if installed else {"PYTHONPATH": PROJECT_PYTHONPATH}),
        **(env or {}),
    }
    command = [sys.executable, "-m", module, *args]
    if installed is not None:
        command = [str(installed / "bin" / "brandeln"), *args]
    if ignoring:  # dispositions set to SIG_IGN survive exec; no preexec_fn in a threaded test
        numbers = ",".join(str(int(number)) for number in ignoring)
        command = [sys.executable, "-c", _IGNORING_LAUNCHER, numbers, *command]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        cwd=installed or ROOT,
    )
    running = CliProcess(process)
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(process.stdout, running._queue), daemon=True)
    reader.start()
    try:
        yield running
    finally:
        if process.poll() is None:
            os.kill(process.pid, stop)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        reader.join(timeout=30)

"""A page's terminal: each command runs through bash in the page's network namespace, and what
it leaves of the shell's state (its folder, its exported variables) carries over to the next,
as in one terminal. Background commands run in process groups of their own, stopped by PID at
the end.

Each command is a fresh ``bash -c`` that first restores the state the previous one saved
(``export -p`` and ``cd``) and saves it again after: one long-lived bash fed on stdin could not
tell one command's output and exit status from the next's.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.docs.examples.netns import (
    TCP_ESTABLISHED,
    TCP_LISTEN,
    Namespace,
    group_members,
    group_socket_inodes,
)

STOP_GRACE_S: Final = 10.0
POLL_S: Final = 0.05
OUTPUT_TAIL: Final = 40  # lines of a process's output a failure shows
PORT: Final = re.compile(r"(?<![\w-])--(?:port[= ](?P<port>\d+)|listen[= ]\S*:(?P<listen>\d+))")


class Failure(enum.Enum):
    """Why a page's step failed."""

    EXIT_STATUS = "exited with status"
    OUTPUT = "printed other output than the page shows"
    TIMEOUT = "did not finish in time"
    NOT_READY = "was not ready in time"
    BACKGROUND_EXITED = "ended before it was ready"


class StepFailedError(Exception):
    def __init__(self, reason: Failure, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def tail(text: str) -> str:
    lines = text.splitlines()
    shown = lines[-OUTPUT_TAIL:]
    cut = [f"    ({len(lines) - len(shown)} lines before)"] if len(lines) > len(shown) else []
    return "\n".join(cut + [f"    {line}" for line in shown] or ["    (nothing)"])


def announced_port(command: str) -> int | None:
    """The port a command says it listens on (``--port N``, ``--listen HOST:PORT``); None
    when it names none, or port 0 (a free one)."""
    found = PORT.search(command)
    if found is None:
        return None
    port = int(found.group("port") or found.group("listen"))
    return port or None


@dataclass
class Background:
    line: int
    command: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@dataclass
class Shell:
    """The terminal of one page: its folder, its namespace, its saved state."""

    folder: Path
    private: Path  # the runner's files (state, scripts, logs): outside the reader's folder
    namespace: Namespace
    env: dict[str, str]
    timeout_s: float
    ready_timeout_s: float
    background: list[Background] = field(default_factory=list)
    steps: int = 0

    def __post_init__(self) -> None:
        self.state = self.private / "state.sh"
        self.where = self.private / "cwd"
        self.state.write_text(f"cd {_quote(str(self.folder))}\n", encoding="utf-8")
        self.where.write_text(str(self.folder), encoding="utf-8")

    def _script(self, command: str, *, save: bool) -> Path:
        self.steps += 1
        script = self.private / f"step-{self.steps}.sh"
        saved = (
            "\n__status=$?\n"
            f"{{ export -p; printf 'cd %q\\n' \"$PWD\"; }} > {_quote(str(self.state))}\n"
            f"printf '%s' \"$PWD\" > {_quote(str(self.where))}\n"
            "exit $__status\n"
        )
        script.write_text(
            f"source {_quote(str(self.state))}\n{command}{saved if save else ''}\n",
            encoding="utf-8",
        )
        return script

    def _argv(self, script: Path) -> list[str]:
        return [*self.namespace.enter(), "bash", "--noprofile", "--norc", str(script)]

    def cwd(self) -> Path:
        """The folder the last command left the shell in."""
        return Path(self.where.read_text(encoding="utf-8"))

    def run(self, command: str, label: str | None = None) -> str:
        """Run a command to its end; its output (stdout and stderr, as a terminal shows them).

        A command that runs past the timeout is killed with its process group; any process it
        left behind in its group is stopped too.
        """
        who = label or f"`{command}`"
        process = subprocess.Popen(
            self._argv(self._script(command, save=True)),
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            out, _ = process.communicate(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            raise StepFailedError(
                Failure.TIMEOUT,
                f"{who} did not finish within {self.timeout_s:g} s (killed); "
                f"its output so far:\n{tail(out.decode(errors='replace'))}",
            ) from None
        _kill_group(process.pid, signal.SIGKILL)  # what it started and left running
        text = out.decode(errors="replace")
        if process.returncode != 0:
            raise StepFailedError(
                Failure.EXIT_STATUS,
                f"{who} exited with status {process.returncode}; its output:\n{tail(text)}",
            )
        return text

    def start(self, line: int, command: str) -> None:
        """Start a background command and wait until it is ready: listening on the port it
        names, or, naming none, holding a listening or connected socket."""
        log = self.private / f"background-{line}.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                self._argv(self._script(command, save=False)),
                cwd=self.folder,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        started = Background(line, command, process, log)
        self.background.append(started)
        port = announced_port(command)
        what = (
            f"nothing of its own listening on port {port}"
            if port
            else "no socket of its own listening or connected"
        )
        deadline = time.monotonic() + self.ready_timeout_s
        while not self._ready(process.pid, port):
            if process.poll() is not None:
                raise StepFailedError(
                    Failure.BACKGROUND_EXITED,
                    f"the background command `{command}` exited with status "
                    f"{process.returncode} before it was ready ({what}); its output:\n"
                    f"{tail(started.output())}",
                )
            if time.monotonic() > deadline:
                raise StepFailedError(
                    Failure.NOT_READY,
                    f"the background command `{command}` was not ready within "
                    f"{self.ready_timeout_s:g} s ({what}); its output so far:\n"
                    f"{tail(started.output())}",
                )
            time.sleep(POLL_S)

    def _ready(self, group: int, port: int | None) -> bool:
        """Whether a socket of the command's own (an earlier command's listening on the same
        port is not it) listens on ``port``, or, with no port, listens or is connected."""
        sockets = self.namespace.sockets()
        if port is not None:
            sockets = [s for s in sockets if s.port == port and s.state == TCP_LISTEN]
        else:
            sockets = [s for s in sockets if s.state in (TCP_LISTEN, TCP_ESTABLISHED)]
        if not sockets:
            return False
        held = group_socket_inodes(group)
        return any(s.inode in held for s in sockets)

    def background_output(self) -> str:
        """Each background command's output so far (a failure shows it: the referee's log
        often says why a later command failed)."""
        return "\n".join(
            f"the background command `{b.command}` (line {b.line}) printed:\n{tail(b.output())}"
            for b in self.background
        )

    def stop(self) -> None:
        """Stop every background command: SIGTERM to its process group, SIGKILL after a
        grace period."""
        for started in self.background:
            _kill_group(started.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for started in self.background:
            while group_members(started.process.pid) and time.monotonic() < deadline:
                started.process.poll()  # reap the group's leader, or it stays a member
                time.sleep(POLL_S)
            _kill_group(started.process.pid, signal.SIGKILL)
            started.process.wait()


def _kill_group(group: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, sig)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"

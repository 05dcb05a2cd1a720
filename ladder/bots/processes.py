"""Starting and stopping the processes of a season's command bots.

A command bot is any executable. It gets the referee's address and its identity in the
environment (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``, ``BRANDELN_BOT_NAME``,
``BRANDELN_TABLES``), and the placeholders ``{server}``, ``{token}``, ``{name}``, ``{tables}``
in its arguments are replaced by the same values.

**Output.** Its stdout and stderr are one pipe, read by a thread of its own (never the event
loop) into one log file: the first :data:`MAX_OUTPUT_BYTES` of each process's output are kept,
then a line saying the rest was cut, and the rest is read and dropped (spliced to /dev/null),
so a bot that floods its output neither fills the disk nor blocks on a full pipe
(:mod:`brandeln.ladder.bots.output`).

The program is looked up first next to the running Python (the virtual environment's ``bin``,
so ``brandeln`` works even when the venv is not activated), then on ``PATH``; ``python`` and
``python3`` mean the running interpreter.

**Stopping.** Each process starts in its own session (process group): a Ctrl-C in the terminal
reaches only the runner, which then stops the bots itself (:func:`stop_bots`): SIGTERM to each
bot's process group and to every process carrying its token that this process started (a
descendant that left the group with ``setsid()``), and :data:`STOP_GRACE_S` later SIGKILL to
whatever of them is left, whatever the bot's own process did meanwhile. It returns at most
:data:`KILL_WAIT_S` after that. A descendant that leaves the group *and* drops its environment
is out of reach (only a cgroup would hold it); it loses the log pipe when the bot is stopped.
Finding those processes and killing them is :mod:`brandeln.ladder.bots.process_killer`'s, as is
stopping the bots a killed run left behind (:func:`stop_orphans`); this module exports its names
too, so a caller needs one import for a bot's whole life.

>>> resolve_program("python") == sys.executable
True
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from brandeln.datastore.private_files import open_private, private_dir
from brandeln.ladder.bots.output import MAX_OUTPUT_BYTES, PIPE_BYTES, OutputPump
from brandeln.ladder.bots.process_killer import (
    KILL_WAIT_S,
    STARTER_VAR,
    STOP_GRACE_S,
    STOP_POLL_S,
    find_bot_processes,
    find_orphans,
    scan_processes,
    stop_orphans,
    terminate,
)
from brandeln.ladder.errors import BotStartError

# The finder's and the killer's names (brandeln.ladder.bots.process_killer) and the output cap
# (brandeln.ladder.bots.output) are exported here too: callers start, find and stop bots through
# here.
__all__ = [
    "KILL_WAIT_S",
    "MAX_OUTPUT_BYTES",
    "STOP_GRACE_S",
    "STOP_POLL_S",
    "BotProcess",
    "expand_command",
    "find_bot_processes",
    "find_orphans",
    "resolve_program",
    "start_bot",
    "stop_bots",
    "stop_orphans",
]

# At most this long for a dead bot's last output to reach its log: the pump is told, and
# answers once it has read the pipe empty (milliseconds, or longer on a loaded machine); only a
# process out of reach that keeps writing into the pipe meets the bound.
OUTPUT_SETTLE_S: Final = 10.0
_PYTHON_NAMES: Final = frozenset({"python", "python3"})


# Run before the bot's own program (it execs it): PR_SET_PDEATHSIG survives exec, and the
# check of the parent's pid closes the race of a parent that died before prctl ran. (Not
# subprocess's preexec_fn: it is unsafe in a process with threads, as a Ray worker is.)
_DIE_WITH_PARENT = """
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    sys.exit(1)
os.execvp(sys.argv[2], sys.argv[2:])
"""


def resolve_program(program: str) -> str:
    """The executable to run for ``program`` (see the module docstring)."""
    if program in _PYTHON_NAMES:
        return sys.executable
    if os.sep in program:
        return program
    beside_python = str(Path(sys.executable).parent)
    found = shutil.which(program, path=os.pathsep.join([beside_python, os.environ.get("PATH", "")]))
    return found or program


def expand_command(command: Sequence[str], values: Mapping[str, str]) -> list[str]:
    """``command`` with ``{server}``-style placeholders replaced (other braces are kept).

    >>> expand_command(["bot", "--tables", "{tables}", "{x}"], {"tables": "2"})
    ['bot', '--tables', '2', '{x}']
    """
    expanded = []
    for part in command:
        text = part
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        expanded.append(text)
    return expanded


@dataclass
class BotProcess:
    """A running command bot."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path
    token_hash: str = ""  # its token's SHA-256: finds what it started outside its group
    output: OutputPump | None = None
    # Stopped, with its group: from now on its group id may be another's (an id is used again
    # once its group is empty), so a later stop_bots leaves the group out.
    swept: bool = False

    @property
    def exited(self) -> bool:
        return self.process.returncode is not None

    async def output_written(self) -> None:
        """Wait (up to :data:`OUTPUT_SETTLE_S`) for what it wrote to reach its log: read
        :meth:`log_tail` after this when it has exited."""
        if self.output is not None:
            await self.output.wait(OUTPUT_SETTLE_S)

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of its log, for error messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:])


async def start_bot(
    name: str,
    command: Sequence[str],
    *,
    server: str,
    token: str,
    tables: int,
    log_path: Path,
    die_with_parent: bool = False,
) -> BotProcess:
    """Start one command bot; raises :class:`BotStartError` if it cannot be started.

    ``die_with_parent`` (Linux): the kernel kills the bot when this process dies, however it
    dies (a cluster's worker, whose node may be lost, must not leave bots behind).
    """
    values = {"server": server, "token": token, "name": name, "tables": str(tables)}
    argv = expand_command(command, values)
    argv[0] = resolve_program(argv[0])
    if die_with_parent and sys.platform == "linux":
        argv = [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *argv]
    env = dict(os.environ)
    env.update(
        {
            "BRANDELN_SERVER": server,
            "BRANDELN_TOKEN": token,
            "BRANDELN_BOT_NAME": name,
            "BRANDELN_TABLES": str(tables),
            "PYTHONUNBUFFERED": "1",  # so a Python bot's log is current when we show its tail
            STARTER_VAR.decode()[:-1]: str(os.getpid()),
        }
    )
    # A bot's output is its own business: its log is 0600 in a 0700 folder.
    private_dir(log_path.parent)
    with open_private(log_path, "a") as log:
        log.write(f"--- starting {name}: {' '.join(command)}\n")
        log.flush()
        log_fd = os.dup(log.fileno())
    reader, writer = os.pipe()  # not inherited: each bot holds only its own pipe
    with contextlib.suppress(OSError):  # a bigger pipe if allowed; the default one works too
        fcntl.fcntl(writer, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=writer,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    except BaseException as error:
        for fd in (reader, log_fd):
            os.close(fd)
        if isinstance(error, OSError):
            raise BotStartError(
                f"bot {name!r}: cannot start {command[0]!r}: {error.strerror or error}"
            ) from None
        raise
    finally:
        os.close(writer)  # the bot's copy is the only one: its end is the pipe's end
    token_sha = hashlib.sha256(token.encode()).hexdigest()
    return BotProcess(name, process, log_path, token_sha, OutputPump(reader, log_fd))


async def stop_bots(bots: Sequence[BotProcess], grace_s: float = STOP_GRACE_S) -> None:
    """Stop every bot and what it started: SIGTERM to its process group and to the processes
    carrying its token that this process started, SIGKILL to what is left of them after
    ``grace_s`` (whatever the bot's own process did); returns at most :data:`KILL_WAIT_S`
    later. An exited bot's group is swept too: its children may outlive it.

    Raises nothing but a cancellation that arrived while it was stopping them.
    """
    if not bots:
        return
    # Started with setsid(): pgid == pid. A group lives on after its leader while a member does.
    groups = frozenset(bot.process.pid for bot in bots if not bot.swept)
    tokens = frozenset(bot.token_hash for bot in bots if bot.token_hash)
    me = os.getpid()

    def find() -> list[int]:
        return scan_processes(groups, tokens, started_by=me)

    async def stop() -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + grace_s + KILL_WAIT_S
        await terminate(find, groups, grace_s)
        deadline = min(end, loop.time() + KILL_WAIT_S)
        # Reaped, so returncode is set; and the last output in the logs (every writer is
        # gone, unless one is out of reach: its pipe is closed below).
        waits: list[asyncio.Future[Any]] = [
            asyncio.ensure_future(bot.process.wait()) for bot in bots
        ]
        waits += [bot.output.ended() for bot in bots if bot.output]
        _, pending = await asyncio.wait(waits, timeout=max(deadline - loop.time(), 0.01))
        for future in pending:
            future.cancel()
        for bot in bots:
            bot.swept = True
            if bot.output is not None:
                bot.output.close()

    # Stopping must finish even when the runner is being cancelled (Ctrl-C): shield it, wait
    # it out, and pass the cancellation on afterwards.
    stopping = asyncio.ensure_future(stop())
    cancelled = False
    while not stopping.done():
        try:
            await asyncio.shield(stopping)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError

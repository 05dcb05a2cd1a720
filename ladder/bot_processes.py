"""Starting and stopping the processes of a season's command bots.

A command bot is any executable. It gets the referee's address and its identity in the
environment (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``, ``BRANDELN_BOT_NAME``,
``BRANDELN_TABLES``), and the placeholders ``{server}``, ``{token}``, ``{name}``, ``{tables}``
in its arguments are replaced by the same values. Its stdout and stderr go to one log file.

The program is looked up first next to the running Python (the virtual environment's ``bin``,
so ``brandeln`` works even when the venv is not activated), then on ``PATH``; ``python`` and
``python3`` mean the running interpreter.

Each process starts in its own session (process group): a Ctrl-C in the terminal reaches only
the runner, which then stops the bots itself (SIGTERM to the group, SIGKILL after a grace period)
so a bot's own children go too.

>>> resolve_program("python") == sys.executable
True
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import signal
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from datastore.private_files import open_private, private_dir
from ladder.errors import BotStartError

__all__ = [
    "BotProcess",
    "expand_command",
    "find_bot_processes",
    "find_orphans",
    "resolve_program",
    "start_bot",
    "stop_bots",
    "stop_orphans",
]

STOP_GRACE_S: Final = 5.0
_TOKEN_VAR: Final = b"BRANDELN_TOKEN="
# The process that started a bot: while it lives the bot is its, not an orphan (another runner
# of the same season on this host must not stop it; only a killed runner leaves orphans).
_STARTER_VAR: Final = b"BRANDELN_STARTED_BY="
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

    @property
    def exited(self) -> bool:
        return self.process.returncode is not None

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
            _STARTER_VAR.decode()[:-1]: str(os.getpid()),
        }
    )
    # A bot's output is its own business: its log is 0600 in a 0700 folder.
    private_dir(log_path.parent)
    with open_private(log_path, "a") as log:
        log.write(f"--- starting {name}: {' '.join(command)}\n")
        log.flush()
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            raise BotStartError(
                f"bot {name!r}: cannot start {command[0]!r}: {error.strerror or error}"
            ) from None
    return BotProcess(name, process, log_path)


async def stop_bots(bots: Sequence[BotProcess], grace_s: float = STOP_GRACE_S) -> None:
    """Stop every bot: SIGTERM to its process group, SIGKILL after ``grace_s``.

    Raises nothing but a cancellation that arrived while it was stopping them.
    """

    async def stop(bot: BotProcess) -> None:
        process = bot.process
        if process.returncode is not None:
            return
        _signal_group(process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), grace_s)
        except TimeoutError:
            _signal_group(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                await process.wait()

    # Stopping must finish even when the runner is being cancelled (Ctrl-C): shield it, wait
    # it out, and pass the cancellation on afterwards.
    stopping = asyncio.ensure_future(
        asyncio.gather(*(stop(bot) for bot in bots), return_exceptions=True)
    )
    cancelled = False
    while not stopping.done():
        try:
            await asyncio.shield(stopping)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


def find_bot_processes(
    token_hashes: Iterable[str], proc: Path = Path("/proc"), *, orphans_only: bool = False
) -> list[int]:
    """The processes holding one of the tokens: ``BRANDELN_TOKEN=<token>`` in its environment
    where the token's SHA-256 is one of ``token_hashes`` (:func:`ladder.storage.token_hash`; the
    ladder keeps no token). The tokens are secrets this ladder handed out, so no unrelated
    process can match. ``orphans_only``: only those whose starter (``BRANDELN_STARTED_BY``) is
    gone. Reads ``/proc`` (Linux); elsewhere it finds nothing."""
    wanted = set(token_hashes)
    if not wanted or not proc.is_dir():
        return []
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        variables = environ.split(b"\0")
        tokens = (v[len(_TOKEN_VAR) :] for v in variables if v.startswith(_TOKEN_VAR))
        if not any(hashlib.sha256(token).hexdigest() in wanted for token in tokens):
            continue
        starters = [v[len(_STARTER_VAR) :] for v in variables if v.startswith(_STARTER_VAR)]
        if orphans_only and starters and starters[0].isdigit() and _alive(int(starters[0])):
            continue  # its runner is alive (another run of the season): not an orphan
        found.append(int(entry.name))
    return sorted(found)


def find_orphans(token_hashes: Iterable[str], proc: Path = Path("/proc")) -> list[int]:
    """Bots left by an earlier run that was killed (SIGKILL leaves no time to stop them): the
    :func:`find_bot_processes` of the tokens whose starter is gone. A bot whose starter still
    runs belongs to that run (another runner of the season on this host), not to us."""
    return find_bot_processes(token_hashes, proc, orphans_only=True)


async def stop_orphans(token_hashes: Iterable[str], grace_s: float = STOP_GRACE_S) -> list[int]:
    """Stop the :func:`find_orphans` processes (SIGTERM, then SIGKILL); returns their pids."""
    pids = find_orphans(token_hashes)
    for pid in pids:
        _signal_process(pid, signal.SIGTERM)
    deadline = asyncio.get_running_loop().time() + grace_s
    while any(_alive(pid) for pid in pids):
        if asyncio.get_running_loop().time() >= deadline:
            for pid in pids:
                _signal_process(pid, signal.SIGKILL)
            break
        await asyncio.sleep(0.05)
    return pids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is as good as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return True


def _signal_process(pid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        # A bot we started leads its own process group: signal its children too.
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)


def _signal_group(pid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)  # the bot was started in its own session: pgid == pid

"""Starting and stopping the processes of a season's command bots.

A command bot is any executable. It gets the referee's address and its identity in the
environment (``BRANDELN_SERVER``, ``BRANDELN_TOKEN``, ``BRANDELN_BOT_NAME``,
``BRANDELN_TABLES``), and the placeholders ``{server}``, ``{token}``, ``{name}``, ``{tables}``
in its arguments are replaced by the same values.

**Output.** Its stdout and stderr are one pipe, read by a thread of its own (never the event
loop) into one log file: the first :data:`MAX_OUTPUT_BYTES` of each process's output are kept,
then a line saying the rest was cut, and the rest is read and dropped (spliced to /dev/null),
so a bot that floods its output neither fills the disk nor blocks on a full pipe.

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

>>> resolve_program("python") == sys.executable
True
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import select
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from datastore.private_files import open_private, private_dir
from ladder.errors import BotStartError

__all__ = [
    "KILL_WAIT_S",
    "MAX_OUTPUT_BYTES",
    "STOP_GRACE_S",
    "BotProcess",
    "expand_command",
    "find_bot_processes",
    "find_orphans",
    "resolve_program",
    "start_bot",
    "stop_bots",
    "stop_orphans",
]

STOP_GRACE_S: Final = 5.0  # from SIGTERM to SIGKILL
KILL_WAIT_S: Final = 1.0  # after SIGKILL: sweeping up late forks, reaping, the last output
MAX_OUTPUT_BYTES: Final = 4 * 1024 * 1024  # kept in the log of each bot process's output
OUTPUT_SETTLE_S: Final = 1.0  # how long a dead bot's last output may take to reach its log
STOP_POLL_S: Final = 0.05  # where a process's exit cannot be awaited (no pidfd)
_PIPE_BYTES: Final = 1024 * 1024  # a big pipe: fewer wake-ups of the reader under a flood
_CHUNK: Final = 64 * 1024
_CUT_NOTE: Final = (
    "\n--- output cut: only the first {cap} bytes of this process's output are kept\n"
)
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


class _OutputPump:
    """A bot's output pipe copied into its log, up to ``cap`` bytes, by a daemon thread.

    A thread, not the event loop: a flood costs the loop nothing, and past the cap the rest is
    spliced to /dev/null without being copied. It ends at the pipe's end (every writer gone) or
    on :meth:`close`, which closes the pipe: a writer out of reach gets EPIPE.
    """

    def __init__(self, pipe: int, log: int, cap: int = MAX_OUTPUT_BYTES) -> None:
        self._pipe, self._log, self._cap = pipe, log, cap
        self._wake_read, self._wake_write = os.pipe()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._waited = False
        self._done: concurrent.futures.Future[None] = concurrent.futures.Future()
        os.set_blocking(pipe, False)
        self._thread = threading.Thread(target=self._run, name="bot-output", daemon=True)
        self._thread.start()

    def ended(self) -> asyncio.Future[None]:
        """The end of the output (the pipe's end, or :meth:`close`), safe to cancel."""
        return asyncio.shield(asyncio.wrap_future(self._done))

    async def wait(self, timeout_s: float) -> None:
        """Until the output has ended, or ``timeout_s`` (only once: a pipe a stray process
        holds open would otherwise make every later call wait as long)."""
        if self._done.done() or self._waited:
            return
        self._waited = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ended(), timeout_s)

    def close(self) -> None:
        """Stop reading (the thread closes the pipe within one read)."""
        self._stopping.set()
        with self._lock:
            if not self._closed:
                os.write(self._wake_write, b"x")

    def _run(self) -> None:
        kept, devnull = 0, -1
        idle = select.poll()  # not select(): a runner may hold descriptors past FD_SETSIZE
        idle.register(self._pipe, select.POLLIN)
        idle.register(self._wake_read, select.POLLIN)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            while not self._stopping.is_set():
                try:
                    if kept < self._cap:
                        chunk = os.read(self._pipe, _CHUNK)
                        if not chunk:
                            return
                        kept = self._keep(chunk, kept)
                    elif not _discard(self._pipe, devnull):
                        return
                except BlockingIOError:
                    if any(fd == self._wake_read for fd, _ in idle.poll()):
                        return
        except OSError:
            return  # the pipe failed: nothing more will come through it
        finally:
            with self._lock:
                self._closed = True
                for fd in (self._pipe, self._log, devnull, self._wake_read, self._wake_write):
                    if fd >= 0:
                        os.close(fd)
            self._done.set_result(None)

    def _keep(self, chunk: bytes, kept: int) -> int:
        part = chunk[: self._cap - kept]
        try:
            _write_all(self._log, part)
            if kept + len(part) >= self._cap:
                _write_all(self._log, _CUT_NOTE.format(cap=self._cap).encode())
        except OSError:
            return self._cap  # a log that cannot be written (a full disk): drain from now on
        return kept + len(part)


def _discard(pipe: int, devnull: int) -> bool:
    """Drop what the pipe holds (splice: no copy through user space); False at its end."""
    if hasattr(os, "splice"):
        return os.splice(pipe, devnull, _PIPE_BYTES, flags=os.SPLICE_F_NONBLOCK) > 0
    return bool(os.read(pipe, _CHUNK))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@dataclass
class BotProcess:
    """A running command bot."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path
    token_hash: str = ""  # its token's SHA-256: finds what it started outside its group
    output: _OutputPump | None = None
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
            _STARTER_VAR.decode()[:-1]: str(os.getpid()),
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
        fcntl.fcntl(writer, getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)
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
    return BotProcess(name, process, log_path, token_sha, _OutputPump(reader, log_fd))


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
        return _scan(groups, tokens, started_by=me)

    async def stop() -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + grace_s + KILL_WAIT_S
        await _terminate(find, groups, grace_s)
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


def find_bot_processes(
    token_hashes: Iterable[str], proc: Path = Path("/proc"), *, orphans_only: bool = False
) -> list[int]:
    """The processes holding one of the tokens: ``BRANDELN_TOKEN=<token>`` in its environment
    where the token's SHA-256 is one of ``token_hashes`` (:func:`ladder.storage.token_hash`; the
    ladder keeps no token). The tokens are secrets this ladder handed out, so no unrelated
    process can match. ``orphans_only``: only those whose starter (``BRANDELN_STARTED_BY``) is
    gone. Reads ``/proc`` (Linux); elsewhere it finds nothing. Zombies are gone already."""
    return _scan(frozenset(), frozenset(token_hashes), orphans_only=orphans_only, proc=proc)


def find_orphans(token_hashes: Iterable[str], proc: Path = Path("/proc")) -> list[int]:
    """Bots left by an earlier run that was killed (SIGKILL leaves no time to stop them): the
    :func:`find_bot_processes` of the tokens whose starter is gone. A bot whose starter still
    runs belongs to that run (another runner of the season on this host), not to us."""
    return find_bot_processes(token_hashes, proc, orphans_only=True)


async def stop_orphans(token_hashes: Iterable[str], grace_s: float = STOP_GRACE_S) -> list[int]:
    """Stop the :func:`find_orphans` processes and their process groups (SIGTERM, then
    SIGKILL, as :func:`stop_bots`); returns the pids found."""
    wanted = frozenset(token_hashes)
    pids = find_orphans(wanted)
    groups = frozenset(pid for pid in pids if _pgid(pid) == pid)

    def find() -> list[int]:
        return _scan(groups, wanted, orphans_only=True)

    if pids:
        await _terminate(find, groups, grace_s)
    return pids


async def _terminate(find: Callable[[], list[int]], groups: Set[int], grace_s: float) -> None:
    """The one process killer: SIGTERM to what ``find`` finds, then wait for what it finds to
    exit until nothing is found or ``grace_s`` has passed; then SIGKILL to what it finds, until
    nothing is or :data:`KILL_WAIT_S` has passed (a process may fork between a look and a
    kill)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    _signal_all(find(), signal.SIGTERM, groups)
    while (left := find()) and loop.time() < deadline:
        await _exits(left, deadline - loop.time())
    deadline = loop.time() + KILL_WAIT_S
    while left := find():
        _signal_all(left, signal.SIGKILL, groups)
        if loop.time() >= deadline:
            return
        await _exits(left, deadline - loop.time())


async def _exits(pids: Iterable[int], timeout_s: float) -> None:
    """Until each of ``pids`` has exited (its pidfd turns readable), or ``timeout_s``."""
    loop = asyncio.get_running_loop()
    waits: list[asyncio.Future[None]] = []
    watched: list[int] = []
    try:
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue  # gone already
            except (AttributeError, OSError):  # no pidfds (not Linux 5.3+): look again soon
                await asyncio.sleep(min(STOP_POLL_S, timeout_s))
                return
            watched.append(fd)
            exited = loop.create_future()
            waits.append(exited)
            loop.add_reader(fd, _settle, exited)
        if waits:
            await asyncio.wait(waits, timeout=max(timeout_s, 0.0))
    finally:
        for fd in watched:
            loop.remove_reader(fd)
            os.close(fd)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _scan(
    groups: Set[int],
    token_hashes: Set[str],
    *,
    started_by: int | None = None,
    orphans_only: bool = False,
    proc: Path = Path("/proc"),
) -> list[int]:
    """Live processes (not zombies) in one of ``groups`` or carrying one of the tokens (see
    :func:`find_bot_processes`); ``started_by``: only those this pid started."""
    if not (groups or token_hashes) or not proc.is_dir():
        return []
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # gone
            continue
        if fields[0] in "ZX":  # exited, not yet reaped by its parent: as good as gone
            continue
        # A member of a bot's group is in the bot's session too (setsid() made both).
        member = int(fields[2]) in groups and fields[2] == fields[3]
        if member or _carries(entry, token_hashes, started_by, orphans_only):
            found.append(int(entry.name))
    return sorted(found)


def _carries(
    entry: Path, token_hashes: Set[str], started_by: int | None, orphans_only: bool
) -> bool:
    if not token_hashes:
        return False
    try:
        variables = (entry / "environ").read_bytes().split(b"\0")
    except OSError:  # gone, or another user's
        return False
    tokens = (v[len(_TOKEN_VAR) :] for v in variables if v.startswith(_TOKEN_VAR))
    if not any(hashlib.sha256(token).hexdigest() in token_hashes for token in tokens):
        return False
    starters = [v[len(_STARTER_VAR) :] for v in variables if v.startswith(_STARTER_VAR)]
    starter = int(starters[0]) if starters and starters[0].isdigit() else None
    if started_by is not None:
        # Ours only: the same token may be another program's (`bot check --token`).
        return starter == started_by
    # A bot whose runner is alive (another run of the season) is not an orphan.
    return not (orphans_only and starter is not None and _alive(starter))


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


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None


def _signal_all(pids: Iterable[int], signum: signal.Signals, groups: Set[int]) -> None:
    """Signal each process; a whole group at once where it leads one or is in one of
    ``groups`` (a bot's group lives on after its leader, as long as one member does, so its
    id is not reused meanwhile)."""
    signalled: set[int] = set()
    for pid in pids:
        pgid = _pgid(pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if pgid is not None and (pgid == pid or pgid in groups):
                if pgid not in signalled:
                    signalled.add(pgid)
                    os.killpg(pgid, signum)
            else:
                os.kill(pid, signum)

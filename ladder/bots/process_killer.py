"""Finding bot processes in ``/proc`` and killing them: the one killer of the ladder.

A bot process is found by its process group (each bot starts in a session of its own, so
``pgid == pid``) or by the token in its environment (``BRANDELN_TOKEN``, compared by its
SHA-256: the ladder keeps no token), which also finds what a bot started outside its group
(a descendant that left it with ``setsid()``). ``BRANDELN_STARTED_BY`` names the process that
started a bot, so a runner stops only its own bots, or orphans whose starter is gone.

:func:`terminate` sends SIGTERM, waits up to a grace period, then SIGKILL to whatever is still
found (a process may fork between a look and a kill);
:func:`brandeln.ladder.bots.processes.stop_bots` and :func:`stop_orphans` both stop through it.
Reads ``/proc`` (Linux); elsewhere it finds nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
from collections.abc import Callable, Iterable, Set
from pathlib import Path
from typing import Final

__all__ = [
    "KILL_WAIT_S",
    "STARTER_VAR",
    "STOP_GRACE_S",
    "STOP_POLL_S",
    "find_bot_processes",
    "find_orphans",
    "scan_processes",
    "stop_orphans",
    "terminate",
]

STOP_GRACE_S: Final = 5.0  # from SIGTERM to SIGKILL
KILL_WAIT_S: Final = 1.0  # after SIGKILL: sweeping up late forks, reaping, the last output
STOP_POLL_S: Final = 0.05  # where a process's exit cannot be awaited (no pidfd)
_TOKEN_VAR: Final = b"BRANDELN_TOKEN="
# The process that started a bot: while it lives the bot is its, not an orphan (another runner
# of the same season on this host must not stop it; only a killed runner leaves orphans).
STARTER_VAR: Final = b"BRANDELN_STARTED_BY="


def find_bot_processes(
    token_hashes: Iterable[str], proc: Path = Path("/proc"), *, orphans_only: bool = False
) -> list[int]:
    """The processes holding one of the tokens: ``BRANDELN_TOKEN=<token>`` in its environment
    where the token's SHA-256 is one of ``token_hashes``
    (:func:`brandeln.ladder.store.database.token_hash`; the ladder keeps no token). The tokens are
    secrets this ladder handed out, so no unrelated process can match. ``orphans_only``: only those
    whose starter (``BRANDELN_STARTED_BY``) is gone. Reads ``/proc`` (Linux); elsewhere it finds
    nothing. Zombies are gone already."""
    return scan_processes(
        frozenset(), frozenset(token_hashes), orphans_only=orphans_only, proc=proc
    )


def find_orphans(token_hashes: Iterable[str], proc: Path = Path("/proc")) -> list[int]:
    """Bots left by an earlier run that was killed (SIGKILL leaves no time to stop them): the
    :func:`find_bot_processes` of the tokens whose starter is gone. A bot whose starter still
    runs belongs to that run (another runner of the season on this host), not to us."""
    return find_bot_processes(token_hashes, proc, orphans_only=True)


async def stop_orphans(token_hashes: Iterable[str], grace_s: float = STOP_GRACE_S) -> list[int]:
    """Stop the :func:`find_orphans` processes and their process groups (SIGTERM, then
    SIGKILL, as :func:`brandeln.ladder.bots.processes.stop_bots`); returns the pids found."""
    wanted = frozenset(token_hashes)
    pids = find_orphans(wanted)
    groups = frozenset(pid for pid in pids if _pgid(pid) == pid)

    def find() -> list[int]:
        return scan_processes(groups, wanted, orphans_only=True)

    if pids:
        await terminate(find, groups, grace_s)
    return pids


async def terminate(find: Callable[[], list[int]], groups: Set[int], grace_s: float) -> None:
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


def scan_processes(
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
    starters = [v[len(STARTER_VAR) :] for v in variables if v.startswith(STARTER_VAR)]
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

"""One live referee per database: a lock file beside it, held for as long as the referee runs.

A second referee on the same database would mark the first one's running matches aborted,
close its sessions, reuse its session numbers and (unless told otherwise) replace its admin
token. So ``brandeln serve`` and the embedded referee of ``season run`` take this lock before
they open the database, and refuse with the holder's pid and address when it is taken.

The lock is an ``flock`` on ``<db>.lock``: the kernel drops it when its process ends, however it
ends, so a referee killed with SIGKILL never leaves a stale lock behind. The file's text (one
JSON object) only says who holds it, for the messages.

>>> lock = RefereeLock(Path("/tmp/doc/referee.db"), "brandeln serve")   # doctest: +SKIP
>>> lock.acquire(); lock.announce("127.0.0.1:50051")                     # doctest: +SKIP
>>> current_holder(Path("/tmp/doc/referee.db"))                          # doctest: +SKIP
LockHolder(pid=4242, owner='brandeln serve', address='127.0.0.1:50051')
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

from brandeln.arena.errors import DataInUseError, StoreError
from brandeln.datastore.private_files import FILE_MODE, create_private_dirs

__all__ = ["LockHolder", "RefereeLock", "current_holder", "lock_path"]


@dataclass(frozen=True)
class LockHolder:
    """Who owns a referee database right now (pid 0: unknown, it is still writing its name)."""

    pid: int
    owner: str
    address: str

    def describe(self) -> str:
        who = self.owner or "another referee"
        if self.pid:
            who += f" (pid {self.pid}"
            who += f", listening on {self.address})" if self.address else ")"
        return who


def lock_path(db_path: Path) -> Path:
    """The lock file of a referee database: ``<db>.lock`` beside it."""
    return db_path.with_name(db_path.name + ".lock")


def _read_holder(fd: int) -> LockHolder:
    try:
        raw = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
    except (OSError, ValueError):
        raw = {}
    if not isinstance(raw, dict):
        raw = {}
    pid = raw.get("pid")
    return LockHolder(
        pid=pid if isinstance(pid, int) else 0,
        owner=str(raw.get("owner", "")),
        address=str(raw.get("address", "")),
    )


def current_holder(db_path: Path) -> LockHolder | None:
    """The live referee holding ``db_path``, or None when no referee runs on it."""
    path = lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise StoreError(f"cannot read the lock file {path}: {error.strerror}") from None
    try:
        try:
            # A shared lock we get at once means nobody holds the exclusive one.
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class RefereeLock:
    """The exclusive right of one process to run a referee on ``db_path``."""

    def __init__(self, db_path: Path, owner: str) -> None:
        self.db_path = db_path
        self.path = lock_path(db_path)
        self.owner = owner
        self._fd: int | None = None
        self._created = False  # this process made the lock file (see release_after_failure)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`DataInUseError` naming the referee that holds it."""
        if self._fd is not None:
            return
        try:
            create_private_dirs(self.path.parent)
            self._created = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as error:
            raise StoreError(f"cannot create the lock file {self.path}: {error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise DataInUseError(
                f"{holder.describe()} is using the referee database "
                f"{self.db_path}; stop it first, or use another data folder "
                "(--data or $BRANDELN_DATA)"
            ) from None
        self._fd = fd
        self._write("")

    def announce(self, address: str) -> None:
        """Record the address the referee listens on, for other processes' messages."""
        self._write(address)

    def _write(self, address: str) -> None:
        if self._fd is None:
            return
        text = json.dumps({"pid": os.getpid(), "owner": self.owner, "address": address})
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text.encode(), 0)

    def release_after_failure(self) -> None:
        """Release a lock taken by a start that then failed (an unusable database): a lock file
        this process created goes too, so a refused start leaves the folder as it was."""
        if self._fd is not None and self._created:
            self.path.unlink(missing_ok=True)
        self.release()

    def release(self) -> None:
        # The file stays: deleting it would let a process that opened the old file and one
        # that creates a new one both believe they hold the lock.
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing drops the flock

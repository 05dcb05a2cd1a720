"""Files and folders private to the user: 0600 and 0700, whatever the umask.

The referee's database holds the session history and the match index, a running match's log
holds the finished deals' hands, ``ladder.db`` records every season and its bots, and a command
bot's log is its own output; other local users have no business reading any of them. Modes are
set explicitly after creating (``mkdir``'s and ``open``'s modes are cut by the umask, which could
also leave the owner without a bit it needs), and a file or folder of ours that already exists
(from an older version) is made private when it is opened.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Final

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "create_private_dirs",
    "open_private",
    "private_dir",
    "private_file",
    "private_sqlite",
]

DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600
# What SQLite keeps beside a database: it creates them with the database file's mode, but an
# older version of ours may have left them readable.
SQLITE_SIDE_FILES: Final = ("-wal", "-shm", "-journal")


def create_private_dirs(path: Path) -> Path:
    """Create ``path`` and its missing parents, each new one 0700; existing ones are left as
    they are (a folder the user chose, such as the data folder's parent, keeps its mode)."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue  # made at the same moment by another process: its mode is its own
        os.chmod(folder, DIR_MODE)
    return path


def private_dir(path: Path) -> Path:
    """A folder of ours (``logs/``): created like :func:`create_private_dirs`, and made 0700
    even when it existed, unless it belongs to another user (``--logs /tmp``): then the files
    in it, each 0600, are what keeps them private."""
    create_private_dirs(path)
    with contextlib.suppress(PermissionError):
        os.chmod(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if it is missing, and make it 0600 either way."""
    create_private_dirs(path.parent)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    try:
        os.fchmod(descriptor, FILE_MODE)
    finally:
        os.close(descriptor)
    return path


def private_sqlite(path: Path) -> Path:
    """Prepare an SQLite database file before it is opened: the file 0600 (so the WAL and
    shared-memory files SQLite creates beside it get the same mode), and any side file an
    earlier run left made 0600 too."""
    private_file(path)
    for suffix in SQLITE_SIDE_FILES:
        # No exists() first: another process's transaction creates and deletes its journal at
        # any moment, and one gone between the look and the chmod failed a second opener.
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path.with_name(path.name + suffix), FILE_MODE)
    return path


def open_private(path: Path, mode: str = "w") -> IO[str]:
    """Open a text file for writing (``"w"``) or appending (``"a"``), created 0600."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    create_private_dirs(path.parent)
    descriptor = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(descriptor, FILE_MODE)
        return os.fdopen(descriptor, mode, encoding="utf-8")
    except BaseException:
        os.close(descriptor)
        raise

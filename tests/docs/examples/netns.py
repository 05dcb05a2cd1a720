"""A network namespace of a page's own, so the ports the docs name (a referee on 50051, the
web front on 8000) are free whatever else runs on the machine.

A holder process (``unshare --net``) keeps the namespace alive; the page's commands enter it
with ``nsenter``. Its TCP sockets are read from the holder's /proc/PID/net/tcp{,6}, which list
the namespace's sockets without entering it.
"""

from __future__ import annotations

import enum
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

TCP_LISTEN: Final = "0A"
TCP_ESTABLISHED: Final = "01"
READY_LINE: Final = "ready"
START_TIMEOUT_S: Final = 10.0


class Unavailable(enum.Enum):
    """Why a page cannot have a namespace of its own here (its test skips saying so)."""

    NOT_ROOT = "a network namespace of the page's own needs root (CI runs as root)"
    NO_TOOLS = "unshare, nsenter (util-linux) and ip (iproute2) are needed for the namespace"
    REFUSED = "the kernel refused a new network namespace (unshare --net failed)"


def unavailable() -> Unavailable | None:
    """Why no namespace can be made, or None when one can (checked without making one)."""
    if os.geteuid() != 0:
        return Unavailable.NOT_ROOT
    if not all(shutil.which(tool) for tool in ("unshare", "nsenter", "ip")):
        return Unavailable.NO_TOOLS
    return None


@dataclass(frozen=True)
class Socket:
    """A TCP socket of the namespace: its local port, state (hex, as the kernel writes it)
    and inode (to find the process holding it)."""

    port: int
    state: str
    inode: int


class NamespaceRefusedError(RuntimeError):
    pass


@dataclass(frozen=True)
class Namespace:
    holder: int

    def enter(self) -> list[str]:
        """The argv prefix running a program inside the namespace."""
        return ["nsenter", f"--net=/proc/{self.holder}/ns/net", "--"]

    def sockets(self) -> list[Socket]:
        found: list[Socket] = []
        for table in ("tcp", "tcp6"):
            path = Path(f"/proc/{self.holder}/net/{table}")
            try:
                rows = path.read_text().splitlines()[1:]
            except FileNotFoundError:
                continue
            for row in rows:
                fields = row.split()
                port = int(fields[1].rsplit(":", 1)[1], 16)
                found.append(Socket(port, fields[3], int(fields[9])))
        return found

    def processes(self) -> list[int]:
        """The processes inside the namespace, but its holder."""
        try:
            ours = os.readlink(f"/proc/{self.holder}/ns/net")
        except FileNotFoundError:
            return []
        found: list[int] = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == self.holder:
                continue
            try:
                if os.readlink(entry / "ns" / "net") == ours:
                    found.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue  # it ended while we looked
        return found

    def listening(self, port: int) -> bool:
        return any(s.port == port and s.state == TCP_LISTEN for s in self.sockets())


@contextmanager
def namespace() -> Iterator[Namespace]:
    """A fresh network namespace with its loopback up; gone (its holder killed) afterwards."""
    holder = subprocess.Popen(
        [
            "unshare",
            "--net",
            "--",
            "sh",
            "-c",
            f"ip link set lo up && echo {READY_LINE} && exec sleep infinity",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        # The holder says it is ready only once it is inside the new namespace: before that,
        # /proc/PID/ns/net would still be ours.
        assert holder.stdout is not None
        line = holder.stdout.readline().strip()
        if line != READY_LINE:
            holder.kill()
            error = holder.stderr.read() if holder.stderr else ""
            raise NamespaceRefusedError(f"{Unavailable.REFUSED.value}: {error.strip()}")
        if os.readlink(f"/proc/{holder.pid}/ns/net") == os.readlink("/proc/self/ns/net"):
            raise NamespaceRefusedError(Unavailable.REFUSED.value)
        yield Namespace(holder.pid)
    finally:
        # What the page left in the namespace, its own process groups stopped already: a
        # process that made a session of its own (a daemon) would keep the namespace alive.
        for pid in Namespace(holder.pid).processes():
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with suppress(ProcessLookupError):
            os.killpg(holder.pid, signal.SIGKILL)
        holder.wait(timeout=START_TIMEOUT_S)
        for stream in (holder.stdout, holder.stderr):
            if stream is not None:
                stream.close()


def group_members(group: int) -> list[Path]:
    """The /proc folders of the live processes of process group ``group`` (not zombies)."""
    members: list[Path] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended while we looked
        # The fields after the command's name (in parentheses, which may hold spaces): state,
        # ppid, pgrp.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(entry)
    return members


def group_socket_inodes(group: int) -> set[int]:
    """The inodes of the sockets held by the processes of process group ``group``."""
    inodes: set[int] = set()
    for member in group_members(group):
        try:
            for fd in (member / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(int(target[len("socket:[") : -1]))
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended while we looked
    return inodes

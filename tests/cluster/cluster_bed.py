"""The cluster tests' test bed (brandeln.bench.testbed): hosts in network namespaces, a Ray head on
the first with PostgreSQL listening in its namespace, a worker node on each of the others; and
the helpers that run our commands there and find the bots left on its hosts."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from brandeln.bench import testbed
from brandeln.bench.testbed import Host, RayNode, Sandbox
from tests import pg_server

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Bed:
    sandbox: Sandbox
    head: RayNode
    workers: list[RayNode]
    db: str  # the PostgreSQL URL, reachable inside the sandbox's hosts only

    @property
    def driver_host(self) -> Host:
        return self.head.host


@contextmanager
def cluster_bed(hosts: int) -> Iterator[Bed]:
    """``hosts`` hosts, one CPU each; skipped (with the test bed's reason) where namespaces or
    PostgreSQL are not available."""
    reason = testbed.namespaces_available()
    if reason is not None:
        pytest.skip(reason)
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.skip(pg_server.INSTALL_HINT)
    with Sandbox(hosts=hosts) as box:
        head_host = box.hosts[0]
        with pg_server.postgres_server(bindir, host=head_host.ip, netns=head_host.name) as pg:
            head = testbed.start_head(head_host, num_cpus=1)
            workers = [
                testbed.start_worker(host, head.address, num_cpus=1) for host in box.hosts[1:]
            ]
            yield Bed(box, head, workers, pg.url)


def in_sandbox(bed: Bed, *args: str) -> str:
    """A command of ours run inside the head's namespace (where the database is reachable)."""
    process = bed.driver_host.python(
        list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return str(out)


def bot_processes(hosts: list[Host]) -> list[int]:
    """The bot processes (`bot run`) inside ``hosts``."""
    found = []
    for host in hosts:
        for pid in host.pids():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"bot" in command and b"run" in command:
                found.append(pid)
    return found

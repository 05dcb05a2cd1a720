"""The cluster test bed itself (brandeln.bench.testbed): a real two-node Ray cluster, each node in a
network namespace of its own; PostgreSQL in one namespace reached from another; a killed
raylet's node declared dead; nothing left behind after close() or after a killed run.

One sandbox and one cluster serve the whole module (a start costs ~10 s on 2 cores), so the
tests run in file order: the raylet is killed near the end, and the last test closes it all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from brandeln.bench import testbed
from brandeln.bench.testbed import Host, RayNode, Sandbox
from tests import pg_server

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
DRIVER_SECONDS = 120


@dataclass(frozen=True)
class Cluster:
    sandbox: Sandbox
    head: RayNode
    worker: RayNode


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    reason = testbed.namespaces_available()
    if reason is not None:
        pytest.skip(reason)
    with Sandbox(hosts=2) as box:
        yield box


@pytest.fixture(scope="module")
def cluster(sandbox: Sandbox) -> Cluster:
    # Stopped with the sandbox: its close() stops every process of its namespaces.
    head = testbed.start_head(sandbox.hosts[0])
    worker = testbed.start_worker(sandbox.hosts[1], head.address)
    return Cluster(sandbox, head, worker)


def run_driver(host: Host, code: str, *args: str) -> str:
    """Run a Python driver inside ``host``'s namespace; its stdout, or fail with its stderr."""
    process = host.python(
        ["-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        out, err = process.communicate(timeout=DRIVER_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"driver on {host.name} timed out\n{out}\n{err}")
    assert process.returncode == 0, f"driver on {host.name} failed\n{out}\n{err}"
    return str(out)


PINNED_TASKS = """
import json, sys
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

ray.init(address=sys.argv[1], logging_level="warning")

@ray.remote(num_cpus=1)
def where() -> str:
    return ray.util.get_node_ip_address()

alive = [node for node in ray.nodes() if node["Alive"]]
answers = {
    node["NodeManagerAddress"]: ray.get(
        where.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        ).remote()
    )
    for node in alive
}
print(json.dumps(answers))
"""


def test_a_driver_sees_both_nodes_and_runs_a_task_pinned_to_each(cluster: Cluster) -> None:
    head, worker = cluster.head, cluster.worker
    assert head.address == f"{head.host.ip}:6379"
    answers = json.loads(run_driver(head.host, PINNED_TASKS, head.address).splitlines()[-1])
    # Two live nodes, at the namespaces' addresses, each task run where it was pinned.
    assert answers == {head.host.ip: head.host.ip, worker.host.ip: worker.host.ip}


def test_every_ray_process_runs_inside_the_namespaces(cluster: Cluster) -> None:
    inside = cluster.sandbox.pids()
    for node in (cluster.head, cluster.worker):
        mine = node.pids()
        # Read twice, the namespace's processes are two moments: one that ended in between
        # (a short-lived Ray helper) is no process outside it.
        outside = {pid for pid in mine - node.host.pids() if Path(f"/proc/{pid}").exists()}
        assert not outside
        raylet = node.raylet_pid()
        assert raylet is not None
        argv = Path(f"/proc/{raylet}/cmdline").read_bytes().split(b"\0")
        assert f"--node_ip_address={node.host.ip}".encode() in argv
    # Anything on the machine that uses the sandbox's temp dirs is one of its processes.
    marker = str(cluster.sandbox.folder).encode()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(entry.path, "cmdline").read_bytes()
            except OSError:
                continue
            if marker in cmdline:
                assert int(entry.name) in inside, cmdline
    # The module's own listing agrees with `ip netns pids` (taken between two of its own, as
    # a worker process may come or go meanwhile).
    host = cluster.head.host
    before = host.pids()
    listed = subprocess.run(
        ["ip", "netns", "pids", host.name], capture_output=True, text=True, check=True
    )
    assert {int(pid) for pid in listed.stdout.split()} <= before | host.pids()


PG_CLIENT = """
import sys
import psycopg

with psycopg.connect(
    host=sys.argv[1], port=int(sys.argv[2]), user=sys.argv[3], dbname=sys.argv[4],
    connect_timeout=10,
) as connection:
    print(connection.execute("select 1").fetchone()[0])
"""


def test_postgres_in_a_namespace_is_reached_from_another_host(sandbox: Sandbox) -> None:
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.skip(pg_server.INSTALL_HINT)
    db_host, client = sandbox.hosts
    with pg_server.postgres_server(bindir, host=db_host.ip, netns=db_host.name) as server:
        assert server.host == db_host.ip
        assert server.pid in db_host.pids()  # the server itself, in the namespace, by PID
        args = [server.host, str(server.port), server.user, server.database]
        assert run_driver(client, PG_CLIENT, *args).split() == ["1"]
    assert not testbed.pid_alive(server.pid)


def test_sweep_removes_a_killed_runs_namespaces_and_keeps_live_ones(sandbox: Sandbox) -> None:
    # A run killed outright (SIGKILL: no finally) leaves its namespaces and processes.
    owner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "from brandeln.bench.testbed import Sandbox\n"
            "box = Sandbox(hosts=1, prefix='brdtsweep')\n"
            "sleeper = box.hosts[0].run(['sleep', '300'])\n"
            "print(sleeper.pid, *box.namespaces(), flush=True)\n"
            "time.sleep(300)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert owner.stdout is not None
        sleeper, *names = owner.stdout.readline().split()
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
    assert len(names) == 2
    assert testbed.pid_alive(int(sleeper))
    assert set(names) <= set(namespace_names())

    # The live module sandbox (this process's) is not a leftover.
    assert testbed.sweep() == []
    assert set(testbed.sweep("brdtsweep")) == set(names)
    assert not testbed.pid_alive(int(sleeper))
    assert not set(names) & set(namespace_names())
    assert set(sandbox.namespaces()) <= set(namespace_names())


NODE_DEAD = """
import sys, time
import ray

ray.init(address=sys.argv[1], logging_level="warning", log_to_driver=False)
start = time.monotonic()
while time.monotonic() - start < float(sys.argv[3]):
    states = {node["NodeManagerAddress"]: node["Alive"] for node in ray.nodes()}
    if states.get(sys.argv[2]) is False and states.get(sys.argv[4]) is True:
        print(f"{time.monotonic() - start:.1f}")
        break
    time.sleep(0.2)
else:
    sys.exit(f"node {sys.argv[2]} still alive: {states}")
"""


def test_a_killed_raylet_makes_its_node_dead(cluster: Cluster) -> None:
    head, worker = cluster.head, cluster.worker
    worker.kill_raylet()
    args = [head.address, worker.host.ip, "30", head.host.ip]
    print("declared dead after", run_driver(head.host, NODE_DEAD, *args).splitlines()[-1], "s")
    # `ray start --block` sees its raylet gone, stops the node's other processes and exits.
    assert worker.process.wait(timeout=30) != 0
    assert worker.raylet_pid() is None


def test_close_stops_everything_and_removes_the_namespaces(cluster: Cluster) -> None:
    sandbox = cluster.sandbox
    pids = sandbox.pids()
    assert cluster.head.pids() <= pids
    assert cluster.head.raylet_pid() in pids
    sandbox.close()
    assert not [pid for pid in pids if testbed.pid_alive(pid)]
    assert not set(sandbox.namespaces()) & set(namespace_names())
    assert not sandbox.folder.exists()
    sandbox.close()  # twice is harmless (the fixture's exit closes it again)


def namespace_names() -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]

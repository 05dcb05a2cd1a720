"""A test bed of Ray "hosts" on one machine: network namespaces joined by a bridge.

Ray refuses loopback for a multi-node cluster (it rewrites 127.0.0.1 to the machine's network
address), and the tests must never send traffic to that address or to any other host. So each
"host" is a network namespace that this module creates, with an address of our choosing that
exists only inside the namespaces, and each Ray node runs inside one of them with
``--node-ip-address`` set to that address. Nothing here runs Ray in the root namespace, and the
namespaces have no route out: a packet to anything but the sandbox's own /24 is unroutable.
The other way round, never connect from the root namespace to a sandbox address: there it
would follow the machine's default route out to the real network. Whatever talks to a node
(drivers, probes, database clients) runs inside a host, e.g. through :meth:`Host.python`.

Layout of one sandbox (N picked per sandbox so that sandboxes can coexist)::

    {prefix}{N}-sw-{pid}    the "switch": a bridge br0 and one veth end per host
    {prefix}{N}-h{i}-{pid}  host i: lo up, eth0 = 10.213.N.(i+1)/24 (the veth's other end)

``pid`` is the owner's (the process that made the sandbox): :func:`sweep` removes only the
namespaces whose owner is gone, so it cleans up after a killed run without touching a live one.

API::

    namespaces_available() -> str | None          # None, or a one-line reason to skip
    sweep(prefix="brdt") -> list[str]             # leftovers of dead owners removed (names)
    Sandbox(hosts=3, prefix="brdt")               # a context manager; .close() is idempotent
        .hosts: list[Host]; .index: int (the N); .subnet: str ("10.213.N.0/24")
        .namespaces() -> list[str]; .pids() -> set[int]; .close()
    Host: .name (netns), .ip, .index
        .run(argv, **popen_kwargs) -> Popen       # `ip netns exec NAME argv...`
        .python(argv, **popen_kwargs) -> Popen    # sys.executable, RAY_USAGE_STATS_ENABLED=0
        .pids() -> set[int]                       # what runs in the namespace
    start_head(host, port=6379, num_cpus=2, *, object_store_bytes=80 MiB,
               system_config=FAST_FAILURE_DETECTION, env=None, timeout=60.0) -> RayNode
    start_worker(host, head_address, num_cpus=2, *, object_store_bytes=80 MiB,
                 env=None, timeout=60.0) -> RayNode
    RayNode: .host, .address (GCS "10.213.N.1:6379"), .temp_dir, .process (`ray start --block`)
        .pids() -> set[int]; .raylet_pid() -> int | None; .kill_raylet() -> int; .stop()
        .log_tail(chars=3000) -> str
    terminate(pids, grace=5.0); pid_alive(pid) -> bool   # SIGTERM, then SIGKILL; zombie = gone

Ray's ways on one machine (Ray 2.60), and what this module does about them:

- Every node gets its own ``--temp-dir`` (sessions, logs, Unix sockets apart; /dev/shm is
  shared but plasma's files there are made unique and unlinked). Ray accepts it on workers.
- ``--include-dashboard`` is refused on a worker ("only ... with --head"): the head's only.
  The head still runs a minimal dashboard process without it; harmless in its namespace.
- A node is up when its raylet is ALIVE in the GCS, asked by a probe inside the namespace
  (``GcsClient``, no driver); the GCS port alone answers seconds before the raylet registers.
- The agents rename themselves (``ray::DashboardAgent``), so :meth:`RayNode.pids` follows the
  process tree from `ray start`; with ``--block`` that process stays their ancestor, and when
  its raylet dies it kills the node's other processes and exits 1.
- The GCS declares a killed raylet's node dead after ~15 s by default; the head here is
  started with faster health checks (:data:`FAST_FAILURE_DETECTION`, ~2-5 s).
- Ray's processes take seconds over a SIGTERM (graceful shutdown), so close() signals the
  whole sandbox at once and spends the grace period once.

A driver inside a host: ``host.python(["driver.py"])`` whose script calls
``ray.init(address=head.address)``. Ray's driver attaches to a raylet that it finds by
scanning the machine's processes (the PID namespace is shared) and prefers the head; a driver
in a worker's namespace should say which one: ``ray.init(address=..., _node_ip_address=host.ip)``.

By hand (as root), a 2-host sandbox with a head and a worker, until Ctrl-C::

    python -m brandeln.bench.testbed --hosts 2
    # prints the namespaces and addresses, e.g. then in another shell:
    ip netns exec brdt1-h0-4711 python -c \\
        'import ray; ray.init(address="10.213.1.1:6379"); print(ray.nodes())'

Everything started in a namespace is stopped by PID (the processes whose network namespace is
that one, as `ip netns pids` finds them), never by name (so never `ray stop`, which would kill
every Ray on the machine); the namespaces are deleted afterwards, on failure too.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

PREFIX = "brdt"
SUBNET_BASE = "10.213"  # the sandboxes' addresses: 10.213.N.0/24, nothing else uses them
NETNS_DIR = Path("/run/netns")  # where `ip netns add` bind-mounts the namespaces
OBJECT_STORE_BYTES = 80 * 1024 * 1024  # Ray's minimum is 75 MiB; 2 cores, several clusters
# How soon the GCS declares a node dead whose raylet stopped answering: ~2-5 s instead of
# Ray's ~15 s, so that fault tests wait little (a check's own timeout stays Ray's 10 s, so a
# raylet slow on a loaded machine is not declared dead for that).
FAST_FAILURE_DETECTION: Mapping[str, object] = {
    "health_check_period_ms": 500,
    "health_check_failure_threshold": 4,
}
SKIP_PREFIX = "needs root and iproute2 to create network namespaces"
_NAME = re.compile(r"^(?P<prefix>[a-z]+)(?P<index>\d+)-(?P<role>sw|h\d+|probe)-(?P<owner>\d+)$")
_MAX_HOSTS = 250
_GRACE_SECONDS = 5.0


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def _list_namespaces() -> list[str]:
    listed = _ip("netns", "list", check=False).stdout
    # Lines look like "brdt1-h0-4711 (id: 3)" or just "brdt1-h0-4711".
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def namespaces_available() -> str | None:
    """None when this process can make network namespaces, else a one-line skip reason."""
    if os.geteuid() != 0:
        return f"{SKIP_PREFIX}: not running as root"
    if shutil.which("ip") is None:
        return f"{SKIP_PREFIX}: the `ip` command (iproute2) is not installed"
    probe = f"{PREFIX}0-probe-{os.getpid()}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"{SKIP_PREFIX}: `ip netns add` failed: {made.stderr.strip()}"
    # A bridge in it too: the sandbox needs one, and some kernels lack the module.
    bridge = _ip("-n", probe, "link", "add", "br0", "type", "bridge", check=False)
    _ip("netns", "del", probe, check=False)
    if bridge.returncode != 0:
        return f"{SKIP_PREFIX}: cannot make a bridge in a namespace: {bridge.stderr.strip()}"
    return None


# Processes: found by the namespace they run in, signalled through a pidfd.


def _netns_id(name: str) -> tuple[int, int] | None:
    try:
        info = os.stat(NETNS_DIR / name)
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


def _pids_in(name: str) -> set[int]:
    """The PIDs whose network namespace is ``name``: what `ip netns pids NAME` prints, found the
    same way (comparing /proc/PID/ns/net with the bind mount) without a process per call."""
    wanted = _netns_id(name)
    if wanted is None:
        return set()
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            info = os.stat(f"/proc/{entry.name}/ns/net")
        except OSError:  # gone meanwhile, or a zombie (whose namespaces are unreadable)
            continue
        if (info.st_dev, info.st_ino) == wanted:
            found.add(int(entry.name))
    return found


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie (dead, not yet reaped by its parent) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state follows the command name in parentheses, which may itself hold spaces.
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _signal(pid: int, sig: int, netns: tuple[int, int] | None) -> None:
    """Send ``sig`` to ``pid`` if it still is a process of namespace ``netns``: the pidfd pins
    the process, so a PID reused by an unrelated process between listing and signalling is
    never hit."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if netns is not None:
            info = os.stat(f"/proc/{pid}/ns/net")
            if (info.st_dev, info.st_ino) != netns:
                return
        signal.pidfd_send_signal(fd, sig)
    except OSError:
        pass
    finally:
        os.close(fd)


def _netns_of(pid: int) -> tuple[int, int] | None:
    try:
        info = os.stat(f"/proc/{pid}/ns/net")
    except OSError:
        return None
    return info.st_dev, info.st_ino


def terminate(pids: set[int], grace: float = _GRACE_SECONDS) -> None:
    """SIGTERM every PID, SIGKILL what still runs after ``grace`` seconds, wait till gone.

    Each PID is pinned to the network namespace it ran in when this is called, so only
    processes of our namespaces are ever signalled (see :func:`_signal`)."""
    pinned = {pid: _netns_of(pid) for pid in pids}
    pinned = {pid: ns for pid, ns in pinned.items() if ns is not None}
    for pid, ns in pinned.items():
        _signal(pid, signal.SIGTERM, ns)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(pid) for pid in pinned):
        time.sleep(0.05)
    for pid, ns in pinned.items():
        if pid_alive(pid):
            _signal(pid, signal.SIGKILL, ns)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid_alive(pid) for pid in pinned):
        time.sleep(0.05)


def _empty_namespace(name: str) -> None:
    """Stop everything in namespace ``name``, again while processes keep appearing (a raylet
    starting a worker while we stop it)."""
    for _ in range(5):
        pids = _pids_in(name)
        if not pids:
            return
        terminate(pids)


def _delete_namespace(name: str) -> None:
    _empty_namespace(name)
    _ip("netns", "del", name, check=False)


def _owner_alive(owner: int) -> bool:
    return owner == os.getpid() or pid_alive(owner)


def sweep(prefix: str = PREFIX) -> list[str]:
    """Remove the namespaces of ``prefix`` whose owner process is gone (a killed earlier run),
    stopping their processes first. A live owner's namespaces (another test run) stay."""
    removed: list[str] = []
    for name in _list_namespaces():
        match = _NAME.match(name)
        if match is None or match["prefix"] != prefix:
            continue
        if _owner_alive(int(match["owner"])):
            continue
        _delete_namespace(name)
        removed.append(name)
    for folder in Path(tempfile.gettempdir()).glob(f"{prefix}*-*-tb"):
        match = re.match(rf"^{re.escape(prefix)}\d+-(\d+)-tb$", folder.name)
        if match and not _owner_alive(int(match[1])):
            shutil.rmtree(folder, ignore_errors=True)
    return removed


@contextlib.contextmanager
def _index_lock(prefix: str) -> Iterator[None]:
    """Serialises the choice of N between processes making sandboxes at the same moment."""
    path = Path(tempfile.gettempdir()) / f"{prefix}-testbed.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Host:
    """One "machine": a network namespace with one address on the sandbox's bridge."""

    def __init__(self, sandbox: Sandbox, index: int, name: str, ip: str) -> None:
        self.sandbox = sandbox
        self.index = index
        self.name = name
        self.ip = ip

    def __repr__(self) -> str:
        return f"Host({self.name!r}, {self.ip!r})"

    def run(self, argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` inside this namespace. `ip netns exec` execs the command in place,
        so the returned process's PID is the command's own."""
        process: subprocess.Popen[Any] = subprocess.Popen(
            ["ip", "netns", "exec", self.name, *argv], **popen_kwargs
        )
        self.sandbox._started.append(process)  # reaped at close: no zombies left behind
        return process

    def python(self, argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[Any]:
        """This interpreter (the venv's, with Ray) inside the namespace; ``env`` is added to
        ours, and Ray's usage statistics stay off (they would try to reach the internet)."""
        env = {**os.environ, **popen_kwargs.pop("env", {}), "RAY_USAGE_STATS_ENABLED": "0"}
        return self.run([sys.executable, *argv], env=env, **popen_kwargs)

    def pids(self) -> set[int]:
        return _pids_in(self.name)


class Sandbox:
    """A switch namespace with a bridge and ``hosts`` host namespaces wired to it.

    Use it as a context manager (or call :meth:`close`): every process in its namespaces is
    stopped by PID, then the namespaces and the bridge are deleted, on failure too."""

    def __init__(self, hosts: int = 3, prefix: str = PREFIX) -> None:
        if not 1 <= hosts <= _MAX_HOSTS:
            raise ValueError(f"a sandbox has 1 to {_MAX_HOSTS} hosts, not {hosts}")
        if not re.fullmatch(r"[a-z]+", prefix):
            raise ValueError(f"a sandbox prefix is lowercase letters, not {prefix!r}")
        self.prefix = prefix
        self.hosts: list[Host] = []
        self._started: list[subprocess.Popen[Any]] = []
        self._made: list[str] = []
        self._closed = False
        sweep(prefix)
        owner = os.getpid()
        with _index_lock(prefix):
            used = {int(m["index"]) for m in map(_NAME.match, _list_namespaces()) if m is not None}
            free = [n for n in range(1, 255) if n not in used]
            if not free:
                raise RuntimeError("no free sandbox index: 254 sandboxes exist")
            self.index = free[0]
            self.switch = f"{prefix}{self.index}-sw-{owner}"
            self._add_namespace(self.switch)
        self.subnet = f"{SUBNET_BASE}.{self.index}.0/24"
        # The nodes' temp dirs go here: a short path (Unix socket paths must stay under 108
        # bytes), named like the namespaces so that sweep() finds a dead owner's folder.
        self.folder = Path(tempfile.gettempdir()) / f"{prefix}{self.index}-{owner}-tb"
        try:
            shutil.rmtree(self.folder, ignore_errors=True)  # a dead namesake's
            self.folder.mkdir()
            self._wire(hosts, owner)
        except BaseException:
            self.close()
            raise

    def _add_namespace(self, name: str) -> None:
        _ip("netns", "add", name)
        self._made.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def _wire(self, hosts: int, owner: int) -> None:
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for i in range(hosts):
            name = f"{self.prefix}{self.index}-h{i}-{owner}"
            ip = f"{SUBNET_BASE}.{self.index}.{i + 1}"
            self._add_namespace(name)
            # Both veth ends are made inside the namespaces: nothing appears in the root one.
            _ip("-n", self.switch, "link", "add", f"h{i}", "type", "veth",
                "peer", "name", "eth0", "netns", name)  # fmt: skip
            _ip("-n", self.switch, "link", "set", f"h{i}", "master", "br0", "up")
            _ip("-n", name, "addr", "add", f"{ip}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
            self.hosts.append(Host(self, i, name, ip))

    def namespaces(self) -> list[str]:
        return list(self._made)

    def pids(self) -> set[int]:
        return set().union(*(_pids_in(name) for name in self._made))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # One round for all namespaces at once: Ray's processes take seconds over a SIGTERM,
        # and the grace period is then spent once, not once per host.
        for _ in range(5):
            pids = self.pids()
            if not pids:
                break
            terminate(pids)
        for process in self._started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_GRACE_SECONDS)
        for name in reversed(self._made):  # hosts first, the switch last
            if name == self.switch:
                _ip("-n", name, "link", "del", "br0", check=False)
            _delete_namespace(name)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


# Ray nodes.

# Run inside the node's namespace: until the GCS at argv[1] lists a live node at argv[2].
# GcsClient talks to the GCS directly, lighter than a driver (no ray.init, no job).
_WAIT_FOR_NODE = """
import sys, time
from ray._raylet import GcsClient
address, ip, deadline = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
while time.monotonic() < deadline:
    try:
        nodes = GcsClient(address=address).get_all_node_info(timeout=2).values()
        if any(n.node_manager_address == ip and n.state == 0 for n in nodes):  # 0: ALIVE
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit(1)
"""


def _ray_command() -> list[str]:
    beside = Path(sys.executable).parent / "ray"
    if beside.is_file():
        return [str(beside)]
    return [sys.executable, "-m", "ray.scripts.scripts"]


class RayNode:
    """One Ray node: `ray start --block` inside a host's namespace, with its own temp dir."""

    def __init__(
        self, host: Host, process: subprocess.Popen[Any], address: str, temp_dir: Path
    ) -> None:
        self.host = host
        self.process = process
        self.address = address  # the GCS's: the head's own, or the one a worker joined
        self.temp_dir = temp_dir
        self.log = temp_dir / "ray-start.log"

    def __repr__(self) -> str:
        return f"RayNode({self.host.name!r}, {self.address!r})"

    def pids(self) -> set[int]:
        """This node's processes: `ray start` and its descendants, plus any process of the
        namespace started with its temp dir (Ray passes its session dir to most processes),
        which finds one that lost its parent. Agents rename themselves (``ray::...``), so the
        process tree is what finds those."""
        in_host = self.host.pids()
        children: dict[int, list[int]] = {}
        mine: set[int] = set()
        marker = str(self.temp_dir).encode()
        for pid in in_host:
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{pid}/stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(pid)
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                    mine.add(pid)
        todo = [self.process.pid] if self.process.pid in in_host else []
        while todo:
            pid = todo.pop()
            mine.add(pid)
            todo += children.get(pid, [])
        return mine

    def raylet_pid(self) -> int | None:
        for pid in self.pids():
            with contextlib.suppress(OSError):
                argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0]
                if os.path.basename(argv0) == b"raylet":
                    return pid
        return None

    def kill_raylet(self) -> int:
        """SIGKILL the raylet (a host's node dying); `ray start --block` then stops the rest
        of the node and exits. Returns the PID killed."""
        pid = self.raylet_pid()
        if pid is None:
            raise RuntimeError(f"no raylet runs on {self.host.name}\n{self.log_tail()}")
        _signal(pid, signal.SIGKILL, _netns_of(pid))
        return pid

    def stop(self) -> None:
        terminate(self.pids())
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=_GRACE_SECONDS)

    def log_tail(self, chars: int = 3000) -> str:
        """The end of `ray start`'s output and of the raylet's log, for error messages."""
        parts: list[str] = []
        logs = [self.log, *sorted(self.temp_dir.glob("session_*/logs/raylet.out"))]
        logs += sorted(self.temp_dir.glob("session_*/logs/gcs_server.out"))
        for path in logs:
            with contextlib.suppress(OSError):
                parts.append(f"--- {path}\n{path.read_text(errors='replace')[-chars:]}")
        return "\n".join(parts) or "(no log yet)"

    def _wait_up(self, timeout: float) -> None:
        probe = self.host.python(
            ["-c", _WAIT_FOR_NODE, self.address, self.host.ip, str(timeout)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout + 10
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"ray start on {self.host.name} exited ({self.process.returncode})\n"
                        f"{self.log_tail()}"
                    )
                if probe.poll() is not None:
                    if probe.returncode == 0:
                        return
                    break
                time.sleep(0.1)
        finally:
            if probe.poll() is None:
                probe.kill()
            probe.wait()
        self.stop()
        raise RuntimeError(
            f"Ray node on {self.host.name} ({self.host.ip}) not alive at {self.address} "
            f"after {timeout:.0f} s\n{self.log_tail()}"
        )


def _start(
    host: Host,
    role: list[str],
    address: str,
    num_cpus: int,
    object_store_bytes: int,
    env: Mapping[str, str] | None,
    timeout: float,
) -> RayNode:
    # Each node its own temp dir: sessions, logs and Unix sockets of nodes on one filesystem
    # stay apart (Ray would number the sockets apart in a shared one, but logs would mix).
    temp_dir = host.sandbox.folder / f"h{host.index}"
    temp_dir.mkdir(exist_ok=True)
    argv = [
        *_ray_command(),
        "start",
        *role,
        "--node-ip-address",
        host.ip,
        "--num-cpus",
        str(num_cpus),
        "--object-store-memory",
        str(object_store_bytes),
        "--temp-dir",
        str(temp_dir),
        "--disable-usage-stats",
        "--block",  # `ray start` stays the parent of the node's processes: a PID to watch
    ]
    # No RAY_ADDRESS from our environment: the node joins only what it is told to.
    base = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    with (temp_dir / "ray-start.log").open("ab") as log:
        process = host.run(
            argv,
            env={**base, **(env or {}), "RAY_USAGE_STATS_ENABLED": "0"},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    node = RayNode(host, process, address, temp_dir)
    try:
        node._wait_up(timeout)
    except BaseException:
        node.stop()
        raise
    return node


def start_head(
    host: Host,
    port: int = 6379,
    num_cpus: int = 2,
    *,
    object_store_bytes: int = OBJECT_STORE_BYTES,
    system_config: Mapping[str, object] = FAST_FAILURE_DETECTION,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> RayNode:
    """A head node (GCS on ``host.ip:port``), up when the GCS lists its raylet alive.

    ``system_config`` goes to Ray's ``--system-config``; the default makes a killed node
    dead within seconds (:data:`FAST_FAILURE_DETECTION`), ``{}`` keeps Ray's defaults."""
    # No dashboard (a worker refuses the option: it is the head's to give).
    role = ["--head", "--port", str(port), "--include-dashboard=false"]
    if system_config:
        role += ["--system-config", json.dumps(dict(system_config))]
    return _start(host, role, f"{host.ip}:{port}", num_cpus, object_store_bytes, env, timeout)


def start_worker(
    host: Host,
    head_address: str,
    num_cpus: int = 2,
    *,
    object_store_bytes: int = OBJECT_STORE_BYTES,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> RayNode:
    """A worker node joining the GCS at ``head_address``, up when the GCS lists it alive."""
    role = ["--address", head_address]
    return _start(host, role, head_address, num_cpus, object_store_bytes, env, timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m brandeln.bench.testbed --hosts 2`: a sandbox with a head and workers till
    Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m brandeln.bench.testbed", description=__doc__)
    parser.add_argument("--hosts", type=int, default=2, help="hosts (the first runs the head)")
    parser.add_argument("--num-cpus", type=int, default=2)
    args = parser.parse_args(argv)
    reason = namespaces_available()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 2
    # SIGTERM closes the sandbox like Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with Sandbox(hosts=args.hosts) as sandbox:
        try:
            head = start_head(sandbox.hosts[0], num_cpus=args.num_cpus)
            for host in sandbox.hosts[1:]:
                start_worker(host, head.address, num_cpus=args.num_cpus)
            for host in sandbox.hosts:
                print(f"{host.name}  {host.ip}")
            print(f"head: {head.address}  (temp dirs under {sandbox.folder})")
            print(
                f"try: ip netns exec {sandbox.hosts[0].name} {sys.executable} -c "
                f"'import ray; ray.init(address=\"{head.address}\"); print(ray.nodes())'"
            )
            print("Ctrl-C stops the nodes and removes the namespaces.", flush=True)
            while True:
                signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

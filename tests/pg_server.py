"""A throwaway PostgreSQL server for the storage tests: Debian's binaries on a temp folder.

The tests start it themselves (no system service is touched): ``initdb`` into a fresh folder,
``postgres`` listening on 127.0.0.1 only at a free port with its socket in that folder, stopped
by its PID afterwards. PostgreSQL refuses to run as root, so as root the server runs as the
``postgres`` system user that Debian's package creates.

The cluster tests start one inside a network namespace of their test bed (``netns=``, see
``brandeln.bench.testbed``), listening on that namespace's address (``host=``) and trusting the test
bed's net (10.213.0.0/16) as it trusts loopback; it is then checked and reached from inside
the namespaces only.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "PostgreSQL's server binaries (initdb, postgres) were not found: install Debian's package "
    "with `sudo apt-get install postgresql` (make test does it when run as root)"
)
_STARTUP_SECONDS = 30.0
# The cluster test bed's addresses (brandeln.bench.testbed): trusted like loopback when the server
# listens there.
TESTBED_NET = "10.213.0.0/16"
# Inside a namespace of our own nothing else listens: the standard port.
NETNS_PORT = 5432


def find_bindir() -> Path | None:
    """The folder with ``initdb`` and ``postgres``: $PG_BINDIR, Debian's newest, or PATH."""
    candidates: list[Path] = []
    if env := os.environ.get("PG_BINDIR"):
        candidates.append(Path(env))
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    if found := shutil.which("initdb"):
        candidates.append(Path(found).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass(frozen=True)
class PostgresServer:
    """A running server: its URL (SQLAlchemy form, psycopg 3 driver) and its PID."""

    host: str
    port: int
    user: str
    database: str
    pid: int

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{self.database}"


def password_role(server: PostgresServer, role: str = "pwuser", password: str = "right") -> str:
    """A role that must give its password over TCP (the test server trusts its other users):
    created, or reset to ``password``, with its scram-sha-256 rule first in pg_hba.conf. Safe
    to call again, from any test module on the same server (in any order)."""
    import psycopg  # noqa: PLC0415 - only the PostgreSQL tests need the driver

    with psycopg.connect(
        host=server.host, port=server.port, user=server.user, dbname="postgres", autocommit=True
    ) as admin:
        exists = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        verb = "ALTER" if exists else "CREATE"
        admin.execute(f"{verb} ROLE {role} LOGIN PASSWORD '{password}'")
        row = admin.execute("SHOW hba_file").fetchone()
        assert row is not None
        hba = Path(str(row[0]))
        rule = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
        if rule not in hba.read_text():
            hba.write_text(rule + hba.read_text())
            admin.execute("SELECT pg_reload_conf()")
    return role


def _demote() -> tuple[int, int] | None:
    """uid and gid to run the server as: ``postgres`` when we are root, else ourselves."""
    if os.geteuid() != 0:
        return None
    entry = pwd.getpwnam("postgres")
    return entry.pw_uid, entry.pw_gid


def _as_server_user(ids: tuple[int, int] | None, argv: list[str]) -> list[str]:
    """``argv`` run as the server's user: through setpriv (which execs in place, so the PID is
    the program's), not subprocess's ``user=``/``group=``. Those make CPython fork() instead of
    vfork(), and a fork of this process, whose other threads may be inside gRPC, runs gRPC's
    fork handlers in the child: once in a while the child crashed (SIGSEGV) before its exec,
    and PostgreSQL "exited at start" with a gRPC epoll error in its log."""
    if ids is None:
        return argv
    uid, gid = ids
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *argv]


@contextlib.contextmanager
def postgres_server(
    bindir: Path, host: str = "127.0.0.1", netns: str | None = None
) -> Iterator[PostgresServer]:
    """Start a fresh cluster in a new temp folder; stop it (by PID) and remove the folder.

    By default it listens on 127.0.0.1 at a free port. With ``netns`` (a network namespace's
    name) it runs inside that namespace, listening on ``host`` (the namespace's address) at
    port 5432, and clients from the test bed's net are trusted."""
    ids = _demote()
    # Its own folder under the system temp dir: pytest's tmp_path sits below a root-only
    # folder that the ``postgres`` user could not enter.
    folder = Path(tempfile.mkdtemp(prefix="brandeln-pg-"))
    data = folder / "data"
    if ids is not None:
        os.chown(folder, *ids)
    user = "brandeln"
    subprocess.run(
        _as_server_user(
            ids, [str(bindir / "initdb"), "-D", str(data), "-U", user, "-A", "trust", "-E", "UTF8"]
        ),
        check=True,
        capture_output=True,
    )
    if host != "127.0.0.1":
        # initdb -A trust trusts local sockets and loopback only.
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {TESTBED_NET} trust\n")
    port = free_port() if netns is None else NETNS_PORT
    argv = [
        str(bindir / "postgres"),
        "-D",
        str(data),
        "-h",
        host,
        "-p",
        str(port),
        "-k",
        str(folder),
        "-c",
        "fsync=off",  # a test cluster: speed over crash durability of the server itself
    ]
    log = (folder / "server.log").open("wb")
    accepts: Callable[[], bool] | None = None
    if netns is None:
        process = subprocess.Popen(_as_server_user(ids, argv), stdout=log, stderr=subprocess.STDOUT)
    else:
        # Entering a namespace takes root, so the switch to the postgres user comes after:
        # `ip netns exec` and setpriv both exec in place, so the PID is the server's own.
        process = subprocess.Popen(
            ["ip", "netns", "exec", netns, *_as_server_user(ids, argv)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        accepts = functools.partial(_accepts_in_netns, bindir, netns, host, port)
    try:
        _wait_ready(port, process, folder / "server.log", accepts)
        yield PostgresServer(host, port, user, "postgres", process.pid)
    finally:
        # SIGINT is PostgreSQL's "fast shutdown": clients are disconnected, nothing lingers.
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _accepts_in_netns(bindir: Path, netns: str, host: str, port: int) -> bool:
    """The readiness check from inside the namespace (its address is unreachable from
    outside): pg_isready answers 0 only once sessions are accepted, not while starting up."""
    check = [str(bindir / "pg_isready"), "-q", "-h", host, "-p", str(port), "-t", "2"]
    return subprocess.run(["ip", "netns", "exec", netns, *check], check=False).returncode == 0


def _accepts_sessions(port: int) -> bool:
    """Whether the server takes a session: it listens a moment before it is ready, and
    answers "the database system is starting up" meanwhile."""
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
    except OSError:
        return False
    try:
        import psycopg  # noqa: PLC0415 - the storage tests' driver

        with psycopg.connect(
            host="127.0.0.1", port=port, user="brandeln", dbname="postgres", connect_timeout=2
        ):
            return True
    except psycopg.OperationalError:
        return False


def _wait_ready(
    port: int,
    process: subprocess.Popen[bytes],
    log: Path,
    accepts: Callable[[], bool] | None = None,
) -> None:
    """Until the server takes sessions (``accepts``; by default on 127.0.0.1:``port``)."""
    ready = accepts if accepts is not None else functools.partial(_accepts_sessions, port)
    deadline = time.monotonic() + _STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"postgres exited at start: {log.read_text()[-2000:]}")
        if ready():
            return
        time.sleep(0.05)
    raise RuntimeError(f"postgres did not take sessions at port {port} in {_STARTUP_SECONDS} s")


class RestartableServer:
    """A cluster of its own that a test stops by PID mid-run and starts again (same data, same
    port): the "PostgreSQL went away" tests. Use :func:`restartable_server`."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.ids = _demote()
        self.folder = Path(tempfile.mkdtemp(prefix="brandeln-pg-restart-"))
        if self.ids is not None:
            os.chown(self.folder, *self.ids)
        self.data = self.folder / "data"
        self.user = "brandeln"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        subprocess.run(
            _as_server_user(
                self.ids,
                [str(bindir / "initdb"), "-D", str(self.data), "-U", self.user, "-A", "trust"],
            ),
            check=True,
            capture_output=True,
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def start(self) -> PostgresServer:
        self.starts += 1
        log_path = self.folder / f"server-{self.starts}.log"  # a fresh one: see _wait_ready
        log = log_path.open("wb")
        self.process = subprocess.Popen(
            _as_server_user(
                self.ids,
                [
                    str(self.bindir / "postgres"),
                    "-D",
                    str(self.data),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "-k",
                    str(self.folder),
                    "-c",
                    "fsync=off",
                ],
            ),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        _wait_ready(self.port, self.process, log_path)
        return PostgresServer("127.0.0.1", self.port, self.user, "postgres", self.process.pid)

    def stop(self) -> None:
        """Fast shutdown by PID (SIGINT): every client connection is cut at once."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def restartable_server(bindir: Path) -> Iterator[RestartableServer]:
    """A started :class:`RestartableServer`, stopped and removed afterwards."""
    server = RestartableServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.close()

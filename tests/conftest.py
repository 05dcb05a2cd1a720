"""Shared fixtures: a real referee on a free loopback port, real bot processes, and the storage
tests' database on both backends (``db_url``: an SQLite file, or a fresh database on one real
PostgreSQL server per test session)."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import itertools
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.v1 import admin_pb2, admin_pb2_grpc
from tests import pg_server

# The docs examples' closing count: hooks here so that xdist's controller has them too.
from tests.docs.examples.summary import (  # noqa: F401
    pytest_runtest_logreport,
    pytest_terminal_summary,
)

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "sample_bots" / "node"
# What a process the tests start puts on its path: the checkout's both halves of the brandeln
# namespace (the SDK lives in sdk/python), never an installed copy's, which may be another tree's.
PROJECT_PYTHONPATH = os.pathsep.join([str(ROOT), str(ROOT / "sdk" / "python")])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules marked ``early`` first, the order otherwise kept. Under xdist's loadfile
    each module runs whole on one worker, handed out in the order collected: a module of a few
    minutes (a Ray cluster, PostgreSQL seasons) collected late ran alone at the end of the run
    while the other workers idled."""
    items.sort(key=lambda item: item.get_closest_marker("early") is None)  # a stable sort


@pytest.fixture(autouse=True)
def _restore_stop_signals() -> Iterator[None]:
    """Give SIGINT and SIGTERM back their handlers after every test.

    A command run in-process (Typer's CliRunner) may leave them ignored on purpose:
    `brandeln serve` ignores both once it has closed its port, so that a supervisor's
    repeated signal cannot end it by signal while it exits (brandeln/cli/stop_signals.py).
    Left so in a test process, every process the later tests start inherits SIG_IGN for
    SIGTERM and outlives its terminate(): each test's teardown then waited out its kill
    timeouts (20-40 s a test, found by reading /proc/self/status's SigIgn after each test).
    """
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield
    for signum, handler in saved.items():
        if signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


@pytest.fixture(scope="session")
def node_bin() -> str:
    """`node`, with the Node.js sample bot's packages in place, or a skip saying what is missing.

    `make test` runs `npm ci` before the suite (as `make demo` does); run alone, the first test
    that asks runs it here. Only when node_modules is older than the lock file or the SDK it
    holds a copy of (sdk/node), and under a file lock: the suite's parallel processes share the
    folder, and `npm ci` empties node_modules before it fills it again."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node/npm not found on PATH: the Node.js sample bot tests need Node.js 18+")
    installed = NODE_DIR / "node_modules" / ".package-lock.json"
    sdk = ROOT / "sdk" / "node"
    wanted = [NODE_DIR / "package-lock.json", sdk / "package.json", *sdk.glob("*.js")]
    folder = hashlib.sha256(str(NODE_DIR).encode()).hexdigest()[:12]
    with (Path(tempfile.gettempdir()) / f"brandeln-npm-ci-{folder}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        newest = max(path.stat().st_mtime for path in wanted)
        if not installed.exists() or installed.stat().st_mtime < newest:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=NODE_DIR,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, f"npm ci in {NODE_DIR} failed: {done.stderr}"
    return node


class AdminClient:
    """The Admin stub with the admin token attached to every call."""

    def __init__(self, address: str, token: str, root_certificates: bytes | None = None) -> None:
        self.address = address
        if root_certificates is None:
            self.channel = grpc.aio.insecure_channel(address)
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates)
            self.channel = grpc.aio.secure_channel(address, credentials)
        self.stub = admin_pb2_grpc.AdminStub(self.channel)
        self.metadata = (("authorization", f"Bearer {token}"),)

    async def register(self, name: str) -> admin_pb2.RegisterBotResponse:
        return await self.stub.RegisterBot(
            admin_pb2.RegisterBotRequest(name=name), metadata=self.metadata
        )

    async def wait_for_sessions(self, bot_ids: list[str], timeout: float = 120.0) -> None:
        """Until every bot id has as many lobby sessions as it appears in the list.

        The timeout only guards against a hang: bot processes (Python importing grpc) take
        seconds each to start on a loaded machine, and the wait returns as soon as they are in.
        """
        async with asyncio.timeout(timeout):
            while True:
                sessions = await self.stub.ListSessions(
                    admin_pb2.ListSessionsRequest(), metadata=self.metadata
                )
                free = [s.bot_id for s in sessions.sessions if s.state == "lobby"]
                if all(free.count(b) >= bot_ids.count(b) for b in set(bot_ids)):
                    return
                await asyncio.sleep(0.05)

    async def run_match(
        self, request: admin_pb2.RunMatchRequest
    ) -> tuple[list[admin_pb2.MatchUpdate], admin_pb2.MatchSummary]:
        updates = [u async for u in self.stub.RunMatch(request, metadata=self.metadata)]
        assert updates[-1].WhichOneof("kind") == "result"
        return updates, updates[-1].result

    async def close(self) -> None:
        await self.channel.close()


@pytest.fixture
async def referee(tmp_path: Path) -> AsyncIterator[EmbeddedReferee]:
    async with EmbeddedReferee(tmp_path / "referee") as running:
        yield running


@pytest.fixture
async def admin(referee: EmbeddedReferee) -> AsyncIterator[AdminClient]:
    client = AdminClient(referee.address, referee.admin_token)
    yield client
    await client.close()


class BotProcesses:
    """Bot processes started by a test and stopped after it."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.procs: list[subprocess.Popen[str]] = []

    def start(
        self, args: list[str], name: str = "bot", env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        out = (self.tmp_path / f"{name}-{len(self.procs)}.out").open("w")
        env = {**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH, **(env or {})}
        proc = subprocess.Popen(
            [sys.executable, *args], stdout=out, stderr=subprocess.STDOUT, text=True, env=env
        )
        proc.output_path = out.name  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def bot_processes(tmp_path: Path) -> Iterator[BotProcesses]:
    bots = BotProcesses(tmp_path)
    yield bots
    bots.stop()


MINIMAL_BOT = str(ROOT / "tests" / "arena" / "minimal_bot.py")


@pytest.fixture
def start_minimal_bot(
    referee: EmbeddedReferee, bot_processes: BotProcesses
) -> Callable[[str, str], subprocess.Popen[str]]:
    def start(token: str, behaviour: str) -> subprocess.Popen[str]:
        return bot_processes.start([MINIMAL_BOT, referee.address, token, behaviour], name=behaviour)

    return start


# -- the storage tests' two backends -------------------------------------------------------

_database_numbers = itertools.count(1)


def made_once(
    factory: pytest.TempPathFactory,
    worker_id: str,
    name: str,
    make: Callable[[Path], Mapping[str, Any]],
) -> tuple[Path, dict[str, Any]]:
    """A folder of data made once for the whole run, and what ``make(folder)`` said of it (as
    JSON): under pytest-xdist the first worker to ask makes it, under a lock, and the others
    wait for it and read it (the xdist docs' way), instead of each playing the same seasons
    again. Tests read it, and copy what they damage."""
    if worker_id == "master":  # one process: its own temp folder is the run's
        folder = factory.mktemp(name)
        facts_made = json.loads(json.dumps(make(folder)))
        _settle_databases(folder)
        return folder, facts_made
    shared = factory.getbasetemp().parent  # the run's folder, above each worker's own
    folder, facts = shared / name, shared / f"{name}.json"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not facts.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a maker that failed half-way
            folder.mkdir()
            made_now = json.dumps(make(folder))
            _settle_databases(folder)
            facts.write_text(made_now)
    made: dict[str, Any] = json.loads(facts.read_text())
    return folder, made


def _settle_databases(folder: Path) -> None:
    """Fold every SQLite write-ahead log under ``folder`` into its database, so the database
    file alone holds everything: a reader's ``-wal`` and ``-shm`` files then hold nothing, and
    copies may leave them out (they come and go while other workers read the folder)."""
    for database in folder.rglob("*.db"):
        connection = sqlite3.connect(database)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()


def copy_data_folder(source: Path, to: Path) -> Path:
    """A copy of a data folder made once (``made_once``) and read by other workers meanwhile:
    SQLite's ``-wal``/``-shm`` files of their readers appear and vanish mid-copy, and hold
    nothing the settled database lacks, so they are left out."""
    shutil.copytree(source, to, ignore=shutil.ignore_patterns("*.db-wal", "*.db-shm"))
    return to


@pytest.fixture(scope="session")
def postgres() -> Iterator[pg_server.PostgresServer]:
    """One throwaway PostgreSQL server for the whole session (tests/pg_server.py), or a skip
    saying how to install the binaries."""
    bindir = pg_server.find_bindir()
    if bindir is None:
        pytest.skip(pg_server.INSTALL_HINT)
    with pg_server.postgres_server(bindir) as server:
        yield server


def create_database(server: pg_server.PostgresServer, name: str) -> str:
    """Create database ``name`` on ``server``; its URL (postgresql://, as a user writes it)."""
    import psycopg  # noqa: PLC0415 - only the PostgreSQL tests need the driver

    with psycopg.connect(
        host=server.host, port=server.port, user=server.user, dbname="postgres", autocommit=True
    ) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://{server.user}@{server.host}:{server.port}/{name}"


def drop_database(server: pg_server.PostgresServer, name: str) -> None:
    import psycopg  # noqa: PLC0415

    with psycopg.connect(
        host=server.host, port=server.port, user=server.user, dbname="postgres", autocommit=True
    ) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(postgres: pg_server.PostgresServer) -> Iterator[str]:
    """A fresh PostgreSQL database (dropped afterwards): for what only the database backend
    has, or what only a database URL serves."""
    name = f"test_{os.getpid()}_{next(_database_numbers)}"
    url = create_database(postgres, name)
    try:
        yield url
    finally:
        drop_database(postgres, name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL for a storage test, once per backend with the same test body: an SQLite
    file in the test's tmp_path, or a fresh PostgreSQL database (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'store.db'}"
        return
    server: pg_server.PostgresServer = request.getfixturevalue("postgres")
    name = f"test_{os.getpid()}_{next(_database_numbers)}"
    url = create_database(server, name)
    try:
        yield url
    finally:
        drop_database(server, name)

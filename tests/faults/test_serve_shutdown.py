"""`brandeln serve` stops cleanly with bots connected, and refuses a guessable admin token.

Seen: SIGINT/SIGTERM with bots connected printed one ``CancelledError`` traceback per open
stream, and the health service said SERVING until the port closed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from brandeln.v1 import admin_pb2, admin_pb2_grpc
from tests.faults.referee_process import (
    ADMIN_TOKEN,
    ROOT,
    RefereeUnderTest,
    channel,
    health,
    register_bot,
)

ADMIN_METADATA = (("authorization", f"Bearer {ADMIN_TOKEN}"),)
BOTS = 4
# 12 streams, 4 of them seated: the referee used to print a traceback for each at SIGTERM.
TABLES_PER_BOT = 3
DRAIN_S = 3.0


async def _sessions(address: str) -> int:
    async with channel(address) as ch:
        listed = await admin_pb2_grpc.AdminStub(ch).ListSessions(
            admin_pb2.ListSessionsRequest(), metadata=ADMIN_METADATA, timeout=10
        )
        return len(listed.sessions)


async def _health_until_closed(address: str, deadline_s: float) -> list[int]:
    """The statuses the health service answers until the port closes (or the deadline)."""
    seen: list[int] = []
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            seen.append(await health(address, timeout=1.0))
        except grpc.aio.AioRpcError:
            break  # the port is closed: the drain is over
        await asyncio.sleep(0.05)
    return seen


def test_signals_that_keep_coming_do_not_end_the_referee_by_signal(tmp_path: Path) -> None:
    """SIGTERM again and again (an impatient supervisor): the first stops the referee, the
    others land in the drain, the port's closing or the interpreter's teardown. Once they
    ended it by signal (-15) every time, the store's closing cut short."""
    referee = RefereeUnderTest.serve(tmp_path, "--drain-seconds", "0")
    try:
        while referee.process.poll() is None:
            referee.process.send_signal(signal.SIGTERM)
            time.sleep(0.002)
        assert referee.process.wait() == 0
    finally:
        referee.kill()
    assert "Traceback" not in referee.stderr


async def test_sigterm_with_bots_connected_drains_not_serving_without_tracebacks(
    tmp_path: Path,
) -> None:
    referee = RefereeUnderTest.serve(tmp_path, "--drain-seconds", str(DRAIN_S))
    bots: list[subprocess.Popen[bytes]] = []
    try:
        tokens = [await register_bot(referee.address, f"stopping-{i}") for i in range(BOTS)]
        for token in tokens:
            bots.append(
                subprocess.Popen(  # noqa: ASYNC220 - started once, they run on their own
                    [
                        sys.executable,
                        "-m",
                        "brandeln.sample_bots",
                        "random",
                        "--server",
                        referee.address,
                    ],
                    env={
                        **os.environ,
                        "PYTHONPATH": str(ROOT),
                        "BRANDELN_TOKEN": token,
                        "BRANDELN_TABLES": str(TABLES_PER_BOT),
                    },
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        async with asyncio.timeout(60):
            while await _sessions(referee.address) < BOTS * TABLES_PER_BOT:  # noqa: ASYNC110
                await asyncio.sleep(0.1)  # another process's state: poll it
        async with channel(referee.address) as ch:
            admin = admin_pb2_grpc.AdminStub(ch)
            bot_ids = [
                b.bot_id
                for b in (
                    await admin.ListBots(admin_pb2.ListBotsRequest(), metadata=ADMIN_METADATA)
                ).bots
            ]
            match = admin.RunMatch(
                admin_pb2.RunMatchRequest(bot_ids=bot_ids, deals=1000), metadata=ADMIN_METADATA
            )
            first = await match.read()
            assert isinstance(first, admin_pb2.MatchUpdate)
            assert first.WhichOneof("kind") == "started"  # seated sessions, and lobby ones
            referee.process.send_signal(signal.SIGTERM)
            seen = await _health_until_closed(referee.address, DRAIN_S + 10)
            result = None
            while (update := await match.read()) is not grpc.aio.EOF:
                assert isinstance(update, admin_pb2.MatchUpdate)
                if update.WhichOneof("kind") == "result":
                    result = update.result
        # SERVING until the signal is handled, then NOT_SERVING until the port closes.
        not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
        assert not_serving in seen
        assert set(seen[seen.index(not_serving) :]) == {not_serving}
        assert result is not None
        assert result.status == "aborted"
        # Still tearing down on a loaded machine, the process gets a second SIGTERM here, which
        # once ended it by signal (-15): it exits 0 whenever the signal lands.
        assert referee.terminate() == 0
        assert "Traceback" not in referee.stderr
        assert "stopping: running matches are recorded as aborted" in referee.stderr
    finally:
        referee.kill()
        for bot in bots:
            bot.kill()
            bot.wait()


@pytest.mark.parametrize("token", ["", "   ", "short-token", "x" * 15])
def test_serve_refuses_a_blank_or_short_admin_token(tmp_path: Path, token: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "brandeln.cli",
            "serve",
            "--port",
            "0",
            "--db",
            str(tmp_path / "r.db"),
        ],
        env={**os.environ, "BRANDELN_ADMIN_TOKEN": token, "COLUMNS": "200"},
        cwd=ROOT,
        capture_output=True,
        check=False,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: $BRANDELN_ADMIN_TOKEN ")
    assert "at least 16 characters" in line
    assert not (tmp_path / "r.db").exists()  # refused before anything was written

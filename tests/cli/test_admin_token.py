"""The admin token and the data folder: `brandeln serve` beside the demo's embedded referee.

A newcomer runs `make demo`, then `brandeln serve` in the same folder; the serve must print an
admin token (or say exactly how to get one), and an embedded season run next to a live serve
must leave the serve's token, sessions and session numbers alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.errors import DataInUseError
from brandeln.cli.main import app
from brandeln.v1 import admin_pb2, admin_pb2_grpc
from tests.conftest import MINIMAL_BOT, PROJECT_PYTHONPATH, BotProcesses

runner = CliRunner()

SEASON = """name = "beside"
seed = 3
blocks = 1
deals_per_match = 4
concurrency = 4
connect_timeout_ms = 30000
[time_control]
move_ms = 2000
bank_ms = 20000
""" + "".join(
    f'[[bots]]\nname = "random-{n}"\n'
    f'command = ["python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "{n}"]\n'
    for n in range(1, 5)
)


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "BRANDELN_ADMIN_TOKEN"}
    env.update({"BRANDELN_DATA": str(data), "COLUMNS": "300", "PYTHONPATH": PROJECT_PYTHONPATH})
    return env


@dataclass
class Served:
    process: subprocess.Popen[str]
    address: str
    lines: list[str]

    @property
    def token(self) -> str:
        line = next(line for line in self.lines if "admin token (shown once" in line)
        return line.rsplit(":", 1)[1].strip()


def _serve(data: Path, extra_env: dict[str, str] | None = None) -> Served:
    """`brandeln serve --port 0` on ``data``, read up to its admin-token line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "brandeln.cli", "serve", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env={**_env(data), **(extra_env or {})},
    )
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("admin token"):
            listening = next(x for x in lines if "listening on" in x)
            address = listening.split("listening on ", 1)[1].split()[0]
            return Served(process, address, lines)
    process.kill()
    raise AssertionError(f"serve printed no admin-token line: {lines}")


def _stop(served: Served) -> None:
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=15) == 0


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "brandeln-data"
    monkeypatch.setenv("BRANDELN_DATA", str(folder))
    monkeypatch.delenv("BRANDELN_ADMIN_TOKEN", raising=False)
    return folder


def _admin(address: str, token: str, method: str, request: object) -> object:
    with grpc.insecure_channel(address) as channel:
        rpc = getattr(admin_pb2_grpc.AdminStub(channel), method)
        return rpc(request, metadata=(("authorization", f"Bearer {token}"),), timeout=10)


def _run_season(tmp_path: Path, data: Path) -> None:
    file = tmp_path / "season.toml"
    file.write_text(SEASON)
    result = runner.invoke(app, ["season", "run", str(file), "--data", str(data)])
    assert result.exit_code == 0, result.output


def test_serve_after_an_embedded_season_prints_an_admin_token_that_works(
    tmp_path: Path, data: Path
) -> None:
    _run_season(tmp_path, data)  # what `make demo` does
    served = _serve(data)
    try:
        registered = runner.invoke(
            app,
            ["bots", "add", "mybot", "--referee", served.address],
            env={"BRANDELN_ADMIN_TOKEN": served.token},
        )
        assert registered.exit_code == 0, registered.output
        assert "registered mybot as bot_" in registered.output
    finally:
        _stop(served)
    # The demo's matches are still found by the local commands.
    listed = runner.invoke(app, ["matches", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert listed.output.count('"match_id"') == 4


def test_an_embedded_season_beside_a_live_serve_leaves_its_token_and_sessions_alone(
    tmp_path: Path, data: Path, bot_processes: BotProcesses
) -> None:
    served = _serve(data)
    try:
        reply = _admin(
            served.address, served.token, "RegisterBot", admin_pb2.RegisterBotRequest(name="mine")
        )
        assert isinstance(reply, admin_pb2.RegisterBotResponse)
        bot_processes.start([MINIMAL_BOT, served.address, reply.token, "first"])
        deadline = time.monotonic() + 15
        while True:
            sessions = _admin(
                served.address, served.token, "ListSessions", admin_pb2.ListSessionsRequest()
            )
            assert isinstance(sessions, admin_pb2.ListSessionsResponse)
            if sessions.sessions:
                break
            assert time.monotonic() < deadline, "the bot never connected"
            time.sleep(0.05)
        (before,) = sessions.sessions

        _run_season(tmp_path, data)

        # The operator's token still works and the bot's session is still the same, open one.
        after = _admin(
            served.address, served.token, "ListSessions", admin_pb2.ListSessionsRequest()
        )
        assert isinstance(after, admin_pb2.ListSessionsResponse)
        assert [s.session_id for s in after.sessions] == [before.session_id]
        bots = _admin(served.address, served.token, "ListBots", admin_pb2.ListBotsRequest())
        assert isinstance(bots, admin_pb2.ListBotsResponse)
        assert [b.name for b in bots.bots] == ["mine"]  # the season's bots are elsewhere
    finally:
        _stop(served)


async def test_an_embedded_referee_refuses_a_database_a_live_serve_owns(data: Path) -> None:
    served = _serve(data)
    try:
        with pytest.raises(DataInUseError) as refused:
            await EmbeddedReferee(data).start()
        message = str(refused.value)
        assert f"brandeln serve (pid {served.process.pid}, listening on {served.address})" in (
            message
        )
        assert "stop it first, or use another data folder" in message
        # Nothing was touched: the served referee still takes its token.
        _admin(served.address, served.token, "ListBots", admin_pb2.ListBotsRequest())
    finally:
        _stop(served)


def test_a_second_serve_on_the_same_database_is_refused(data: Path) -> None:
    served = _serve(data)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "brandeln.cli", "serve", "--port", "0"],
            check=False,
            capture_output=True,
            text=True,
            env=_env(data),
            timeout=30,
        )
        assert second.returncode == 1
        assert f"pid {served.process.pid}" in second.stderr
    finally:
        _stop(served)


def test_serve_says_how_to_get_a_stored_token_and_a_reset_works_while_it_runs(
    data: Path,
) -> None:
    first = _serve(data)
    old = first.token
    _stop(first)
    served = _serve(data)
    try:
        told = "".join(served.lines)
        assert old not in told  # shown once only
        assert "admin token: set on an earlier start" in told
        assert "`brandeln admin token --reset` prints a new one" in told

        reset = subprocess.run(
            [sys.executable, "-m", "brandeln.cli", "admin", "token", "--reset"],
            check=False,
            capture_output=True,
            text=True,
            env=_env(data),
            timeout=30,
        )
        assert reset.returncode == 0, reset.stderr
        new = reset.stdout.strip()  # stdout is the token alone: $(brandeln admin token --reset)
        assert len(new) >= 32
        assert "running on it now: brandeln serve" in reset.stderr

        _admin(served.address, new, "ListBots", admin_pb2.ListBotsRequest())
        with pytest.raises(grpc.RpcError) as refused:
            _admin(served.address, old, "ListBots", admin_pb2.ListBotsRequest())
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        _stop(served)


def test_serve_with_the_token_in_the_environment_says_so(data: Path) -> None:
    served = _serve(data, {"BRANDELN_ADMIN_TOKEN": "operator-chosen-token-0123456789abcdef"})
    try:
        assert any("admin token: the one in $BRANDELN_ADMIN_TOKEN" in x for x in served.lines)
    finally:
        _stop(served)


def test_admin_token_says_whether_the_exported_token_is_the_right_one(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = runner.invoke(app, ["admin", "token"])
    assert missing.exit_code == 0
    assert "`brandeln serve` makes an admin token on its first start" in missing.output
    reset = runner.invoke(app, ["admin", "token", "--reset"])
    assert reset.exit_code == 0, reset.output
    token = reset.stdout.strip().splitlines()[-1]

    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", token)
    right = runner.invoke(app, ["admin", "token"])
    assert "only its hash is stored" in right.output
    assert "$BRANDELN_ADMIN_TOKEN is the right one" in right.output
    monkeypatch.setenv("BRANDELN_ADMIN_TOKEN", "not-it")
    wrong = runner.invoke(app, ["admin", "token"])
    assert "$BRANDELN_ADMIN_TOKEN is NOT the right one" in wrong.output


def test_admin_token_names_the_database_given_to_serve_db(tmp_path: Path, data: Path) -> None:
    db = tmp_path / "elsewhere" / "r.db"
    runner.invoke(app, ["admin", "token", "--reset", "--db", str(db)])
    told = runner.invoke(app, ["admin", "token", "--db", str(db)])
    assert f"`brandeln admin token --reset --db {db}` prints a new one" in told.output

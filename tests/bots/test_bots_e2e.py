"""Every sample bot, as a real process, plays full matches against the real referee.

The Python bots run as ``python -m brandeln.sample_bots NAME`` or
``python -m brandeln.cli bot run``, the Node bot as ``node bot.js`` after ``npm ci``, the bridge
with the stdlib-only sample child and with a child that crashes on every request (its seat gets
fallbacks and strikes, the referee and the other seats carry on).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.engine.rulesets import find_ruleset
from brandeln.sdk.launch import LaunchError, resolve_options
from brandeln.v1 import admin_pb2, cards_pb2
from tests.arena.test_tls_and_serve import self_signed
from tests.conftest import NODE_DIR, PROJECT_PYTHONPATH, ROOT, AdminClient, BotProcesses

SIMPLE_BOT = ROOT / "sample_bots" / "bridge_examples" / "simple_bot.py"
FAST = cards_pb2.TimeControl(move_ms=1500, bank_ms=5000, max_strikes=3)
# For a bot to finish what it was doing: generous, the suite runs beside CPU hogs.
EXIT_WAIT_S = 120.0


async def register(admin: AdminClient, name: str) -> tuple[str, str]:
    reply = await admin.register(name)
    return reply.bot_id, reply.token


def sample_bot(name: str, server: str, token: str, *extra: str) -> list[str]:
    return ["-m", "brandeln.sample_bots", name, "--server", server, "--token", token, *extra]


def outputs(processes: BotProcesses) -> str:
    return "\n".join(
        Path(p.output_path).read_text()  # type: ignore[attr-defined]
        for p in processes.procs
    )


async def test_random_heuristic_and_montecarlo_play_full_matches(
    admin: AdminClient, bot_processes: BotProcesses, referee: object
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    ids = []
    for name in ("montecarlo", "heuristic", "random"):
        bot_id, token = await register(admin, name)
        bot_processes.start(sample_bot(name, address, token, "--seed", "3"), name=name)
        ids.append(bot_id)
    # The CLI path too: `brandeln bot run` with the token from the environment.
    bot_id, token = await register(admin, "random-cli")
    os.environ["BRANDELN_TOKEN"] = token
    try:
        bot_processes.start(
            ["-m", "brandeln.cli", "bot", "run", "random", "--server", address], name="cli"
        )
    finally:
        del os.environ["BRANDELN_TOKEN"]
    ids.append(bot_id)
    await admin.wait_for_sessions(ids)
    for seed in (1, 2):
        _, result = await admin.run_match(
            admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=seed, time_control=FAST)
        )
        assert result.status == "finished", outputs(bot_processes)
        assert result.deals_played == 4
        assert list(result.forfeited) == []
        assert list(result.strikes) == [0, 0, 0, 0], outputs(bot_processes)
        ids = ids[1:] + ids[:1]  # rotate the seats; the sessions wait in the lobby between


async def test_one_process_plays_two_tables_at_once(
    admin: AdminClient, bot_processes: BotProcesses, referee: object
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    random_id, random_token = await register(admin, "random-x2")
    heuristic_id, heuristic_token = await register(admin, "heuristic-x2")
    bot_processes.start(sample_bot("random", address, random_token, "--tables", "2"), "r")
    bot_processes.start(sample_bot("heuristic", address, heuristic_token, "--tables", "2"), "h")
    ids = [random_id, heuristic_id, random_id, heuristic_id]
    await admin.wait_for_sessions(ids)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=9, time_control=FAST)
    )
    assert result.status == "finished"
    assert list(result.strikes) == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "cli",
    [["-m", "brandeln.sample_bots", "random"], ["-m", "brandeln.cli", "bot", "run", "random"]],
)
async def test_a_token_that_starts_with_a_dash_is_read_as_the_token(
    referee: object, cli: list[str]
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *cli,
        "--server",
        address,
        "--token",
        "-looks-like-an-option",
        "--matches",
        "1",
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH},
    )
    _, stderr = await asyncio.wait_for(proc.communicate(), 30)
    assert b"error: bad token" in stderr  # the referee saw it, and rejected it
    assert proc.returncode == 2


async def test_a_bad_token_ends_the_process_with_a_clear_message(referee: object) -> None:
    address = referee.address  # type: ignore[attr-defined]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *sample_bot("random", address, "not-a-token"),
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH},
    )
    _, stderr = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2
    assert b"error: bad token" in stderr


async def test_the_bridge_plays_with_the_sample_child_and_survives_a_crashing_one(
    admin: AdminClient, bot_processes: BotProcesses, referee: object, tmp_path: Path
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    crashing = tmp_path / "crash.py"
    crashing.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line)['type'] == 'request':\n"
        "        raise SystemExit('crash on purpose')\n"
    )
    ids = []
    children = {"simple": SIMPLE_BOT, "crashing": crashing}
    for name, script in children.items():
        bot_id, token = await register(admin, name)
        bot_processes.start(
            [
                "-m",
                "brandeln.cli",
                "bot",
                "bridge",
                "--server",
                address,
                "--token",
                token,
                "--max-restarts",
                "1",
                "--",
                sys.executable,
                str(script),
            ],
            name=name,
        )
        ids.append(bot_id)
    for name in ("heuristic", "random"):
        bot_id, token = await register(admin, name)
        bot_processes.start(sample_bot(name, address, token), name=name)
        ids.append(bot_id)
    await admin.wait_for_sessions(ids)
    short = cards_pb2.TimeControl(move_ms=300, bank_ms=0, max_strikes=3)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=5, time_control=short)
    )
    assert result.status == "finished"
    assert result.deals_played == 4
    # The crashing child's seat timed out into strikes and forfeited; the others played clean.
    assert list(result.forfeited) == [1]
    assert result.strikes[1] == 3
    assert [result.strikes[s] for s in (0, 2, 3)] == [0, 0, 0]
    assert result.ranks[1] == max(result.ranks)
    log = (
        await admin.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
        )
    ).log_jsonl
    assert "simple_bot: seat 0" in log  # the sample child's BotLog reached the match log
    assert "crash on purpose" in log  # the crashing child's stderr too


async def node_bot_plays_a_match(
    admin: AdminClient,
    bot_processes: BotProcesses,
    address: str,
    command: list[str],
    cwd: Path,
    tables: int = 1,
) -> str:
    """``command``, a Node bot at ``tables`` seats (a session each), and Python sample bots at
    the others play one match, then the bot exits by itself (``--matches 1``); its output.
    Fails on a strike, an unfinished match or a dirty exit."""
    node_id, node_token = await register(admin, "node")
    out = bot_processes.tmp_path / "node.out"
    env = {
        "PATH": os.environ["PATH"],
        "BRANDELN_SERVER": address,
        "BRANDELN_TOKEN": node_token,
        "BRANDELN_TABLES": str(tables),
    }
    with out.open("w") as log:
        node = await asyncio.create_subprocess_exec(
            *command, "--matches", "1", cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env
        )
    try:
        ids = [node_id] * tables
        others = itertools.cycle(("heuristic", "random"))
        while len(ids) < find_ruleset("standard").players:
            name = next(others)
            bot_id, token = await register(admin, f"{name}-{len(ids)}")
            bot_processes.start(sample_bot(name, address, token), name=name)
            ids.append(bot_id)
        await admin.wait_for_sessions(ids)
        _, result = await admin.run_match(
            admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=11, time_control=FAST)
        )
        assert result.status == "finished"
        assert list(result.strikes) == [0] * len(ids), out.read_text()
        assert await asyncio.wait_for(node.wait(), EXIT_WAIT_S) == 0, out.read_text()
    finally:
        if node.returncode is None:
            node.kill()
            await node.wait()
    return out.read_text()


async def test_the_node_bot_plays_a_full_match(
    admin: AdminClient, bot_processes: BotProcesses, referee: EmbeddedReferee, node_bin: str
) -> None:
    # Two tables: the Node bot fills two seats with two sessions.
    command = [node_bin, str(NODE_DIR / "bot.js")]
    output = await node_bot_plays_a_match(
        admin, bot_processes, referee.address, command, NODE_DIR, tables=2
    )
    assert "match " in output  # the bot's own progress lines


def test_the_node_bot_fails_clearly_without_a_token(node_bin: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BRANDELN_TOKEN"}
    done = subprocess.run(
        [node_bin, str(NODE_DIR / "bot.js")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "no token" in done.stderr


async def test_a_sample_bot_plays_over_tls_with_a_ca_file(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    cert, key = self_signed(tmp_path)
    tls = (cert.read_bytes(), key.read_bytes())
    async with EmbeddedReferee(tmp_path / "ref", host="localhost", tls=tls) as referee:
        admin = AdminClient(referee.address, referee.admin_token, cert.read_bytes())
        try:
            ids = []
            for n in range(4):
                bot_id, token = await register(admin, f"tls-{n}")
                args = sample_bot("heuristic" if n % 2 else "random", referee.address, token)
                bot_processes.start([*args, "--ca", str(cert)], name=f"tls{n}")
                ids.append(bot_id)
            await admin.wait_for_sessions(ids)
            _, result = await admin.run_match(
                admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=2, time_control=FAST)
            )
            assert result.status == "finished"
            assert list(result.strikes) == [0, 0, 0, 0]
        finally:
            await admin.close()


# A child that says which match it is in, on stderr, at the start, at every request and after
# the end of each match.
TELLING_CHILD = """
import json, sys
match = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "match_started":
        match = message["match_id"]
        print(f"hello {match}", file=sys.stderr, flush=True)
    elif message["type"] == "match_ended":
        print(f"goodbye {match}", file=sys.stderr, flush=True)
    elif message["type"] == "request":
        print(f"thinking in {match}", file=sys.stderr, flush=True)
        print(json.dumps({"request_id": message["request_id"], "choice": message["legal"][0]}),
              flush=True)
"""


async def test_the_bridge_files_a_childs_stderr_in_the_match_it_was_written_in(
    admin: AdminClient, bot_processes: BotProcesses, referee: object, tmp_path: Path
) -> None:
    address = referee.address  # type: ignore[attr-defined]
    script = tmp_path / "telling.py"
    script.write_text(TELLING_CHILD)
    bot_id, token = await register(admin, "telling")
    bridge = bot_processes.start(
        [
            *("-m", "brandeln.cli", "bot", "bridge", "--server", address, "--token", token),
            *("--", sys.executable, str(script)),
        ],
        name="bridge",
    )
    ids = [bot_id]
    for name in ("random-a", "random-b", "random-c"):
        other_id, other_token = await register(admin, name)
        bot_processes.start(sample_bot("random", address, other_token), name=name)
        ids.append(other_id)
    await admin.wait_for_sessions(ids, timeout=60)
    # Queued at once, as a season does: each match starts the moment the last one frees the
    # seats, while the child is still writing its goodbye.
    request = admin_pb2.RunMatchRequest(bot_ids=ids, deals=2, seed=5, seat_wait_ms=60_000)
    results = await asyncio.gather(*(admin.run_match(request) for _ in range(4)))
    for _, result in results:
        log = (
            await admin.stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
            )
        ).log_jsonl
        records = [json.loads(line) for line in log.splitlines()]
        stderr = [r["text"] for r in records if r["type"] == "bot_log" and r["seat"] == 0]
        assert f"[stderr] hello {result.match_id}" in stderr
        assert all(text.endswith(result.match_id) for text in stderr), stderr
    # What it wrote after a match ended is in the bridge's own log, not in the next match. The
    # last match's goodbye is written after the referee has already answered RunMatch, so it is
    # waited for rather than expected at once.
    goodbyes = [f"goodbye {result.match_id}" for _, result in results]
    output_path = Path(bridge.output_path)  # type: ignore[attr-defined]

    def missing_goodbyes() -> list[str]:
        output = output_path.read_text()  # once a poll, not once a match
        return [goodbye for goodbye in goodbyes if goodbye not in output]

    deadline = time.monotonic() + 30
    while missing := missing_goodbyes():
        assert time.monotonic() < deadline, missing
        await asyncio.sleep(0.1)


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("cli", "timeout_args", "env"),
    [
        (["-m", "brandeln.sample_bots", "random"], ["--connect-timeout", "1"], {}),
        (["-m", "brandeln.cli", "bot", "run", "random"], [], {"BRANDELN_CONNECT_TIMEOUT": "1"}),
    ],
)
async def test_a_wrong_port_gives_one_warning_and_one_clean_error(
    cli: list[str], timeout_args: list[str], env: dict[str, str]
) -> None:
    server = f"127.0.0.1:{_unused_port()}"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *cli,
        "--server",
        server,
        "--token",
        "t",
        *timeout_args,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": PROJECT_PYTHONPATH, "COLUMNS": "80", **env},
    )
    _, raw = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    lines = raw.decode().splitlines()
    assert len([line for line in lines if "WARNING" in line]) == 1, lines
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, lines
    assert errors[0].startswith(f"error: cannot reach the referee at {server} (tried for 1 s)")
    assert len(lines) == 2, lines


def test_the_connect_timeout_defaults_to_two_minutes_and_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BRANDELN_CONNECT_TIMEOUT", raising=False)
    assert resolve_options("s:1", "t").retry_for_s == 120
    monkeypatch.setenv("BRANDELN_CONNECT_TIMEOUT", "7.5")
    assert resolve_options("s:1", "t").retry_for_s == 7.5
    assert resolve_options("s:1", "t", connect_timeout_s=3).retry_for_s == 3
    monkeypatch.setenv("BRANDELN_CONNECT_TIMEOUT", "soon")
    with pytest.raises(LaunchError, match="BRANDELN_CONNECT_TIMEOUT='soon' is not a number"):
        resolve_options("s:1", "t")

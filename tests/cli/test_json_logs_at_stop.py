"""The three services under ``--log-json``, each a real process stopped by SIGTERM in every state
it can be in: it exits 0, and every line it wrote, on stdout and on stderr, from its first to
its last, is one JSON object, none at level error, so no traceback outside a JSON field. An
error nothing handled is one record at level error with the traceback inside.

- `brandeln serve`: idle; bots waiting in its lobby; a match running (a silent seat holds it).
- `brandeln ladder serve`: versions waiting in the lobby; a block mid-play (a silent version
  holds its match), which is then given back (``ladder_given_back``); a block mid-record (a
  wrapper, tests/cli/patched_brandeln.py, holds its transaction until the stop has come),
  which is then recorded whole (``ladder_recorded``).
- `brandeln web`: idle; a person's table open (its match started); a seat's event stream read.

Every wait is for an event of the service's own log (or a line its harness waits for), never a
fixed time; tests/cli_process.py's hang guard is far above a healthy run.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import pytest
from typer.testing import CliRunner

from brandeln.cli.main import app
from brandeln.ladder.store.database import LadderStore
from brandeln.v1 import admin_pb2, cards_pb2
from tests.cli.patched_brandeln import FAILURE, PAUSED
from tests.cli.patched_brandeln import MODULE as PATCHED
from tests.cli_process import WAIT_S, CliProcess, cli_process
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses
from tests.ladder.ladder_process import SERVING, data_args, ladder_serve_args
from tests.pg_server import free_port
from tests.web.table_play import THREE_BOTS, open_table, person_client, table_form
from tests.web.web_process import web_process

pytestmark = pytest.mark.timeout(300)  # real processes, bots among them, on a loaded machine

Record = dict[str, Any]
JSON_ARGS: Final = ("--log-json", "--log-level", "info")
ADMIN_TOKEN: Final = "json-logs-admin-token"
# A seat that never answers holds its match this long: far beyond the test.
HOLD_MS: Final = 600_000
LISTENING: Final = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
FAILED_LEVELS: Final = frozenset({"error", "critical"})
runner = CliRunner()


def _record(line: str) -> Record:
    """A line the service wrote: one JSON object (anything else fails, naming the line)."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        raise AssertionError(f"a line that is no JSON object: {line!r}") from None
    assert isinstance(entry, dict), line
    assert {"ts", "level", "event", "message"} <= entry.keys(), line
    return entry


def _wait_for(process: CliProcess, event: str, count: int = 1) -> list[Record]:
    """Read the service's lines until ``count`` records of ``event`` have come: those."""
    found: list[Record] = []
    while len(found) < count:
        line = process.next_line()
        if line is None:
            raise AssertionError(f"it ended before {count} {event}: {''.join(process.lines)}")
        entry = _record(line)
        if entry["event"] == event:
            found.append(entry)
    return found


def _stopped_cleanly(process: CliProcess) -> list[Record]:
    """SIGTERM; then it has exited 0 and all it wrote is JSON records, none of a failure."""
    exit_code = process.signal(signal.SIGTERM)
    process.rest()
    written = "".join(process.lines)
    assert exit_code == 0, written
    records = [_record(line) for line in process.lines]
    failures = [r for r in records if r["level"] in FAILED_LEVELS]
    assert failures == [], written
    return records


def _events(records: Sequence[Record]) -> list[str]:
    return [str(record["event"]) for record in records]


# -- brandeln serve --------------------------------------------------------------------------


@contextmanager
def _referee(tmp_path: Path) -> Iterator[tuple[CliProcess, str]]:
    """`brandeln serve --log-json --log-level info` on a free port: it and its address, once
    its start-up lines are written (the admin token's is the last)."""
    args = ["serve", "--port", "0", "--db", str(tmp_path / "referee.db")]
    args += ["--logs", str(tmp_path / "logs"), *JSON_ARGS]
    with cli_process(args, {"BRANDELN_ADMIN_TOKEN": ADMIN_TOKEN}) as referee:
        port = None
        while True:
            line = referee.next_line()
            assert line is not None, "".join(referee.lines)
            entry = _record(line)
            if found := LISTENING.search(entry["message"]):
                port = found.group(1)
            if entry["message"].startswith("admin token"):
                break
        assert port is not None, "".join(referee.lines)
        yield referee, f"127.0.0.1:{port}"


async def _bots(
    admin: AdminClient, bots: BotProcesses, address: str, *, random: int, silent: int = 0
) -> list[str]:
    """Bots registered and started (sample random bots, then minimal ones that never answer):
    their ids, the silent ones last."""
    ids = []
    for n in range(random + silent):
        reply = await admin.register(f"bot-{n}")
        if n < random:
            bots.start(
                [
                    "-m",
                    "brandeln.sample_bots",
                    "random",
                    "--server",
                    address,
                    "--token",
                    reply.token,
                ]
            )
        else:
            bots.start([MINIMAL_BOT, address, reply.token, "silent"], name="silent")
        ids.append(reply.bot_id)
    return ids


def test_serve_stopped_idle_writes_json_lines_only(tmp_path: Path) -> None:
    with _referee(tmp_path) as (referee, _):
        records = _stopped_cleanly(referee)
    assert "draining" in _events(records)


async def test_serve_stopped_with_bots_in_its_lobby_logs_no_error(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    with _referee(tmp_path) as (referee, address):
        admin = AdminClient(address, ADMIN_TOKEN)
        try:
            await _bots(admin, bot_processes, address, random=3)
            await asyncio.to_thread(_wait_for, referee, "session_opened", 3)
        finally:
            await admin.close()
        records = await asyncio.to_thread(_stopped_cleanly, referee)
    closed = [r for r in records if r["event"] == "session_closed"]
    assert {r["reason"] for r in closed} == {"shutdown"}
    assert len(closed) == 3


async def test_serve_stopped_mid_match_logs_no_error(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    with _referee(tmp_path) as (referee, address):
        admin = AdminClient(address, ADMIN_TOKEN)
        try:
            # Five bots: three play beside a silent one, which holds the match; one waits.
            ids = await _bots(admin, bot_processes, address, random=4, silent=1)
            await admin.wait_for_sessions(ids, timeout=180)
            order = admin_pb2.RunMatchRequest(
                bot_ids=ids[-4:], deals=1, time_control=cards_pb2.TimeControl(move_ms=HOLD_MS)
            )
            running = asyncio.ensure_future(admin.run_match(order))
            await asyncio.to_thread(_wait_for, referee, "match_started")
            records = await asyncio.to_thread(_stopped_cleanly, referee)
            # The match's caller is told how it ended, whatever that is: not this test's matter.
            await asyncio.gather(running, return_exceptions=True)
        finally:
            await admin.close()
    (ended,) = [r for r in records if r["event"] == "match_ended"]
    assert ended["status"] == "aborted"


# -- brandeln ladder serve -------------------------------------------------------------------


def _version(data: Path, family: str) -> str:
    """``bots version add FAMILY 1`` through the CLI; the version's token."""
    args = ["bots", "version", "add", family, "1", *data_args(data, None), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return str(json.loads(result.output.splitlines()[-1])["token"])


@contextmanager
def _ladder(
    tmp_path: Path,
    bots: BotProcesses,
    *,
    random: int,
    silent: int = 0,
    move_ms: int = HOLD_MS,
    patch: str | None = None,
) -> Iterator[CliProcess]:
    """`brandeln ladder serve --log-json --log-level info` (``patch``: through the test's
    wrapper), serving, and versions connected to it: sample random bots, then silent ones."""
    data = tmp_path / "data"
    port = free_port()
    args = ["ladder", "serve", *ladder_serve_args(data, None, port, move_ms=move_ms)]
    args += JSON_ARGS
    module = "brandeln.cli" if patch is None else PATCHED
    with cli_process([*([patch] if patch else []), *args], module=module) as ladder:
        ladder.wait_for(SERVING)
        assert all(_record(line) for line in ladder.lines)
        address = f"127.0.0.1:{port}"
        for n in range(random + silent):
            token = _version(data, f"v{n}")
            if n < random:
                bots.start(
                    ["-m", "brandeln.sample_bots", "random", "--server", address, "--token", token]
                )
            else:
                bots.start([MINIMAL_BOT, address, token, "silent"], name="silent")
        yield ladder


def test_ladder_stopped_with_versions_in_the_lobby_logs_no_error(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    with _ladder(tmp_path, bot_processes, random=3) as ladder:  # too few for a block
        _wait_for(ladder, "session_opened", 3)
        records = _stopped_cleanly(ladder)
    assert "ladder_planned" not in _events(records)


def test_ladder_stopped_mid_block_gives_it_back_and_logs_no_error(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    with _ladder(tmp_path, bot_processes, random=3, silent=1) as ladder:
        (planned,) = _wait_for(ladder, "ladder_planned")
        _wait_for(ladder, "match_started")  # held by the silent version
        records = _stopped_cleanly(ladder)
    (given_back,) = [r for r in records if r["event"] == "ladder_given_back"]
    assert given_back["block"] == planned["block"]
    assert given_back["level"] == "info"
    assert "ladder_recorded" not in _events(records)


def test_ladder_stopped_mid_record_records_the_block_whole_and_logs_no_error(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    # The sample bots answer at once: a move time of 20 s is never reached.
    with _ladder(
        tmp_path, bot_processes, random=4, move_ms=20_000, patch="pause_at_record"
    ) as ladder:
        (planned,) = _wait_for(ladder, "ladder_planned")
        _wait_for(ladder, PAUSED)
        records = _stopped_cleanly(ladder)
    (recorded,) = [r for r in records if r["event"] == "ladder_recorded"]
    assert recorded["block"] == planned["block"]
    assert "ladder_given_back" not in _events(records)
    stopped = next(r for r in records if "stopped after" in r["message"])
    assert "after 1 block" in stopped["message"]
    with LadderStore.open(tmp_path / "data" / "ladder.db", create=False) as store:
        assert planned["block"] in store.blocks.finished_blocks("ladder")


# -- brandeln web ----------------------------------------------------------------------------


def test_web_stopped_idle_writes_json_lines_only(tmp_path: Path) -> None:
    with web_process(["--data", str(tmp_path / "data"), *JSON_ARGS]) as web:
        _stopped_cleanly(web)


def test_web_stopped_with_a_persons_table_open_logs_no_error(tmp_path: Path) -> None:
    with (
        web_process(["--data", str(tmp_path / "data"), *JSON_ARGS]) as web,
        person_client(web.base) as person,
    ):
        open_table(person, table_form(("person", *THREE_BOTS), deals=1))
        _wait_for(web, "match_started")  # its bots came: the match waits for the person
        records = _stopped_cleanly(web)
    (ended,) = [r for r in records if r["event"] == "match_ended"]
    assert ended["status"] == "aborted"


def test_web_stopped_while_a_seats_event_stream_is_read_logs_no_error(tmp_path: Path) -> None:
    with (
        web_process(["--data", str(tmp_path / "data"), *JSON_ARGS]) as web,
        person_client(web.base) as person,
    ):
        path = open_table(person, table_form(("person", *THREE_BOTS), deals=1))
        reading = threading.Event()
        ended: list[str] = []

        def read() -> None:
            with person.stream("GET", f"{path}/events") as response:
                for line in response.iter_lines():
                    if line.startswith("event: seat"):
                        reading.set()
            ended.append("the stream ended")

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert reading.wait(timeout=WAIT_S), "no snapshot came on the seat's stream"
        records = _stopped_cleanly(web)
        reader.join(timeout=WAIT_S)
    assert ended == ["the stream ended"]  # ended cleanly, its last chunk sent
    assert any("/events" in r["message"] for r in records if r["logger"] == "uvicorn.access")


# -- an error nothing handled ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "command"),
    [
        ("fail_serve", ["serve", "--db", "{tmp}/referee.db", "--logs", "{tmp}/logs"]),
        ("fail_ladder", ["ladder", "serve", "--data", "{tmp}/data"]),
        ("fail_web", ["web", "--data", "{tmp}/data"]),
    ],
)
def test_an_unexpected_error_is_one_record_with_its_traceback_inside(
    tmp_path: Path, patch: str, command: list[str]
) -> None:
    args = [patch, *(arg.format(tmp=tmp_path) for arg in command), "--port", "0", "--log-json"]
    with cli_process(args, {"BRANDELN_ADMIN_TOKEN": ADMIN_TOKEN}, module=PATCHED) as failing:
        exit_code = failing.process.wait(timeout=WAIT_S)
        failing.rest()
    written = "".join(failing.lines)
    assert exit_code == 1, written
    records = [_record(line) for line in failing.lines]
    (failure,) = [r for r in records if r["level"] in FAILED_LEVELS]
    assert failure["event"] == "unexpected_error"
    assert failure["exception"].startswith("Traceback (most recent call last):")
    assert failure["exception"].endswith(f"RuntimeError: {FAILURE}")

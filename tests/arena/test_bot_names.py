"""A bot is known by its registered name everywhere; names are refused when they carry control
or format characters. Over real gRPC on loopback, with real bot processes where a match runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.arena.names import check_name
from brandeln.v1 import admin_pb2, bot_pb2, bot_pb2_grpc
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

HOSTILE_NAMES = [
    "mal\x1b]0;owned\x07lory",  # OSC: set the terminal's title
    "nul\x00",
    "bell\x07",
    "del\x7f",
    "c1\x9bcsi",
    "bidi\u202eevil",
    "iso\u2066late",
    "zero\u200bwidth",
    "line\u2028sep",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_check_name_refuses_control_and_format_characters(name: str) -> None:
    with pytest.raises(ValueError, match="control or format") as caught:
        check_name(name)
    assert caught.value.args[0].isprintable()  # the message itself shows them escaped


def test_check_name_keeps_ordinary_unicode_names() -> None:
    assert check_name("  Jörg's bot 🂡 @ season-1 ") == "Jörg's bot 🂡 @ season-1"


async def test_register_bot_refuses_control_characters_with_invalid_argument(
    admin: AdminClient,
) -> None:
    for name in ("evil\x1b[2J", "bidi\u202e", "nul\x00"):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await admin.register(name)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    bots = await admin.stub.ListBots(admin_pb2.ListBotsRequest(), metadata=admin.metadata)
    assert list(bots.bots) == []


async def _hello_error(address: str, hello: bot_pb2.Hello) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_pb2_grpc.RefereeStub(channel).Play(iter([bot_pb2.BotMessage(hello=hello)]))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in call:
                pass
        return caught.value


@pytest.mark.parametrize("field", ["bot_name", "bot_version"])
async def test_a_hello_with_control_characters_in_its_name_is_invalid_argument(
    referee: EmbeddedReferee, admin: AdminClient, field: str
) -> None:
    token = (await admin.register("honest")).token
    hello = bot_pb2.Hello(token=token, protocol_version=1)
    setattr(hello, field, "x\x1b]0;owned\x07")
    error = await _hello_error(referee.address, hello)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"Hello.{field}" in (error.details() or "")
    sessions = await admin.stub.ListSessions(
        admin_pb2.ListSessionsRequest(), metadata=admin.metadata
    )
    assert list(sessions.sessions) == []


def _match_started(path: Path) -> dict[str, object]:
    for line in path.read_text().splitlines():
        if line.startswith("{") and json.loads(line)["kind"] == "match_started":
            started: dict[str, object] = json.loads(line)["msg"]["matchStarted"]
            return started
    raise AssertionError(f"{path} holds no match_started")


async def test_every_seat_summary_session_and_log_show_the_registered_name(
    referee: EmbeddedReferee, admin: AdminClient, bot_processes: BotProcesses
) -> None:
    registered = ["mallory", "bob", "carol", "dave"]
    said = ["h1", "alice", "", "mallory"]  # a Hello may claim any name, even another bot's
    ids = []
    for name, hello_name in zip(registered, said, strict=True):
        reply = await admin.register(name)
        args = [MINIMAL_BOT, referee.address, reply.token, "first", hello_name]
        bot_processes.start(args, name=name)
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    sessions = await admin.stub.ListSessions(
        admin_pb2.ListSessionsRequest(), metadata=admin.metadata
    )
    by_bot = {s.bot_id: (s.bot_name, s.hello_name) for s in sessions.sessions}
    assert [by_bot[i] for i in ids] == list(zip(registered, said, strict=True))

    updates, result = await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, deals=1))
    assert list(result.bot_names) == registered
    started = updates[0].started
    assert [p.bot_name for p in started.players] == registered
    assert [p.hello_name for p in started.players] == said

    await asyncio.sleep(0.2)  # the bots flush each line; let the last ones land
    for proc in bot_processes.procs:
        players = _match_started(Path(proc.output_path))["players"]  # type: ignore[attr-defined]
        assert isinstance(players, list)
        assert [p["botName"] for p in players] == registered
        assert [p.get("helloName", "") for p in players] == said

    got = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
    )
    seats = read_log(got.log_jsonl).header.seats
    assert [s.bot_name for s in seats] == registered
    assert [s.hello_name for s in seats] == said
    listed = await admin.stub.ListMatches(admin_pb2.ListMatchesRequest(), metadata=admin.metadata)
    assert list(listed.matches[0].bot_names) == registered

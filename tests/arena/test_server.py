"""The referee's gRPC server stopped with calls open (brandeln.arena.server.stop_server): every
call's handler has ended when the stop returns, so an event loop that ends then has none of gRPC's
per-call tasks left to cancel (gRPC writes each such cancellation as an error with a raw
traceback: "Exception not handled by _handle_exceptions in servicer method
[/brandeln.v1.Referee/Play]", then asyncio.exceptions.CancelledError).

Bots waiting in the lobby hold their Play streams open, so the stop cuts them after its grace.
Whether the loop's end then catches one of gRPC's tasks in flight depends on the moment, so
the test checks what decides it, deterministically: the Play handlers' own tasks, done or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.servicers import RefereeServicer
from brandeln.v1 import bot_pb2_grpc
from tests.conftest import AdminClient
from tests.faults.referee_process import channel, hello_message

LOBBY = 3
GRACE_S = 0.2  # the stop's grace before it cuts the streams: they never end by themselves


async def _held_open(first: Any) -> AsyncIterator[Any]:
    yield first
    await asyncio.Event().wait()  # a bot that says hello and waits to be seated


async def test_a_stopped_server_has_ended_every_call_it_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handlers: list[asyncio.Task[Any]] = []
    play = RefereeServicer.Play

    async def watched_play(self: RefereeServicer, requests: Any, context: Any) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.append(task)
        await play(self, requests, context)

    monkeypatch.setattr(RefereeServicer, "Play", watched_play)
    referee = await EmbeddedReferee(tmp_path / "referee").start()
    admin = AdminClient(referee.address, referee.admin_token)
    channels: list[grpc.aio.Channel] = []
    try:
        bot_ids = []
        for n in range(LOBBY):
            reply = await admin.register(f"waiting-{n}")
            bot_ids.append(reply.bot_id)
            channels.append(channel(referee.address))
            stub = bot_pb2_grpc.RefereeStub(channels[-1])
            stub.Play(_held_open(hello_message(reply.token)))
        await admin.wait_for_sessions(bot_ids, timeout=60)

        await referee.stop(GRACE_S)

        assert len(handlers) == LOBBY
        assert [task for task in handlers if not task.done()] == []
    finally:
        await admin.close()
        for opened in channels:
            await opened.close()
        await referee.stop()  # again, if the test failed before: a no-op after the first

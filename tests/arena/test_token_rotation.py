"""``Admin.RotateBotToken`` over real gRPC: a new token for the same bot, the old one refused,
and every session opened with the old one ended."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.store.database import hash_token
from brandeln.v1 import admin_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses


async def _rotate(admin: AdminClient, bot_id: str) -> admin_pb2.RotateBotTokenResponse:
    return await admin.stub.RotateBotToken(
        admin_pb2.RotateBotTokenRequest(bot_id=bot_id), metadata=admin.metadata
    )


def _last_line(path: str) -> dict[str, object]:
    lines = [line for line in Path(path).read_text().splitlines() if line.startswith("{")]
    return dict(json.loads(lines[-1]))


async def test_a_rotated_token_replaces_the_old_one_and_ends_its_sessions(
    referee: EmbeddedReferee, admin: AdminClient, bot_processes: BotProcesses
) -> None:
    reply = await admin.register("rotated")
    old = bot_processes.start([MINIMAL_BOT, referee.address, reply.token, "first"], name="old")
    await admin.wait_for_sessions([reply.bot_id])

    rotated = await _rotate(admin, reply.bot_id)
    assert rotated.bot_id == reply.bot_id
    assert rotated.token not in {"", reply.token}
    # The session opened with the old token is ended, UNAUTHENTICATED.
    assert await asyncio.to_thread(old.wait, 15) == 1
    ended = _last_line(old.output_path)  # type: ignore[attr-defined]
    assert ended["kind"] == "error"
    assert ended["code"] == "StatusCode.UNAUTHENTICATED"
    sessions = await admin.stub.ListSessions(
        admin_pb2.ListSessionsRequest(), metadata=admin.metadata
    )
    assert [s.bot_id for s in sessions.sessions] == []

    # The old token is refused from now on; the new one is the same bot.
    again = bot_processes.start([MINIMAL_BOT, referee.address, reply.token, "first"], name="again")
    assert await asyncio.to_thread(again.wait, 15) == 1
    assert _last_line(again.output_path)["code"] == "StatusCode.UNAUTHENTICATED"  # type: ignore[attr-defined]
    bot_processes.start([MINIMAL_BOT, referee.address, rotated.token, "first"], name="new")
    await admin.wait_for_sessions([reply.bot_id])
    # Like a registered token, the new one is stored only as its hash.
    assert referee.referee is not None
    db = referee.referee.store.path
    stored = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert rotated.token.encode() not in stored
    assert hash_token(rotated.token).encode() in stored


async def test_rotating_an_unknown_or_revoked_bot_is_refused(
    referee: EmbeddedReferee, admin: AdminClient
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as unknown:
        await _rotate(admin, "bot_nosuchbot")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    reply = await admin.register("revoked")
    assert referee.referee is not None
    referee.referee.store.revoke_bot(reply.bot_id)
    with pytest.raises(grpc.aio.AioRpcError) as revoked:
        await _rotate(admin, reply.bot_id)
    assert revoked.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as no_admin:
        await admin.stub.RotateBotToken(
            admin_pb2.RotateBotTokenRequest(bot_id=reply.bot_id),
            metadata=(("authorization", "Bearer wrong"),),
        )
    assert no_admin.value.code() == grpc.StatusCode.UNAUTHENTICATED

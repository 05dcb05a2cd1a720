"""Every bot-supplied string the referee stores or echoes has a cap (arena/limits.py).

Seen: 150 Hellos with a 15 KB ``bot_version`` grew referee.db by 2.2 MB in 0.4 s (a reconnect
loop fills the disk at ~5 MB/s); a 10 KB contract string came back as a 20,000-character penalty
reason to every seat and into the log. Each test talks to a real ``brandeln serve`` process.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest

from brandeln.arena.limits import ProtocolLimits
from brandeln.v1 import admin_pb2, admin_pb2_grpc, bot_pb2, bot_pb2_grpc, cards_pb2
from tests.faults.referee_process import (
    ADMIN_TOKEN,
    RefereeUnderTest,
    channel,
    hello,
    hello_message,
    register_bot,
)

LIMITS = ProtocolLimits()
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN_TOKEN}"),)
# A contract string of 10 KB that would also rewrite the terminal of whoever reads it raw.
HOSTILE_CONTRACT = "\x1b[2J\x1b]0;owned\x07" * 600


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeUnderTest]:
    started = RefereeUnderTest.serve(tmp_path_factory.mktemp("caps"))
    yield started
    started.kill()


@pytest.mark.parametrize(
    ("field", "cap"),
    [
        ("bot_name", LIMITS.bot_name_chars),
        ("bot_version", LIMITS.bot_version_chars),
        ("resume_match_id", LIMITS.match_id_chars),
    ],
)
async def test_a_hello_with_an_over_long_field_is_refused_naming_field_and_cap(
    referee: RefereeUnderTest, field: str, cap: int
) -> None:
    token = await register_bot(referee.address, f"long-{field}")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await hello(referee.address, hello_message(token, **{field: "v" * 15_000}))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == f"hello.{field} has 15000 characters; the cap is {cap}"
    # At the cap it is welcome.
    answer = await hello(referee.address, hello_message(token, **{field: "v" * cap}))
    assert answer.WhichOneof("kind") == "welcome"


async def test_a_hello_with_too_many_or_too_long_rulesets_is_refused(
    referee: RefereeUnderTest,
) -> None:
    token = await register_bot(referee.address, "rulesets")
    for rulesets, detail in [
        (
            ["r" * 100],
            f"hello.rulesets entry has 100 characters; the cap is {LIMITS.ruleset_id_chars}",
        ),
        (
            ["standard"] * 1000,
            f"hello.rulesets has 1000 entries; the cap is {LIMITS.rulesets_per_hello}",
        ),
    ]:
        message = hello_message(token)
        message.hello.rulesets.extend(rulesets)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await hello(referee.address, message)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details() == detail


async def test_a_reconnect_loop_keeps_only_the_newest_closed_sessions(
    referee: RefereeUnderTest,
) -> None:
    token = await register_bot(referee.address, "looping")
    hellos = 150
    async with channel(referee.address) as ch:
        stub = bot_pb2_grpc.RefereeStub(ch)
        for _ in range(hellos):
            call = stub.Play(iter([hello_message(token)]))
            welcome = await call.read()
            assert isinstance(welcome, bot_pb2.RefereeMessage)
            assert welcome.WhichOneof("kind") == "welcome"
            # The stream ends once the referee has seen our side close.
            while await call.read() is not grpc.aio.EOF:
                pass
    db = sqlite3.connect(referee.data_dir / "referee.db")
    try:
        (bot_id,) = db.execute("SELECT bot_id FROM bots WHERE name='looping'").fetchone()
        rows = db.execute("SELECT count(*) FROM sessions WHERE bot_id=?", (bot_id,)).fetchone()
    finally:
        db.close()
    # The newest closed sessions, and at most the one whose close is still being recorded.
    assert rows[0] <= LIMITS.closed_sessions_kept_per_bot + 1


async def _honest_bot_with_one_hostile_bid(
    call: grpc.aio.StreamStreamCall[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
    outbox: asyncio.Queue[bot_pb2.BotMessage],
    attack: asyncio.Event,
    received: list[bot_pb2.RefereeMessage],
) -> None:
    """Answer every request with its first legal choice; the first bot asked for a bid of the
    match sends the hostile contract first."""
    async for message in call:
        received.append(message)
        kind = message.WhichOneof("kind")
        if kind == "match_ended":
            return
        if kind != "request":
            continue
        request = message.request
        if request.phase == cards_pb2.PHASE_BID and not attack.is_set():
            attack.set()
            hostile = cards_pb2.Choice(bid=cards_pb2.Bid(contract=HOSTILE_CONTRACT))
            outbox.put_nowait(
                bot_pb2.BotMessage(
                    action=bot_pb2.Action(request_id=request.request_id, choice=hostile)
                )
            )
        outbox.put_nowait(
            bot_pb2.BotMessage(
                action=bot_pb2.Action(request_id=request.request_id, choice=request.legal[0])
            )
        )


async def _sent(outbox: asyncio.Queue[bot_pb2.BotMessage]) -> AsyncIterator[bot_pb2.BotMessage]:
    while True:
        yield await outbox.get()


async def test_an_over_long_contract_is_malformed_and_quoted_only_in_part(
    referee: RefereeUnderTest,
) -> None:
    names = [f"contract-{seat}" for seat in range(4)]
    tokens = [await register_bot(referee.address, name) for name in names]
    attack = asyncio.Event()
    received: list[list[bot_pb2.RefereeMessage]] = [[] for _ in names]
    async with channel(referee.address) as ch:
        stub = bot_pb2_grpc.RefereeStub(ch)
        admin = admin_pb2_grpc.AdminStub(ch)
        bots = {
            b.name: b.bot_id
            for b in (
                await admin.ListBots(admin_pb2.ListBotsRequest(), metadata=ADMIN_METADATA)
            ).bots
        }
        players = []
        for token, seen in zip(tokens, received, strict=True):
            outbox: asyncio.Queue[bot_pb2.BotMessage] = asyncio.Queue()
            outbox.put_nowait(hello_message(token))
            call = stub.Play(_sent(outbox))
            players.append(
                asyncio.ensure_future(_honest_bot_with_one_hostile_bid(call, outbox, attack, seen))
            )
        result = None
        async with asyncio.timeout(60):
            async for update in admin.RunMatch(
                admin_pb2.RunMatchRequest(bot_ids=[bots[n] for n in names], deals=2),
                metadata=ADMIN_METADATA,
            ):
                if update.WhichOneof("kind") == "result":
                    result = update.result
            await asyncio.gather(*players)
        assert result is not None
        assert attack.is_set()
        record = await admin.GetMatch(
            admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=ADMIN_METADATA
        )
    rejected = [m.rejected for seen in received for m in seen if m.WhichOneof("kind") == "rejected"]
    (rejection,) = rejected
    assert rejection.code == bot_pb2.REJECT_CODE_MALFORMED
    assert len(rejection.reason) <= LIMITS.reason_chars
    assert f"at most {LIMITS.contract_id_chars} characters" in rejection.reason
    assert "\x1b" not in rejection.reason  # quoted with escapes
    assert "\\x1b" in rejection.reason
    assert f"({len(HOSTILE_CONTRACT)} characters)" in rejection.reason
    penalties = [
        m.event.seat_penalized
        for seen in received
        for m in seen
        if m.WhichOneof("kind") == "event" and m.event.WhichOneof("kind") == "seat_penalized"
    ]
    assert len(penalties) == len(names)  # every seat is told, briefly
    assert all(p.reason == rejection.reason and p.code == "malformed" for p in penalties)
    logged = [json.loads(line) for line in record.log_jsonl.splitlines()]
    (penalty,) = [r for r in logged if r.get("type") == "penalty"]
    assert penalty["reason"] == rejection.reason
    assert json.dumps(HOSTILE_CONTRACT[:100])[1:-1] not in record.log_jsonl

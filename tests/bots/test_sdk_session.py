"""The SDK against a scripted fake referee: hello, answers, lobby, resume, tables, errors."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from brandeln.sdk import (
    Answer,
    BadTokenError,
    Bot,
    FunctionBot,
    ProtocolError,
    ProtocolVersionError,
    SessionOptions,
    UnreachableError,
    choice_text,
    parse_choice,
    play,
)
from brandeln.sdk.session import PROTOCOL_VERSION
from brandeln.v1 import bot_pb2, cards_pb2
from tests.bots.botkit_fakes import (
    FakeReferee,
    FakeSeat,
    FakeServer,
    deal_started,
    match_ended,
    match_started,
    scripted_requests,
)


class RecordingBot(Bot):
    """Answers the last legal choice and records every hook call."""

    name = "recorder"
    version = "9.9"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        self.calls.append(f"decide {request.request_id}")
        assert self.match is not None  # the SDK set them
        assert self.deal is not None
        return request.legal[-1]

    def on_welcome(self, welcome: bot_pb2.Welcome) -> None:
        self.calls.append("welcome")

    def on_match_start(self, match: bot_pb2.MatchStarted) -> None:
        self.calls.append(f"match {match.match_id}")

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        self.calls.append(f"deal {deal.deal_number}")

    def on_event(self, event: cards_pb2.GameEvent) -> None:
        self.calls.append(f"event {event.seq}")

    def on_match_end(self, ended: bot_pb2.MatchEnded) -> None:
        self.calls.append(f"end {ended.match_id}")


async def one_match(seat: FakeSeat, match_id: str = "m1") -> None:
    await seat.send(match_started=match_started(match_id))
    await seat.send(deal_started=deal_started())
    for request in scripted_requests():
        await seat.ask(request)
    await seat.send(event=cards_pb2.GameEvent(seq=7, deal_ended=cards_pb2.DealEnded()))
    await seat.send(match_ended=match_ended(match_id))


async def one_match_then_lobby(seat: FakeSeat) -> None:
    await one_match(seat)
    await seat.until_closed()


def options(
    address: str, max_matches: int = 1, retry_for_s: float = 5.0, ca: Path | None = None
) -> SessionOptions:
    return SessionOptions(
        server=address, token="good-token", max_matches=max_matches, retry_for_s=retry_for_s, ca=ca
    )


async def test_a_session_says_hello_answers_every_request_and_returns_to_the_lobby() -> None:
    referee = FakeReferee(one_match_then_lobby)
    bots: list[RecordingBot] = []

    def factory() -> RecordingBot:
        bots.append(RecordingBot())
        return bots[-1]

    async with FakeServer(referee) as address:
        [stats] = await play(factory, options(address))

    assert referee.errors == []
    [hello] = referee.hellos
    assert hello.token == "good-token"
    assert (hello.bot_name, hello.bot_version) == ("recorder", "9.9")
    assert hello.protocol_version == PROTOCOL_VERSION == 1
    assert hello.snapshot_only is True
    assert hello.resume_match_id == ""
    seat = referee.seats[0]
    requests = scripted_requests()
    assert [a.request_id for a in seat.actions] == [r.request_id for r in requests]
    assert [choice_text(a.choice) for a in seat.actions] == [
        choice_text(r.legal[-1]) for r in requests
    ]
    assert bots[0].calls == [
        "welcome",
        "match m1",
        "deal 1",
        "decide 11",
        "decide 12",
        "decide 13",
        "decide 14",
        "event 7",
        "end m1",
    ]
    assert (stats.matches, stats.requests, stats.answers, stats.fallbacks) == (1, 4, 4, 0)
    assert stats.match_ids == ["m1"]


async def test_a_session_plays_several_matches_from_the_lobby() -> None:
    async def two_matches(seat: FakeSeat) -> None:
        await one_match(seat, "m1")
        await asyncio.sleep(0.05)  # the lobby
        await one_match(seat, "m2")
        await seat.until_closed()

    referee = FakeReferee(two_matches)
    async with FakeServer(referee) as address:
        [stats] = await play(RecordingBot, options(address, max_matches=2))
    assert referee.errors == []
    assert len(referee.hellos) == 1  # one stream served both matches
    assert stats.match_ids == ["m1", "m2"]
    assert len(referee.seats[0].actions) == 8


async def test_a_bot_that_wants_events_does_not_ask_for_snapshots_only() -> None:
    class Watcher(RecordingBot):
        wants_events = True

    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        await play(Watcher, options(address))
    assert referee.hellos[0].snapshot_only is False


async def test_n_tables_open_n_streams_each_with_its_own_bot() -> None:
    referee = FakeReferee(one_match_then_lobby)
    created: list[RecordingBot] = []

    def factory() -> RecordingBot:
        created.append(RecordingBot())
        return created[-1]

    async with FakeServer(referee) as address:
        stats = await play(factory, options(address), tables=3)
    assert referee.errors == []
    assert len(referee.hellos) == 3
    assert len(created) == 3
    assert [s.table for s in stats] == [0, 1, 2]
    assert all(s.matches == 1 and s.answers == 4 for s in stats)
    assert all(bot.calls.count("end m1") == 1 for bot in created)


async def test_a_dropped_stream_resumes_the_running_match_with_the_same_token() -> None:
    requests = scripted_requests()

    async def drop_once(seat: FakeSeat) -> None:
        if seat.stream_number == 0:
            await seat.send(match_started=match_started("m7", reconnect_ms=3000))
            await seat.send(deal_started=deal_started())
            await seat.ask(requests[0])
            await seat.send(request=requests[1])  # dropped before the answer arrives
            await seat.drop()
        else:
            # Like the real referee: the open request is sent again after the resume.
            await seat.send(match_started=match_started("m7", reconnect_ms=3000))
            await seat.send(deal_started=deal_started())
            for request in requests[1:]:
                await seat.ask(request)
            await seat.send(match_ended=match_ended("m7"))
            await seat.until_closed()

    referee = FakeReferee(drop_once)
    async with FakeServer(referee) as address:
        [stats] = await play(RecordingBot, options(address))
    assert referee.errors == []
    first, second = referee.hellos
    assert first.resume_match_id == ""
    assert second.resume_match_id == "m7"
    assert second.token == first.token == "good-token"
    assert [a.request_id for a in referee.seats[1].actions] == [12, 13, 14]
    assert (stats.streams, stats.resumes, stats.matches) == (2, 1, 1)
    assert stats.match_ids == ["m7"]


async def test_bad_token_is_reported_as_such() -> None:
    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        with pytest.raises(BadTokenError, match="bad token"):
            await play(RecordingBot, SessionOptions(server=address, token="nope"))
    assert len(referee.hellos) == 1  # no retries with a token that cannot work


async def test_an_unsupported_protocol_version_is_reported() -> None:
    referee = FakeReferee(one_match_then_lobby)
    referee.supported_versions = {2}
    async with FakeServer(referee) as address:
        with pytest.raises(ProtocolVersionError, match=r"protocol version 1 refused.*supported: 2"):
            await play(RecordingBot, options(address))


async def test_a_referee_that_is_not_there_is_reported_as_unreachable() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(UnreachableError, match=f"cannot reach the referee at 127.0.0.1:{port}"):
        await play(RecordingBot, options(f"127.0.0.1:{port}", retry_for_s=0.3))
    assert time.monotonic() - started < 5


async def test_a_listener_that_never_welcomes_is_given_up_on() -> None:
    with socket.socket() as listener:  # accepts TCP connections, never speaks HTTP/2
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(UnreachableError, match=r"no Welcome within 0\.2 s"):
            await play(
                RecordingBot,
                SessionOptions(
                    server=f"127.0.0.1:{port}",
                    token="good-token",
                    retry_for_s=0.3,
                    handshake_timeout_s=0.2,
                ),
            )
        assert time.monotonic() - started < 5


async def test_a_server_without_the_referee_service_is_a_protocol_error() -> None:
    server = grpc.aio.server()
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        with pytest.raises(ProtocolError, match=r"does not serve brandeln\.v1\.Referee"):
            await play(RecordingBot, options(f"127.0.0.1:{port}"))
    finally:
        await server.stop(None)


async def test_a_crashing_decide_answers_the_fallback_and_logs_the_traceback() -> None:
    def broken(request: bot_pb2.DecisionRequest) -> Answer:
        if request.phase == cards_pb2.PHASE_TRUMP:
            raise RuntimeError("oops in my bot")
        return len(request.legal) - 1

    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        [stats] = await play(lambda: FunctionBot(broken), options(address))
    seat = referee.seats[0]
    assert [choice_text(a.choice) for a in seat.actions] == ["herrenmord", "C", "D9", "CA"]
    assert stats.fallbacks == 1
    assert any("oops in my bot" in text and "RuntimeError" in text for text in seat.logs)


async def test_an_answer_that_is_not_legal_is_replaced_by_the_fallback() -> None:
    answers: Iterator[Answer] = iter(
        [parse_choice("pass"), 99, parse_choice("SA"), parse_choice("C9")]
    )
    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        await play(lambda: FunctionBot(lambda request: next(answers)), options(address))
    seat = referee.seats[0]
    # index 99 and SA (not in the hand) fall back to the first legal choice
    assert [choice_text(a.choice) for a in seat.actions] == ["pass", "C", "CA", "C9"]
    assert any("index 99" in text for text in seat.logs)
    assert any("returned SA, which is not legal" in text for text in seat.logs)


async def test_a_rejected_action_is_answered_once_more_with_the_first_legal_choice() -> None:
    async def reject_first(seat: FakeSeat) -> None:
        await seat.send(match_started=match_started())
        await seat.send(deal_started=deal_started())
        request = scripted_requests()[0]
        action = await seat.ask(request)
        await seat.send(
            rejected=bot_pb2.ActionRejected(
                request_id=action.request_id, code=bot_pb2.REJECT_CODE_ILLEGAL, reason="no"
            )
        )
        message = await seat.receive()
        seat.actions.append(message.action)
        await seat.send(match_ended=match_ended())
        await seat.until_closed()

    referee = FakeReferee(reject_first)
    async with FakeServer(referee) as address:
        [stats] = await play(RecordingBot, options(address))
    assert referee.errors == []
    assert [choice_text(a.choice) for a in referee.seats[0].actions] == ["herrenmord", "pass"]
    assert stats.rejections == 1


async def test_a_new_request_makes_a_slow_decision_stale() -> None:
    # The referee timed out the first request and moved on; the late answer is never sent.
    release = asyncio.Event()

    class Slow(Bot):
        decide_in_thread = False

        async def decide_async(self, request: bot_pb2.DecisionRequest) -> Answer:
            if request.request_id == 11:
                await release.wait()
            return 0

    async def timeout_first(seat: FakeSeat) -> None:
        await seat.send(match_started=match_started())
        await seat.send(deal_started=deal_started())
        requests = scripted_requests()
        await seat.send(request=requests[0])
        await asyncio.sleep(0.1)
        await seat.ask(requests[1])
        release.set()
        await seat.send(match_ended=match_ended())
        await seat.until_closed()

    referee = FakeReferee(timeout_first)
    async with FakeServer(referee) as address:
        await play(Slow, options(address))
    assert referee.errors == []
    assert [a.request_id for a in referee.seats[0].actions] == [12]


async def test_log_from_decide_reaches_the_referee() -> None:
    class Chatty(Bot):
        def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
            self.log(f"thinking about {request.request_id}")
            return 0

    referee = FakeReferee(one_match_then_lobby)
    async with FakeServer(referee) as address:
        await play(Chatty, options(address))
    assert [t for t in referee.seats[0].logs if t.startswith("thinking")] == [
        "thinking about 11",
        "thinking about 12",
        "thinking about 13",
        "thinking about 14",
    ]


async def test_a_missing_ca_file_is_reported_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such file"):
        await play(RecordingBot, options("127.0.0.1:1", ca=tmp_path / "missing.pem"))

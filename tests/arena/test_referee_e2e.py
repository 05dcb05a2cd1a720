"""The referee over real gRPC on loopback, with real bot processes (tests/arena/minimal_bot.py).

PROTOCOL.md is the contract checked here: handshake errors, what each seat receives, time
control, strikes and forfeits, resumes, concurrent matches, spectators and match logs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from subprocess import Popen

import grpc
import pytest

from brandeln.arena.codec import cards_to_pb
from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import read_log
from brandeln.arena.replay import replay_log
from brandeln.arena.store.database import RefereeStore
from brandeln.engine.cards import parse_cards
from brandeln.protocol.decode import event_from_pb
from brandeln.protocol.events import DealEndedRecord, EventRecord
from brandeln.protocol.statuses import MatchStatus, SeatOutcome
from brandeln.v1 import admin_pb2, bot_pb2, bot_pb2_grpc, cards_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses

StartBot = Callable[[str, str], Popen[str]]


async def _bots(admin: AdminClient, start: StartBot, behaviours: list[str]) -> list[str]:
    ids = []
    for n, behaviour in enumerate(behaviours):
        reply = await admin.register(f"{behaviour}-{n}")
        start(reply.token, behaviour)
        ids.append(reply.bot_id)
    await admin.wait_for_sessions(ids)
    return ids


def _received(proc: Popen[str]) -> list[dict[str, object]]:
    path = Path(proc.output_path)  # type: ignore[attr-defined]
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


async def _get_log(admin: AdminClient, match_id: str) -> str:
    reply = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=match_id), metadata=admin.metadata
    )
    return reply.log_jsonl


# The wire carries each status as an enum beside its word (the word still filled for older
# clients): the enum's name is the word in upper case, behind the enum's prefix.
def _assert_match_status_enum(summaries: Iterable[admin_pb2.MatchSummary]) -> None:
    for summary in summaries:
        assert summary.status, summary
        named = cards_pb2.MatchStatus.Name(summary.match_status)
        assert named == f"MATCH_STATUS_{summary.status.upper()}", (named, summary.status)


def _assert_session_state_enum(sessions: Iterable[admin_pb2.SessionInfo]) -> None:
    for session in sessions:
        assert session.state, session
        named = admin_pb2.SessionState.Name(session.session_state)
        assert named == f"SESSION_STATE_{session.state.upper()}", (named, session.state)


def _assert_outcome_enum(penalties: Iterable[cards_pb2.SeatPenalized]) -> None:
    for penalty in penalties:
        assert penalty.code, penalty
        named = cards_pb2.SeatOutcome.Name(penalty.outcome)
        assert named == f"SEAT_OUTCOME_{penalty.code.upper()}", (named, penalty.code)


async def test_full_match_between_four_bot_processes(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["first", "last", "first", "last"])
    waiting = await admin.stub.ListSessions(
        admin_pb2.ListSessionsRequest(), metadata=admin.metadata
    )
    assert {s.state for s in waiting.sessions} == {"lobby"}
    _assert_session_state_enum(waiting.sessions)
    updates, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, ruleset="standard", deals=8, seed=7)
    )
    assert result.status == "finished"
    assert result.match_status == cards_pb2.MATCH_STATUS_FINISHED
    assert result.deals_played == 8
    assert sum(result.balances) == 0  # R10.4
    assert sorted(result.ranks)[0] == 1
    assert list(result.forfeited) == []
    events = [u.event for u in updates if u.WhichOneof("kind") == "event"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(1 for e in events if e.WhichOneof("kind") == "deal_ended") == 8
    text = await _get_log(admin, result.match_id)
    report = replay_log(text)
    assert report.reproduced, report.problems
    assert report.replayed_balances == tuple(result.balances)
    # The log holds every public event the operator streamed, in order, of the same kinds.
    logged = read_log(text).public_events()
    assert [e.seq for e in logged] == [e.seq for e in events]
    assert [e.kind for e in logged] == [e.WhichOneof("kind") for e in events]
    # And the same records: a streamed deal end has what the log keeps elsewhere on top (the
    # match balances, the pool, every hand: the deal record has the hands).
    streamed = [event_from_pb(e) for e in events]
    assert [_as_logged(e) for e in streamed] == logged
    # The index says what the result said, the status's enum as its word.
    got = await admin.stub.GetMatch(
        admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
    )
    listed = await admin.stub.ListMatches(admin_pb2.ListMatchesRequest(), metadata=admin.metadata)
    assert got.summary.status == listed.matches[0].status == "finished"
    _assert_match_status_enum([result, got.summary, *listed.matches])


def _as_logged(event: object) -> EventRecord:
    """A streamed event as the log records it (a deal end without what the log keeps
    elsewhere)."""
    assert isinstance(event, EventRecord), event
    if isinstance(event.body, DealEndedRecord):
        body = dataclasses.replace(event.body, balances=(), hands=(), pool=None)
        return dataclasses.replace(event, body=body)
    return event


async def test_a_seat_never_receives_another_seats_cards(
    admin: AdminClient, start_minimal_bot: StartBot, bot_processes: BotProcesses
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["first", "first", "last", "last"])
    _, result = await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=3))
    log = read_log(await _get_log(admin, result.match_id))
    dealt = {deal.number: deal.record.hands for deal in log.deals()}
    await asyncio.sleep(0.2)  # the bots flush each line; let the last ones land
    # Every process saw only its own hand outside DealEnded.
    for proc in bot_processes.procs:
        seat = None
        ended = []
        for line in _received(proc):
            msg = line.get("msg", {})
            assert isinstance(msg, dict)
            if "matchStarted" in msg:
                seat = msg["matchStarted"].get("seat", 0)
                continue
            if "matchEnded" in msg:
                ended.append(msg["matchEnded"])
            if "event" in msg and "dealEnded" in msg["event"]:
                continue
            assert "hands" not in json.dumps(msg), msg
            for key in ("dealStarted", "request"):
                if key in msg:
                    body = msg[key]
                    hand = body.get("hand") or body.get("view", {}).get("hand", [])
                    number = body.get("dealNumber") or body.get("view", {}).get("dealNumber")
                    assert seat is not None  # MatchStarted comes first
                    own = dealt[number][seat].split()
                    for card in hand:
                        assert _notation(card) in own
        # Its MatchEnded says how the match ended twice: as a word and as the enum.
        assert [(e["status"], e["matchStatus"]) for e in ended] == [
            ("finished", "MATCH_STATUS_FINISHED")
        ]
    assert result.status == "finished"


_SUITS = {"SUIT_CLUBS": "C", "SUIT_SPADES": "S", "SUIT_HEARTS": "H", "SUIT_DIAMONDS": "D"}
_RANKS = {
    "RANK_SEVEN": "7",
    "RANK_EIGHT": "8",
    "RANK_NINE": "9",
    "RANK_TEN": "T",
    "RANK_JACK": "J",
    "RANK_QUEEN": "Q",
    "RANK_KING": "K",
    "RANK_ACE": "A",
}


def _notation(card: dict[str, str]) -> str:
    return _SUITS[card["suit"]] + _RANKS[card["rank"]]


async def _handshake_error(
    address: str, first: bot_pb2.BotMessage, *more: bot_pb2.BotMessage
) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.RefereeStub(channel)
        call = stub.Play(iter([first, *more]))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in call:
                pass
        return caught.value


async def test_bad_token_is_unauthenticated(referee: EmbeddedReferee) -> None:
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token="made-up", protocol_version=1))
    error = await _handshake_error(referee.address, hello)
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_unsupported_version_names_the_supported_ones(
    referee: EmbeddedReferee, admin: AdminClient
) -> None:
    token = (await admin.register("v9")).token
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=9))
    error = await _handshake_error(referee.address, hello)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "1" in (error.details() or "")


async def test_first_message_must_be_hello(referee: EmbeddedReferee) -> None:
    action = bot_pb2.BotMessage(action=bot_pb2.Action(request_id=1))
    error = await _handshake_error(referee.address, action)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_second_hello_is_invalid_argument(
    referee: EmbeddedReferee, admin: AdminClient
) -> None:
    token = (await admin.register("twice")).token
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=1))
    error = await _handshake_error(referee.address, hello, hello)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_oversize_message_is_invalid_argument(
    referee: EmbeddedReferee, admin: AdminClient
) -> None:
    token = (await admin.register("big")).token
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, protocol_version=1))
    big = bot_pb2.BotMessage(log=bot_pb2.BotLog(text="x" * 100_000))
    error = await _handshake_error(referee.address, hello, big)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_admin_calls_need_the_admin_token(referee: EmbeddedReferee) -> None:
    wrong = AdminClient(referee.address, "wrong")
    try:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await wrong.register("x")
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await wrong.close()


async def test_illegal_card_is_rejected_with_a_strike_then_a_legal_one_is_accepted(
    admin: AdminClient, start_minimal_bot: StartBot, bot_processes: BotProcesses
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["illegal", "first", "first", "first"])
    updates, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=11)
    )
    assert result.status == "finished"
    assert list(result.strikes) == [1, 0, 0, 0]
    assert list(result.forfeited) == []
    penalties = [
        u.event.seat_penalized
        for u in updates
        if u.WhichOneof("kind") == "event" and u.event.WhichOneof("kind") == "seat_penalized"
    ]
    assert [(p.seat, p.code) for p in penalties] == [(0, "illegal")]
    assert [p.outcome for p in penalties] == [cards_pb2.SEAT_OUTCOME_ILLEGAL]
    _assert_outcome_enum(penalties)
    proc = _processes_for(bot_processes, "illegal")
    rejected = [line for line in _received(proc) if line["kind"] == "rejected"]
    assert len(rejected) == 1
    assert rejected[0]["msg"]["rejected"]["code"] == "REJECT_CODE_ILLEGAL"  # type: ignore[index]
    log = read_log(await _get_log(admin, result.match_id))
    assert any(p.code is SeatOutcome.ILLEGAL for p in log.penalties())
    assert replay_log(await _get_log(admin, result.match_id)).reproduced


def _processes_for(bots: BotProcesses, behaviour: str) -> Popen[str]:
    for proc in bots.procs:
        if behaviour in " ".join(proc.args):  # type: ignore[arg-type]
            return proc
    raise AssertionError(behaviour)


async def test_silent_bot_gets_fallbacks_strikes_and_forfeits(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["silent", "first", "first", "first"])
    # The move time binds every seat; it is generous enough for the answering bots on a loaded
    # machine, and the silent one costs the match only 3 x 300 ms before it forfeits.
    tc = cards_pb2.TimeControl(move_ms=300, bank_ms=1, max_strikes=3, reconnect_ms=1000)
    updates, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=5, time_control=tc)
    )
    assert result.status == "finished"
    assert list(result.forfeited) == [0]
    assert result.strikes[0] == 3
    assert result.ranks[0] == max(result.ranks)  # a forfeit ranks last whatever its chips
    penalized = [
        u.event.seat_penalized
        for u in updates
        if u.WhichOneof("kind") == "event"
        and u.event.WhichOneof("kind") == "seat_penalized"
        and u.event.seat_penalized.seat == 0
    ]
    codes = [p.code for p in penalized]
    assert codes == ["timeout", "timeout", "timeout", "forfeited"]
    _assert_outcome_enum(penalized)
    assert replay_log(await _get_log(admin, result.match_id)).reproduced


async def test_a_bot_that_drops_and_resumes_keeps_its_seat(
    admin: AdminClient, start_minimal_bot: StartBot, bot_processes: BotProcesses
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["drop", "first", "first", "first"])
    tc = cards_pb2.TimeControl(move_ms=2000, bank_ms=5000, max_strikes=3, reconnect_ms=5000)
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=9, time_control=tc)
    )
    assert result.status == "finished"
    assert list(result.forfeited) == []
    assert list(result.strikes) == [0, 0, 0, 0]
    lines = _received(_processes_for(bot_processes, "drop"))
    assert sum(1 for line in lines if line["kind"] == "welcome") == 2
    assert sum(1 for line in lines if line["kind"] == "match_started") == 2


async def test_two_matches_at_once_without_cross_talk(
    admin: AdminClient, start_minimal_bot: StartBot, bot_processes: BotProcesses
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["first"] * 4 + ["last"] * 4)
    (_, a), (_, b) = await asyncio.gather(
        admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids[:4], deals=4, seed=1)),
        admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids[4:], deals=4, seed=2)),
    )
    assert a.status == b.status == "finished"
    for summary, group in ((a, ids[:4]), (b, ids[4:])):
        log = read_log(await _get_log(admin, summary.match_id))
        assert [s.bot_id for s in log.header.seats] == group
        assert replay_log(await _get_log(admin, summary.match_id)).reproduced
    for proc in bot_processes.procs:
        started = [line for line in _received(proc) if line["kind"] == "match_started"]
        assert len(started) == 1


async def test_a_spectator_sees_public_events_and_no_hidden_card(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["first", "last", "first", "last"])
    stream = admin.stub.RunMatch(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=4), metadata=admin.metadata
    )
    first = await stream.read()
    assert isinstance(first, admin_pb2.MatchUpdate)
    assert first.WhichOneof("kind") == "started"
    match_id = first.started.match_id
    watched = [
        e
        async for e in admin.stub.WatchMatch(
            admin_pb2.WatchMatchRequest(match_id=match_id), metadata=admin.metadata
        )
    ]
    rest: list[admin_pb2.MatchUpdate] = []
    while isinstance(update := await stream.read(), admin_pb2.MatchUpdate):
        rest.append(update)
    assert rest[-1].result.status == "finished"
    assert [e.seq for e in watched] == list(range(1, len(watched) + 1))
    kinds = {e.WhichOneof("kind") for e in watched}
    assert {"bid_made", "card_played", "trick_taken", "deal_ended"} <= kinds
    # Hands are public only in DealEnded, after the deal.
    for event in watched:
        if event.WhichOneof("kind") != "deal_ended":
            assert "hands" not in str(event)


async def test_run_match_with_an_unknown_bot_or_ruleset_is_invalid_argument(
    admin: AdminClient,
) -> None:
    for request in (
        admin_pb2.RunMatchRequest(bot_ids=["nope"] * 4),
        admin_pb2.RunMatchRequest(bot_ids=["a"], ruleset="poker"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await admin.run_match(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_run_match_fails_clearly_when_a_bot_never_connects(admin: AdminClient) -> None:
    ids = [(await admin.register(f"ghost{n}")).bot_id for n in range(4)]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await admin.run_match(admin_pb2.RunMatchRequest(bot_ids=ids, seat_wait_ms=200))
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert ids[0] in (caught.value.details() or "")


async def test_fixed_deals_and_suit_permutation_are_played_as_given(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["first"] * 4)
    hands = [
        "CA CK CQ CJ CT C9 C7",
        "SA SK SQ SJ ST S9 S7",
        "HA HK HQ HJ HT H9 H7",
        "DA DK DQ DJ DT D9 D7",
    ]
    fixed = admin_pb2.FixedDeal(
        dealer=3,
        hands=[
            cards_pb2.Hand(seat=s, cards=cards_to_pb(parse_cards(h))) for s, h in enumerate(hands)
        ],
    )
    perm = [
        cards_pb2.SUIT_SPADES,
        cards_pb2.SUIT_CLUBS,
        cards_pb2.SUIT_HEARTS,
        cards_pb2.SUIT_DIAMONDS,
    ]
    _, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, fixed_deals=[fixed], suit_permutation=perm)
    )
    assert result.deals_played == 1
    log = read_log(await _get_log(admin, result.match_id))
    deal = log.deals()[0].record
    assert deal.hands[0].split()[0].startswith("S")  # clubs relabelled as spades
    assert deal.dealer == 3
    assert replay_log(await _get_log(admin, result.match_id)).reproduced


async def test_stopping_the_referee_records_a_running_match_as_aborted(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    referee = await EmbeddedReferee(tmp_path / "ref").start()
    admin = AdminClient(referee.address, referee.admin_token)
    try:
        ids = []
        for n in range(4):
            reply = await admin.register(f"slow{n}")
            bot_processes.start([MINIMAL_BOT, referee.address, reply.token, "silent"])
            ids.append(reply.bot_id)
        await admin.wait_for_sessions(ids)
        stream = admin.stub.RunMatch(
            admin_pb2.RunMatchRequest(bot_ids=ids, deals=4), metadata=admin.metadata
        )
        first = await stream.read()
        assert isinstance(first, admin_pb2.MatchUpdate)
        match_id = first.started.match_id
        # The silent seats hold the match running: it and its seats say so, enum and word.
        seated = await admin.stub.ListSessions(
            admin_pb2.ListSessionsRequest(), metadata=admin.metadata
        )
        assert sorted(s.bot_id for s in seated.sessions if s.state == "seated") == sorted(ids)
        _assert_session_state_enum(seated.sessions)
        running = await admin.stub.GetMatch(
            admin_pb2.GetMatchRequest(match_id=match_id), metadata=admin.metadata
        )
        assert running.summary.status == "running"
        assert running.summary.match_status == cards_pb2.MATCH_STATUS_RUNNING
        await referee.stop()
        stream.cancel()
    finally:
        await admin.close()
    store = RefereeStore(tmp_path / "ref" / "referee.db")
    record = store.match(match_id)
    assert record.status == "aborted"
    assert store.integrity_ok()
    log = read_log(Path(record.log_path).read_text())
    assert log.footer is not None
    assert log.footer.status is MatchStatus.ABORTED
    store.close()


async def test_summary_updates_stream_only_contracts_deal_ends_and_penalties(
    admin: AdminClient, start_minimal_bot: StartBot
) -> None:
    ids = await _bots(admin, start_minimal_bot, ["illegal", "first", "first", "first"])
    updates, result = await admin.run_match(
        admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=6, summary_updates=True)
    )
    assert result.status == "finished"
    kinds = [u.WhichOneof("kind") for u in updates]
    assert kinds[0] == "started"
    assert kinds[-1] == "result"
    events = [u.event.WhichOneof("kind") for u in updates if u.WhichOneof("kind") == "event"]
    assert set(events) == {"contract_set", "deal_ended", "seat_penalized"}
    assert events.count("deal_ended") == 4
    # The sequence numbers still count every public event, so the gaps show what was left out.
    seqs = [u.event.seq for u in updates if u.WhichOneof("kind") == "event"]
    assert seqs == sorted(seqs)
    assert seqs[-1] > len(seqs)

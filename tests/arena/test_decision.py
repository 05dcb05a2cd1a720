"""One decision under time control (brandeln.arena.decision), on the fake clock: no table, no
sleeping."""

from __future__ import annotations

from brandeln.arena import codec
from brandeln.arena.decision import Decider
from brandeln.arena.limits import ProtocolLimits
from brandeln.arena.seat import Outgoing, Seat, SeatOutcome
from brandeln.arena.timecontrol import SeatClock, TimeControlSettings
from brandeln.engine.actions import Action, Bid
from brandeln.engine.phase import Phase
from brandeln.v1 import bot_pb2
from tests.arena.test_timecontrol import FakeClock

LEGAL: list[Action] = [Bid("pass"), Bid("sauspiel")]


class Sink:
    snapshot_only = False

    def __init__(self) -> None:
        self.sent: list[Outgoing] = []

    def send(self, message: Outgoing) -> None:
        self.sent.append(message)


def _setup(
    tc: TimeControlSettings,
) -> tuple[FakeClock, Decider, Seat, Sink, list[tuple[SeatOutcome, str, bool]]]:
    clock = FakeClock()
    penalties: list[tuple[SeatOutcome, str, bool]] = []
    decider = Decider(
        clock,
        tc,
        ProtocolLimits(),
        lambda seat, outcome, reason, strike: penalties.append((outcome, reason, strike)),
        lambda seat, text: None,
    )
    sink = Sink()
    seat = Seat(0, "b0", "bot0", "t", SeatClock(tc.move_ms, tc.bank_ms), session=sink)
    return clock, decider, seat, sink, penalties


def _build(request_id: int, move_ms: int, bank_ms: int) -> bytes:
    return bytes([request_id, move_ms // 100, bank_ms // 100])


def _answer(request_id: int, contract: str) -> bot_pb2.BotMessage:
    choice = codec.action_to_choice(Bid(contract))
    return bot_pb2.BotMessage(action=bot_pb2.Action(request_id=request_id, choice=choice))


def _illegal(action: Action) -> str | None:
    return None


async def test_a_legal_answer_is_the_decision_with_its_latency_charged_to_the_seat() -> None:
    clock, decider, seat, sink, penalties = _setup(TimeControlSettings(move_ms=500, bank_ms=1000))

    def answer_late(message: Outgoing) -> None:
        sink.sent.append(message)
        clock.advance(0.7)  # answered 700 ms after the request: 200 ms of bank
        seat.inbox.put_nowait(_answer(1, "sauspiel"))

    sink.send = answer_late  # type: ignore[method-assign]
    decision = await decider.decide(seat, Phase.AUCTION, LEGAL, _illegal, _build)
    assert (decision.action, decision.outcome, decision.request_id) == (
        Bid("sauspiel"),
        SeatOutcome.OK,
        1,
    )
    assert sink.sent == [bytes([1, 5, 10])]  # the request as built: id, move and bank left
    assert seat.clock.bank_ms == 800
    assert penalties == []


async def test_silence_times_out_after_move_and_bank_with_the_fallback_and_a_strike() -> None:
    clock, decider, seat, _sink, penalties = _setup(TimeControlSettings(move_ms=500, bank_ms=1000))
    decision = await decider.decide(seat, Phase.AUCTION, LEGAL, _illegal, _build)
    assert (decision.action, decision.outcome, decision.request_id) == (
        Bid("pass"),
        SeatOutcome.TIMEOUT,
        0,
    )
    assert decision.latency_ms == 1500
    assert clock.waited == 1.5
    assert [(p[0], p[2]) for p in penalties] == [(SeatOutcome.TIMEOUT, True)]


async def test_an_illegal_answer_is_rejected_and_struck_and_a_legal_one_then_counts() -> None:
    _clock, decider, seat, sink, penalties = _setup(TimeControlSettings(move_ms=500, bank_ms=0))
    seat.inbox.put_nowait(_answer(1, "sauspiel"))
    seat.inbox.put_nowait(_answer(1, "pass"))

    def no_sauspiel(action: Action) -> str | None:
        return "not now" if action == Bid("sauspiel") else None

    decision = await decider.decide(seat, Phase.AUCTION, LEGAL, no_sauspiel, _build)
    assert (decision.action, decision.outcome) == (Bid("pass"), SeatOutcome.OK)
    rejected = bot_pb2.RefereeMessage.FromString(
        codec.rejected(1, codec.Rejection.ILLEGAL, "x").SerializeToString()
    )
    sent = [m for m in sink.sent if isinstance(m, bot_pb2.RefereeMessage)]
    assert [m.rejected.code for m in sent] == [rejected.rejected.code]
    assert [(p[0], p[2]) for p in penalties] == [(SeatOutcome.ILLEGAL, True)]


async def test_a_forfeited_seat_is_sent_nothing_and_plays_the_fallback() -> None:
    _clock, decider, seat, sink, penalties = _setup(TimeControlSettings())
    seat.forfeited = True
    decision = await decider.decide(seat, Phase.AUCTION, LEGAL, _illegal, _build)
    assert (decision.action, decision.outcome, decision.latency_ms) == (
        Bid("pass"),
        SeatOutcome.FORFEITED,
        0,
    )
    assert sink.sent == []
    assert penalties == []

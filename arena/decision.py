"""One decision of one seat under time control: ask, wait, check the answer, or fall back.

:meth:`Decider.decide` sends a seat its request, reads the seat's inbox until a legal answer,
the deadline (the seat's move time and bank, brandeln.arena.timecontrol) or a drop with no resume in
time, and returns a :class:`Decision`: the action, how it ended and its latency. Penalties and
bot log lines go back to the table through the two callbacks. The clock is brandeln.arena.clock's,
so a fake clock runs every timeout without sleeping (tests/arena/test_decision.py).

Every table of a referee counts what its decisions did in one
:class:`brandeln.arena.decision_counts.DecisionCounts`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from brandeln.arena import codec
from brandeln.arena.clock import Clock
from brandeln.arena.decision_counts import DecisionCounts
from brandeln.arena.faults import FAULT_REJECTION_REASON, FaultPolicy, RequestFault, offered_choices
from brandeln.arena.limits import MAX_MESSAGES_PER_REQUEST, ProtocolLimits, as_shown, clip
from brandeln.arena.seat import Seat, SeatOutcome, Signal
from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.actions import Action
from brandeln.engine.phase import Phase
from brandeln.engine.state import DealState

# How much of an illegal action a rejection's reason quotes (it may hold the bot's own text).
SHOWN_ACTION_CHARS = 80

__all__ = [
    "Decider",
    "Decision",
    "RequestBuilder",
    "ask_seat",
]

# Builds the serialized request from its id and the time left (move ms, bank ms): it is built
# again, with the time then left, when the request is re-sent after a resume.
RequestBuilder = Callable[[int, int, int], bytes]
Penalize = Callable[[Seat, SeatOutcome, str, bool], None]
BotLog = Callable[[Seat, str], None]
DropStream = Callable[[Seat], None]


# Not frozen: one is made per decision, and a frozen dataclass's __init__ (object.__setattr__
# per field) costs several times a plain one's. Nothing changes it once returned.
@dataclass(slots=True)
class Decision:
    action: Action
    outcome: SeatOutcome
    request_id: int  # 0 when no request was answered (the fallback played)
    latency_ms: int


class Decider:
    """Asks the seats of one table; numbers its requests from 1."""

    def __init__(
        self,
        clock: Clock,
        time_control: TimeControlSettings,
        limits: ProtocolLimits,
        penalize: Penalize,
        bot_log: BotLog,
        *,
        faults: FaultPolicy | None = None,
        match_id: str = "",
        drop_stream: DropStream | None = None,
        counts: DecisionCounts | None = None,
    ) -> None:
        self.clock = clock
        # The referee's, shared by its tables; a table made on its own counts for itself.
        self.counts = counts if counts is not None else DecisionCounts()
        # Deliberate faults (brandeln.arena.faults; `bot check`, tests): None where a peer reaches.
        self.faults = faults
        self.match_id = match_id
        self._drop_stream = drop_stream
        self.deal_number = 0  # the deal in play, kept by the table (for the fault policy)
        self.time_control = time_control
        self.limits = limits
        self._penalize = penalize
        self._bot_log = bot_log
        self._request_ids = itertools.count(1)

    async def decide(
        self,
        seat: Seat,
        phase: Phase,
        legal: Sequence[Action],
        illegal_reason: Callable[[Action], str | None],
        build: RequestBuilder,
    ) -> Decision:
        """The seat's decision; the fallback (R12.3: the first legal choice) when it fails."""
        fallback = legal[0]
        if seat.forfeited:
            self.counts.decided(SeatOutcome.FORFEITED)
            return Decision(fallback, SeatOutcome.FORFEITED, 0, 0)
        clock = self.clock
        request_id = next(self._request_ids)
        started = clock.now()
        deadline = started + seat.clock.available_ms() / 1000

        def send_request() -> None:
            left_ms = max(0, int((deadline - clock.now()) * 1000))
            move_left = min(seat.clock.move_ms, left_ms)
            seat.pending = build(request_id, move_left, left_ms - move_left)
            seat.send(seat.pending)

        fault = RequestFault.NONE
        if self.faults is not None:
            fault = self.faults.request_fault(
                self.match_id, seat.index, request_id, self.deal_number, phase
            )
        send_request()
        if fault is RequestFault.SEND_TWICE and seat.pending is not None:
            seat.send(seat.pending)
        elif fault is RequestFault.DROP_STREAM and self._drop_stream is not None:
            self._drop_stream(seat)
        reject_next = fault is RequestFault.REJECT_FIRST_ANSWER
        messages = 0
        try:
            while True:
                if seat.session is None:
                    if not await self._await_resume(seat):
                        return self._fail(seat, fallback, started, SeatOutcome.DISCONNECTED)
                    # The time spent away does not count against the seat (PROTOCOL.md: the
                    # open request is sent again), so the deadline moves with it.
                    deadline = max(deadline, clock.now() + seat.clock.move_ms / 1000)
                    send_request()
                    continue
                item = await clock.get(seat.inbox, deadline - clock.now())
                if item is None:
                    self._strike(
                        seat,
                        SeatOutcome.TIMEOUT,
                        f"no legal answer to request {request_id} in time",
                    )
                    return self._fail(seat, fallback, started, SeatOutcome.TIMEOUT)
                if isinstance(item, Signal):
                    if item is Signal.RESUMED and seat.pending is not None:
                        send_request()
                    continue
                if item.WhichOneof("kind") == "log":
                    self._bot_log(seat, item.log.text)
                    continue
                if (
                    reject_next
                    and item.WhichOneof("kind") == "action"
                    and item.action.request_id == request_id
                ):
                    # The injected rejection: no strike, the request stays open.
                    reject_next = False
                    self._reject(seat, request_id, codec.Rejection.ILLEGAL, FAULT_REJECTION_REASON)
                    continue
                messages += 1
                if messages > MAX_MESSAGES_PER_REQUEST:
                    self._strike(
                        seat,
                        SeatOutcome.PROTOCOL_ERROR,
                        f"more than {MAX_MESSAGES_PER_REQUEST} messages for one request",
                    )
                    if seat.forfeited:
                        return self._fail(seat, fallback, started, SeatOutcome.FORFEITED)
                    continue
                action = self._accept(seat, item, request_id, phase, illegal_reason)
                if action is not None and clock.now() > deadline:
                    # Queued after the deadline (the wait and the answer crossed): too late.
                    self._strike(
                        seat,
                        SeatOutcome.TIMEOUT,
                        f"the answer to request {request_id} came after the deadline",
                    )
                    return self._fail(seat, fallback, started, SeatOutcome.TIMEOUT)
                if action is not None:
                    elapsed = clock.now() - started
                    elapsed_ms = int(elapsed * 1000)
                    seat.last_rtt_ms = elapsed_ms
                    seat.clock.charge(elapsed_ms)
                    self.counts.timed(SeatOutcome.OK, elapsed)
                    return Decision(action, SeatOutcome.OK, request_id, elapsed_ms)
                if seat.forfeited:
                    return self._fail(seat, fallback, started, SeatOutcome.FORFEITED)
        finally:
            seat.pending = None

    def _reject(self, seat: Seat, request_id: int, rejection: codec.Rejection, reason: str) -> None:
        self.counts.rejected(rejection)
        seat.send(codec.rejected(request_id, rejection, reason))
        if self.faults is not None:
            self.faults.rejected(self.match_id, seat.index, request_id, rejection)

    def _strike(self, seat: Seat, outcome: SeatOutcome, reason: str) -> None:
        self._penalize(seat, outcome, reason, True)

    def _accept(
        self,
        seat: Seat,
        message: codec.BotMessage,
        request_id: int,
        phase: Phase,
        illegal_reason: Callable[[Action], str | None],
    ) -> Action | None:
        """The action a message carries if it is a legal answer; else reject it (and strike)."""

        def reject(
            rejection: codec.Rejection, outcome: SeatOutcome, reason: str, strike: bool
        ) -> None:
            reason = clip(reason, self.limits.reason_chars)
            self._reject(seat, message.action.request_id, rejection, reason)
            if strike:
                self._strike(seat, outcome, reason)

        if message.WhichOneof("kind") != "action":
            reject(
                codec.Rejection.MALFORMED,
                SeatOutcome.PROTOCOL_ERROR,
                "expected an action (hello is sent once, first)",
                True,
            )
            return None
        if message.action.request_id != request_id:
            # A late answer to an earlier request was already dealt with when it timed out;
            # rejecting it is enough (no second strike for one lateness).
            reject(
                codec.Rejection.STALE_REQUEST,
                SeatOutcome.PROTOCOL_ERROR,
                f"request {message.action.request_id} is not open; the open one is {request_id}",
                False,
            )
            return None
        # One name per except clause: compiled (mypyc, setup.py), a name the clauses share
        # takes the first clause's type, and a CodecError caught by the second fails its check.
        try:
            action = codec.choice_to_action(message.action.choice, phase, self.limits)
        except codec.WrongPhaseError as wrong_phase:
            reject(codec.Rejection.WRONG_PHASE, SeatOutcome.MALFORMED, str(wrong_phase), True)
            return None
        except codec.CodecError as malformed:
            reject(codec.Rejection.MALFORMED, SeatOutcome.MALFORMED, str(malformed), True)
            return None
        reason = illegal_reason(action)
        if reason is None:
            return action
        # The action may carry the bot's own text (a contract no ruleset has): shown escaped.
        shown = as_shown(str(action), SHOWN_ACTION_CHARS)
        reject(codec.Rejection.ILLEGAL, SeatOutcome.ILLEGAL, f"{shown} is illegal: {reason}", True)
        return None

    async def _await_resume(self, seat: Seat) -> bool:
        """Wait for a dropped seat to come back within reconnect_ms of its drop."""
        limit = (seat.disconnected_at or self.clock.now()) + self.time_control.reconnect_ms / 1000
        while seat.session is None:
            item = await self.clock.get(seat.inbox, limit - self.clock.now())
            if item is None:
                return False
        return True

    def _fail(self, seat: Seat, fallback: Action, started: float, outcome: SeatOutcome) -> Decision:
        elapsed = self.clock.now() - started
        elapsed_ms = int(elapsed * 1000)
        self.counts.timed(outcome, elapsed)
        seat.clock.charge(elapsed_ms)
        seat.last_rtt_ms = elapsed_ms
        if outcome is SeatOutcome.DISCONNECTED and not seat.forfeited:
            seat.forfeited = True
            self._penalize(
                seat,
                SeatOutcome.DISCONNECTED,
                f"no resume within {self.time_control.reconnect_ms} ms: forfeited",
                False,
            )
        return Decision(fallback, outcome, 0, elapsed_ms)


async def ask_seat(
    decider: Decider,
    seat: Seat,
    state: DealState,
    *,
    match_balances: Sequence[int],
    deal_number: int,
    faults: FaultPolicy | None,
    match_id: str,
) -> Decision:
    """A table's decision: the seat to act in ``state`` asked under time control, its request
    built from its view with the match layer's part (``match_balances``, ``deal_number``); a
    forfeited seat is asked nothing (the fallback plays)."""
    legal = state.legal_actions()
    illegal_reason: Callable[[Action], str | None] = state.illegal_reason
    if faults is not None:
        legal, illegal_reason = offered_choices(
            faults, match_id, seat.index, deal_number, state, legal
        )
    if seat.forfeited:
        return await decider.decide(seat, state.phase, legal, illegal_reason, _none)
    view = state.view(seat.index)
    phase = state.phase

    def build(request_id: int, move_ms: int, bank_ms: int) -> bytes:
        # The match layer's part of the view is filled in by the codec (cheaper than a replace).
        return codec.decision_request_bytes(
            request_id,
            phase,
            legal,
            view,
            move_ms,
            bank_ms,
            seat.strikes,
            seat.last_rtt_ms,
            match_balances=match_balances,
            deal_number=deal_number,
        )

    return await decider.decide(seat, phase, legal, illegal_reason, build)


def _none(request_id: int, move_ms: int, bank_ms: int) -> bytes:
    raise AssertionError("a forfeited seat is sent no request")

"""One match at one table: deals, asks the seated bots for their decisions, enforces time
control and strikes, publishes public events, and leaves a log and an index row.

The rules are the engine's; this module only drives them. What each seat is sent is exactly
PROTOCOL.md: ``MatchStarted``, ``DealStarted`` with its own hand, ``DecisionRequest`` with the
legal choices and a snapshot view, every public ``GameEvent`` numbered from 1 (a
``snapshot_only`` seat only ``DealEnded``), ``MatchEnded``. A seat never receives another seat's
cards while a deal is live: hands appear only in ``DealEnded``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import codec
from arena.clock import Clock
from arena.limits import (
    BOT_LOG_BYTES_PER_MATCH,
    MAX_MESSAGES_PER_REQUEST,
    ProtocolLimits,
    clip,
)
from arena.matchlog import MatchLogWriter, event_record, hands_record
from arena.seat import Seat, SeatOutcome, Signal
from arena.session import SeatSession
from arena.store import RefereeStore, now_ms
from arena.summaries import record_of
from arena.timecontrol import SeatClock, TimeControlSettings
from brandeln.v1 import admin_pb2, bot_pb2, cards_pb2
from engine.actions import Action
from engine.dealing import Deal, deal_cards
from engine.events import DealEnded, Event
from engine.match import MatchState
from engine.permutation import SuitPermutation
from engine.phase import Phase
from engine.rulesets import SWITCHES, Ruleset
from engine.state import DealState

__all__ = ["MatchSpec", "Seat", "SeatOutcome", "Table"]

PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class MatchSpec:
    """Everything that defines a match before it starts."""

    match_id: str
    ruleset: Ruleset
    bot_ids: tuple[str, ...]
    deals: int
    seed: int
    first_dealer: int
    fixed_deals: tuple[Deal, ...]
    permutation: SuitPermutation
    time_control: TimeControlSettings


Observer = Callable[[admin_pb2.MatchUpdate], None]
# The events a summary observer (RunMatchRequest.summary_updates) is sent.
SUMMARY_EVENTS = frozenset({"contract_set", "deal_ended", "seat_penalized"})


class Table:
    """Runs one match. Create, then ``await run()``; cancel the task to abort the match."""

    def __init__(
        self,
        spec: MatchSpec,
        sessions: Sequence[SeatSession],
        store: RefereeStore,
        logs_dir: Path,
        clock: Clock,
        server_version: str,
        hello_names: Sequence[str] = (),
        *,
        limits: ProtocolLimits | None = None,
    ) -> None:
        self.spec = spec
        self.limits = limits or ProtocolLimits()
        self.store = store
        self.clock = clock
        self.server_version = server_version
        tc = spec.time_control
        self.seats = [
            Seat(
                index=i,
                bot_id=s.bot_id,
                bot_name=s.bot_name,
                bot_version=s.bot_version,
                clock=SeatClock(tc.move_ms, tc.bank_ms),
                hello_name=hello_names[i] if i < len(hello_names) else "",
            )
            for i, s in enumerate(sessions)
        ]
        for seat, session in zip(self.seats, sessions, strict=True):
            self.bind(seat, session)
        self.log_path = logs_dir / f"{spec.match_id}.jsonl"
        self.log = MatchLogWriter(self.log_path)
        self.match = MatchState.new(spec.ruleset, spec.deals, spec.first_dealer)
        self.deal_number = 0
        self.deals_played = 0
        self.status = "running"
        self.started_at = now_ms()
        self.ended_at = 0
        self.penalties: list[dict[str, Any]] = []
        self._seq = itertools.count(1)
        self._request_ids = itertools.count(1)
        self.observers: list[Observer] = []
        self.summary_observers: list[Observer] = []
        self.watchers: list[asyncio.Queue[cards_pb2.GameEvent | None]] = []
        self.history: list[cards_pb2.GameEvent] = []  # for spectators who join late
        self.summary: admin_pb2.MatchSummary | None = None
        self.done = asyncio.Event()
        self._state: DealState | None = None
        self._decision: dict[str, Any] | None = None  # the decision awaiting its event's seq
        self.header: dict[str, Any] = {}  # the log's header record, once written

    # --- sessions --------------------------------------------------------------------------
    def bind(self, seat: Seat, session: SeatSession) -> None:
        seat.session = session
        session.seat_at(self.spec.match_id, seat)
        seat.disconnected_at = None

    def seat_of_bot(self, bot_id: str) -> Seat | None:
        """A disconnected seat of this bot, for a resume."""
        for seat in self.seats:
            if seat.bot_id == bot_id and seat.session is None:
                return seat
        return None

    def disconnect(self, seat: Seat) -> None:
        """The seat's stream ended: keep the seat open for a resume (PROTOCOL.md)."""
        seat.session = None
        seat.disconnected_at = self.clock.now()
        seat.inbox.put_nowait(Signal.DISCONNECTED)

    def resume(self, seat: Seat, session: SeatSession) -> None:
        """A new stream of the same bot takes the seat back; it gets the match and deal again
        and, if a request is open, that request."""
        self.bind(seat, session)
        session.send(self._match_started(seat.index))
        if self.deal_number and self._state is not None:
            session.send(self._deal_started(seat.index))
        seat.inbox.put_nowait(Signal.RESUMED)

    # --- messages --------------------------------------------------------------------------
    def _match_started(self, seat: int) -> bot_pb2.RefereeMessage:
        return bot_pb2.RefereeMessage(match_started=self._match_started_pb(seat))

    def _match_started_pb(self, seat: int) -> bot_pb2.MatchStarted:
        tc = self.spec.time_control
        return bot_pb2.MatchStarted(
            match_id=self.spec.match_id,
            seat=seat,
            players=[
                cards_pb2.Player(seat=s.index, bot_name=s.bot_name, hello_name=s.hello_name)
                for s in self.seats
            ],
            ruleset=codec.ruleset_to_pb(self.spec.ruleset),
            deals=self.spec.deals,
            time_control=cards_pb2.TimeControl(
                move_ms=tc.move_ms,
                bank_ms=tc.bank_ms,
                max_strikes=tc.max_strikes,
                reconnect_ms=tc.reconnect_ms,
            ),
        )

    def _deal_started(self, seat: int) -> bot_pb2.RefereeMessage:
        assert self._state is not None
        deal = self._state.deal
        return bot_pb2.RefereeMessage(
            deal_started=bot_pb2.DealStarted(
                deal_number=self.deal_number,
                dealer=deal.dealer,
                forehand=(deal.dealer + 1) % self.spec.ruleset.players,
                hand=codec.cards_to_pb(deal.hands[seat]),
            )
        )

    def _publish(self, event: Event) -> None:
        seq = next(self._seq)
        is_deal_end = isinstance(event, DealEnded)
        message = codec.event_to_pb(
            event,
            seq,
            self.deal_number,
            balances=self.match.balances if is_deal_end else (),
            pool=self.match.pool if is_deal_end else 0,
        )
        decision, self._decision = self._decision, None
        if decision is not None:
            # The decision's record stands for the event it caused (a bid, the trump, a card):
            # one line instead of two keeps a deal's log small (see arena.matchlog).
            self.log.write({"type": "decision", "seq": seq, **decision})
        else:
            self.log.write(event_record(event, seq, self.deal_number))
        self._fan_out(message, is_deal_end)

    def _fan_out(self, message: cards_pb2.GameEvent, to_snapshot_only: bool) -> None:
        wrapped = codec.event_message_bytes(message)  # serialized once for every seat
        for seat in self.seats:
            session = seat.session
            if session is not None and (to_snapshot_only or not session.snapshot_only):
                session.send(wrapped)
        self.history.append(message)
        for queue in self.watchers:
            queue.put_nowait(message)
        if self.observers or self.summary_observers:
            update = admin_pb2.MatchUpdate(event=message)
            for observer in self.observers:
                observer(update)
            if self.summary_observers and message.WhichOneof("kind") in SUMMARY_EVENTS:
                for observer in self.summary_observers:
                    observer(update)

    def _penalize(self, seat: Seat, outcome: SeatOutcome, reason: str, *, strike: bool) -> None:
        # Every seat gets the reason, and the log keeps it: it must stay short whatever the
        # bot sent.
        reason = clip(reason, self.limits.reason_chars)
        if strike:
            seat.strikes += 1
        record = {
            "type": "penalty",
            "deal": self.deal_number,
            "seat": seat.index,
            "code": str(outcome),
            "reason": reason,
            "strikes": seat.strikes,
        }
        self.penalties.append(record)
        self.log.write(record)
        message = cards_pb2.GameEvent(seq=next(self._seq), deal_number=self.deal_number)
        message.seat_penalized.seat = seat.index
        message.seat_penalized.reason = reason
        message.seat_penalized.code = str(outcome)
        message.seat_penalized.strikes = seat.strikes
        self._fan_out(message, to_snapshot_only=False)
        if strike and not seat.forfeited and seat.strikes >= self.spec.time_control.max_strikes:
            seat.forfeited = True
            self._penalize(
                seat,
                SeatOutcome.FORFEITED,
                f"{seat.strikes} strikes: the fallback plays for this seat from now on",
                strike=False,
            )

    def bot_log(self, seat: Seat, text: str) -> None:
        """Store a bot's debug text in the match log, up to the per-match cap."""
        room = BOT_LOG_BYTES_PER_MATCH - seat.log_bytes
        if room <= 0:
            return
        data = text.encode("utf-8", "replace")[:room]
        seat.log_bytes += len(data)
        self.log.write(
            {
                "type": "bot_log",
                "deal": self.deal_number,
                "seat": seat.index,
                "text": data.decode("utf-8", "replace"),
            }
        )

    # --- the match -------------------------------------------------------------------------
    async def run(self) -> admin_pb2.MatchSummary:
        """Play the match to its end (or until cancelled: then it is recorded as aborted)."""
        self._write_header()
        self.log.flush()  # a reader of the running match finds the header at once
        self._index()
        for seat in self.seats:
            seat.send(self._match_started(seat.index))
        started = admin_pb2.MatchUpdate(started=self._match_started_pb(0))
        for observer in (*self.observers, *self.summary_observers):
            observer(started)
        try:
            while not self.match.is_over:
                await self._play_deal()
            self.status = "finished"
        except asyncio.CancelledError:
            self.status = "aborted"
            self._finish()
            raise
        self._finish()
        assert self.summary is not None
        return self.summary

    def _next_deal(self) -> tuple[Deal, int | None]:
        number = self.deal_number  # already advanced: 1-based
        if self.spec.fixed_deals:
            deal = self.spec.fixed_deals[number - 1]
            seed = None
        else:
            seed = deal_seed(self.spec.seed, number)
            deal = deal_cards(self.spec.ruleset, self.match.dealer_of_next_deal, seed)
        return self.spec.permutation.apply_deal(deal), seed

    async def _play_deal(self) -> None:
        self.deal_number += 1
        deal, seed = self._next_deal()
        # Held in memory with the deal's other records until the deal ends: no other seat's
        # hand reaches the file while the deal is live (arena.matchlog.MatchLogWriter).
        self.log.start_deal(
            {
                "type": "deal",
                "deal_number": self.deal_number,
                "dealer": deal.dealer,
                "seed": seed,
                **hands_record(deal),
            }
        )
        state = DealState.new(self.spec.ruleset, deal, self.match.pool)
        self._state = state
        for seat in self.seats:
            seat.send(self._deal_started(seat.index))
        while True:
            to_act = state.to_act
            if to_act is None:
                break
            action = await self._decide(self.seats[to_act], state)
            state, events = state.step(action)
            self._state = state
            for event in events:
                if isinstance(event, DealEnded):
                    outcome = state.outcome()
                    assert outcome is not None
                    self.match = self.match.record(outcome)
                    self.deals_played += 1
                self._publish(event)
        # The deal goes to the log and is flushed now it has ended; the index row is written at
        # start and end only (a referee that dies mid-match marks it aborted on its next start).
        self.log.end_deal()

    async def _decide(self, seat: Seat, state: DealState) -> Action:
        """Ask a seat for its decision under time control; the fallback when it fails."""
        legal = state.legal_actions()
        fallback = legal[0]  # R12.3: the first legal choice in canonical order
        if seat.forfeited:
            self._log_decision(seat, fallback, 0, SeatOutcome.FORFEITED, 0)
            return fallback
        request_id = next(self._request_ids)
        view = state.view(seat.index)
        # The match layer's part of the view, filled in by the codec (cheaper than a replace).
        match_balances = self.match.balances
        phase = state.phase
        started = self.clock.now()
        deadline = started + seat.clock.available_ms() / 1000

        def request() -> bytes:
            left_ms = max(0, int((deadline - self.clock.now()) * 1000))
            move_left = min(seat.clock.move_ms, left_ms)
            return codec.decision_request_bytes(
                request_id,
                phase,
                legal,
                view,
                move_left,
                left_ms - move_left,
                seat.strikes,
                seat.last_rtt_ms,
                match_balances=match_balances,
                deal_number=self.deal_number,
            )

        seat.pending = request()
        seat.send(seat.pending)
        messages = 0
        try:
            while True:
                if seat.session is None:
                    resumed = await self._await_resume(seat)
                    if not resumed:
                        return self._fail(seat, state, fallback, started, SeatOutcome.DISCONNECTED)
                    # The time spent away does not count against the seat (PROTOCOL.md: the
                    # open request is sent again), so the deadline moves with it.
                    deadline = max(deadline, self.clock.now() + seat.clock.move_ms / 1000)
                    seat.pending = request()
                    seat.send(seat.pending)
                    continue
                item = await self.clock.get(seat.inbox, deadline - self.clock.now())
                if item is None:
                    self._penalize(
                        seat,
                        SeatOutcome.TIMEOUT,
                        f"no legal answer to request {request_id} in time",
                        strike=True,
                    )
                    return self._fail(seat, state, fallback, started, SeatOutcome.TIMEOUT)
                if isinstance(item, Signal):
                    if item is Signal.RESUMED and seat.pending is not None:
                        seat.pending = request()
                        seat.send(seat.pending)
                    continue
                if item.WhichOneof("kind") == "log":
                    self.bot_log(seat, item.log.text)
                    continue
                messages += 1
                if messages > MAX_MESSAGES_PER_REQUEST:
                    self._penalize(
                        seat,
                        SeatOutcome.PROTOCOL_ERROR,
                        f"more than {MAX_MESSAGES_PER_REQUEST} messages for one request",
                        strike=True,
                    )
                    if seat.forfeited:
                        return self._fail(seat, state, fallback, started, SeatOutcome.FORFEITED)
                    continue
                action = self._accept(seat, state, item, request_id, phase)
                if action is not None and self.clock.now() > deadline:
                    # Queued after the deadline (the wait and the answer crossed): too late.
                    self._penalize(
                        seat,
                        SeatOutcome.TIMEOUT,
                        f"the answer to request {request_id} came after the deadline",
                        strike=True,
                    )
                    return self._fail(seat, state, fallback, started, SeatOutcome.TIMEOUT)
                if action is not None:
                    elapsed_ms = int((self.clock.now() - started) * 1000)
                    seat.last_rtt_ms = elapsed_ms
                    seat.clock.charge(elapsed_ms)
                    self._log_decision(seat, action, request_id, SeatOutcome.OK, elapsed_ms)
                    return action
                if seat.forfeited:
                    return self._fail(seat, state, fallback, started, SeatOutcome.FORFEITED)
        finally:
            seat.pending = None

    def _accept(
        self,
        seat: Seat,
        state: DealState,
        message: bot_pb2.BotMessage,
        request_id: int,
        phase: Phase,
    ) -> Action | None:
        """The action a message carries if it is a legal answer; else reject it (and strike)."""

        def reject(
            code: bot_pb2.RejectCode.ValueType, outcome: SeatOutcome, reason: str, strike: bool
        ) -> None:
            reason = clip(reason, self.limits.reason_chars)
            seat.send(
                bot_pb2.RefereeMessage(
                    rejected=bot_pb2.ActionRejected(
                        request_id=message.action.request_id, code=code, reason=reason
                    )
                )
            )
            if strike:
                self._penalize(seat, outcome, reason, strike=True)

        if message.WhichOneof("kind") != "action":
            reject(
                bot_pb2.REJECT_CODE_MALFORMED,
                SeatOutcome.PROTOCOL_ERROR,
                "expected an action (hello is sent once, first)",
                True,
            )
            return None
        if message.action.request_id != request_id:
            # A late answer to an earlier request was already dealt with when it timed out;
            # rejecting it is enough (no second strike for one lateness).
            reject(
                bot_pb2.REJECT_CODE_STALE_REQUEST,
                SeatOutcome.PROTOCOL_ERROR,
                f"request {message.action.request_id} is not open; the open one is {request_id}",
                False,
            )
            return None
        try:
            action = codec.choice_to_action(message.action.choice, phase, self.limits)
        except codec.WrongPhaseError as error:
            reject(bot_pb2.REJECT_CODE_WRONG_PHASE, SeatOutcome.MALFORMED, str(error), True)
            return None
        except codec.CodecError as error:
            reject(bot_pb2.REJECT_CODE_MALFORMED, SeatOutcome.MALFORMED, str(error), True)
            return None
        reason = state.illegal_reason(action)
        if reason is None:
            return action
        reject(
            bot_pb2.REJECT_CODE_ILLEGAL, SeatOutcome.ILLEGAL, f"{action} is illegal: {reason}", True
        )
        return None

    async def _await_resume(self, seat: Seat) -> bool:
        """Wait for a dropped seat to come back within reconnect_ms of its drop."""
        limit = (seat.disconnected_at or self.clock.now()) + (
            self.spec.time_control.reconnect_ms / 1000
        )
        while seat.session is None:
            item = await self.clock.get(seat.inbox, limit - self.clock.now())
            if item is None:
                return False
        return True

    def _fail(
        self,
        seat: Seat,
        state: DealState,
        fallback: Action,
        started: float,
        outcome: SeatOutcome,
    ) -> Action:
        elapsed_ms = int((self.clock.now() - started) * 1000)
        seat.clock.charge(elapsed_ms)
        seat.last_rtt_ms = elapsed_ms
        if outcome is SeatOutcome.DISCONNECTED and not seat.forfeited:
            seat.forfeited = True
            self._penalize(
                seat,
                SeatOutcome.DISCONNECTED,
                f"no resume within {self.spec.time_control.reconnect_ms} ms: forfeited",
                strike=False,
            )
        self._log_decision(seat, fallback, 0, outcome, elapsed_ms)
        return fallback

    def _log_decision(
        self,
        seat: Seat,
        action: Action,
        request_id: int,
        outcome: SeatOutcome,
        latency_ms: int,
    ) -> None:
        """Keep the decision's record until its event is numbered (``_publish`` writes it)."""
        record: dict[str, Any] = {
            "seat": seat.index,
            "req": request_id,
            "action": str(action),
            "ms": latency_ms,
        }
        if outcome is not SeatOutcome.OK:
            record["status"] = str(outcome)
        self._decision = record

    # --- the end ---------------------------------------------------------------------------
    def forfeited_seats(self) -> list[int]:
        return [seat.index for seat in self.seats if seat.forfeited]

    def _finish(self) -> None:
        self.ended_at = now_ms()
        finished = self.status == "finished"
        balances = self.match.final_balances() if finished else self.match.balances
        ranks = self.match.ranks(self.forfeited_seats()) if finished else ()
        self.log.write(
            {
                "type": "footer",
                "status": self.status,
                "balances": list(balances),
                "ranks": list(ranks),
                "forfeited": self.forfeited_seats(),
                "strikes": [seat.strikes for seat in self.seats],
                "deals_played": self.deals_played,
                "pool": self.match.pool,
                "seed": None if self.spec.fixed_deals else self.spec.seed,
                "ended_at": self.ended_at,
            }
        )
        self.log.close()
        self.summary = self._summary(balances, ranks)
        self._index()
        ended = bot_pb2.RefereeMessage(
            match_ended=bot_pb2.MatchEnded(
                match_id=self.spec.match_id,
                balances=balances,
                ranks=ranks,
                forfeited=self.forfeited_seats(),
                status=self.status,
            )
        )
        for seat in self.seats:
            seat.send(ended)
        for queue in self.watchers:
            queue.put_nowait(None)
        result = admin_pb2.MatchUpdate(result=self.summary)
        for observer in (*self.observers, *self.summary_observers):
            observer(result)
        self.done.set()

    def _summary(
        self, balances: Sequence[int] | None = None, ranks: Sequence[int] = ()
    ) -> admin_pb2.MatchSummary:
        return admin_pb2.MatchSummary(
            match_id=self.spec.match_id,
            ruleset=self.spec.ruleset.id,
            bot_ids=self.spec.bot_ids,
            balances=self.match.balances if balances is None else balances,
            ranks=ranks,
            forfeited=self.forfeited_seats(),
            status=self.status,
            deals_played=self.deals_played,
            started_at=self.started_at,
            ended_at=self.ended_at,
            bot_names=[seat.bot_name for seat in self.seats],
            strikes=[seat.strikes for seat in self.seats],
        )

    def current_summary(self) -> admin_pb2.MatchSummary:
        return self.summary if self.summary is not None else self._summary()

    def _index(self) -> None:
        self.store.record_match(record_of(self.current_summary(), str(self.log_path)))

    def _write_header(self) -> None:
        spec = self.spec
        tc = spec.time_control
        self.header = {
            "type": "header",
            "match_id": spec.match_id,
            "ruleset": spec.ruleset.id,
            # Only the switches: with the id they rebuild the ruleset on replay.
            "options": {k: v for k, v in spec.ruleset.options().items() if k in SWITCHES},
            "players": spec.ruleset.players,
            "deals": spec.deals,
            # Every deal follows from the match seed, and the header is on disk (readable by a
            # seated bot of the same user) from the start: the seed waits for the footer.
            "seed": None,
            "first_dealer": spec.first_dealer,
            # Only the dealers: a fixed deal's hands are in its deal record, written when
            # the deal has ended (the header is on disk from the start).
            "fixed_deals": [{"dealer": d.dealer} for d in spec.fixed_deals],
            "suit_permutation": "".join(s.letter for s in spec.permutation.images),
            "seats": [
                {
                    "seat": s.index,
                    "bot_id": s.bot_id,
                    "bot_name": s.bot_name,
                    "hello_name": s.hello_name,
                    "bot_version": s.bot_version,
                }
                for s in self.seats
            ],
            "time_control": dataclasses.asdict(tc),
            "versions": {"server": self.server_version, "protocol": PROTOCOL_VERSION},
            "started_at": self.started_at,
        }
        self.log.write(self.header)


def deal_seed(match_seed: int, deal_number: int) -> int:
    """The seed of one deal of a match: independent per deal, reproducible from the match seed."""
    digest = hashlib.sha256(f"brandeln/{match_seed}/{deal_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big")

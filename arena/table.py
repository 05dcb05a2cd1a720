"""One match at one table: the loop over the engine's MatchState.

Deals each deal, asks the seat to act for its decision (brandeln.arena.decision), steps the engine
and publishes each public event to the seats, spectators and observers; the messages are the
codec's, the log records brandeln.arena.logrecords', the index row brandeln.arena.store.database's.

What each seat is sent is exactly PROTOCOL.md: ``MatchStarted``, ``DealStarted`` with its own
hand, ``DecisionRequest`` with the legal choices and a snapshot view, every public ``GameEvent``
numbered from 1 (a ``snapshot_only`` seat only ``DealEnded``), ``MatchEnded``. A seat never
receives another seat's cards while a deal is live: hands appear only in ``DealEnded``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from pathlib import Path

from brandeln.arena import codec, operator_log
from brandeln.arena.audience import Audience
from brandeln.arena.clock import Clock
from brandeln.arena.decision import Decider, Decision, ask_seat
from brandeln.arena.decision_counts import DecisionCounts
from brandeln.arena.errors import CloseReason, StoreError
from brandeln.arena.faults import FaultPolicy
from brandeln.arena.latency import latency_of, was_asked
from brandeln.arena.limits import BOT_LOG_BYTES_PER_MATCH, ProtocolLimits, clip
from brandeln.arena.logrecords import (
    BotLogRecord,
    DealRecord,
    DecisionRecord,
    FooterRecord,
    HeaderRecord,
    MatchStatus,
    Penalty,
)
from brandeln.arena.matchlog import MatchLogWriter
from brandeln.arena.seat import Seat, SeatOutcome, Signal
from brandeln.arena.session import SeatSession
from brandeln.arena.spec import MatchSpec
from brandeln.arena.store.database import RefereeStore, now_ms
from brandeln.arena.summaries import record_of
from brandeln.arena.timecontrol import SeatClock
from brandeln.engine.events import DealEnded, Event
from brandeln.engine.match import MatchState
from brandeln.engine.state import DealState
from brandeln.protocol.events import EventRecord

__all__ = ["PROTOCOL_VERSION", "Table"]

PROTOCOL_VERSION = 1


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
        faults: FaultPolicy | None = None,
        counts: DecisionCounts | None = None,
    ) -> None:
        self.spec = spec
        self.faults = faults  # deliberate faults (brandeln.arena.faults); None in normal play
        self._sessions: dict[int, SeatSession] = {}  # by seat: what a deliberate fault may drop
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
        # A file in logs_dir for an SQLite referee; chunks in the database for PostgreSQL.
        sink, self.log_path = store.log_store(logs_dir).open(spec.match_id)
        self.log = MatchLogWriter(sink)
        self.match = MatchState.new(spec.ruleset, spec.deals, spec.first_dealer)
        self.deal_number = 0  # the deal in play (1-based), or the last one once it ended
        self.status = MatchStatus.RUNNING
        self.started_at = now_ms()
        self.ended_at = 0
        self.penalties: list[Penalty] = []
        # Each seat's decision times, for the summary's latency (brandeln.arena.latency).
        self.decision_ms: list[list[int]] = [[] for _ in self.seats]
        self._seq = itertools.count(1)
        self.decider = Decider(
            clock,
            tc,
            self.limits,
            self._penalize,
            self.bot_log,
            faults=faults,
            match_id=spec.match_id,
            drop_stream=self._drop_stream,
            counts=counts,
        )
        self.audience = Audience()
        self.summary: codec.MatchSummary | None = None
        self.done = asyncio.Event()
        self._state: DealState | None = None
        self._decision: DecisionRecord | None = None  # the decision awaiting its event's seq
        self.header: HeaderRecord | None = None  # the log's header record, once written
        self._announced = False  # MatchStarted sent to the seats

    @property
    def deals_played(self) -> int:
        return self.match.deal_number

    # --- sessions --------------------------------------------------------------------------
    def bind(self, seat: Seat, session: SeatSession) -> None:
        seat.session = session
        self._sessions[seat.index] = session
        session.seat_at(self.spec.match_id, seat)
        seat.disconnected_at = None

    def seat_of_bot(self, bot_id: str) -> Seat | None:
        """A disconnected seat of this bot, for a resume."""
        for seat in self.seats:
            if seat.bot_id == bot_id and seat.session is None:
                return seat
        return None

    def _drop_stream(self, seat: Seat) -> None:
        """A deliberate fault: end the seat's stream as a network would (the bot may resume)."""
        session = self._sessions.get(seat.index)
        if session is not None and seat.session is session:
            session.close(CloseReason.DROPPED, "the referee dropped the stream (a fault)")

    def disconnect(self, seat: Seat) -> None:
        """The seat's stream ended: keep the seat open for a resume (PROTOCOL.md)."""
        seat.session = None
        seat.disconnected_at = self.clock.now()
        seat.inbox.put_nowait(Signal.DISCONNECTED)

    def resume(self, seat: Seat, session: SeatSession) -> None:
        """A new stream of the same bot takes the seat back; it gets the match and deal again
        and, if a request is open, that request."""
        self.bind(seat, session)
        session.send(codec.RefereeMessage(match_started=self._match_started(seat.index)))
        if self.deal_number and self._state is not None:
            session.send(self._deal_started(seat.index))
        seat.inbox.put_nowait(Signal.RESUMED)

    # --- messages --------------------------------------------------------------------------
    def _match_started(self, seat: int) -> codec.MatchStarted:
        spec = self.spec
        players = [(s.bot_name, s.hello_name) for s in self.seats]
        return codec.match_started(
            spec.match_id, seat, players, spec.ruleset, spec.deals, spec.time_control
        )

    def _deal_started(self, seat: int) -> bytes:
        assert self._state is not None
        return codec.deal_started_bytes(
            self.deal_number, self._state.deal, seat, self.spec.ruleset.players
        )

    def _publish(self, event: Event) -> None:
        seq = next(self._seq)
        is_deal_end = isinstance(event, DealEnded)
        data = codec.event_bytes(
            event,
            seq,
            self.deal_number,
            balances=self.match.balances if is_deal_end else (),
            pool=self.match.pool if is_deal_end else 0,
        )
        decision, self._decision = self._decision, None
        if decision is not None:
            # The decision's record stands for the event it caused (a bid, the trump, a card):
            # one line instead of two keeps a deal's log small (see brandeln.arena.matchlog).
            decision.seq = seq
            self.log.write_line(decision.to_line())
        else:
            self.log.write(EventRecord.of(event, seq, self.deal_number).to_json())
        self._fan_out(data, codec.event_kind(event), is_deal_end)

    def _fan_out(self, event: bytes, kind: str, to_snapshot_only: bool) -> None:
        """Send a serialized GameEvent (of ``kind``) to the seats and the audience."""
        wrapped = codec.event_message_bytes(event)  # serialized once for every seat
        for seat in self.seats:
            session = seat.session
            if session is not None and (to_snapshot_only or not session.snapshot_only):
                session.send(wrapped)
        self.audience.event(event, kind)

    def _penalize(self, seat: Seat, outcome: SeatOutcome, reason: str, strike: bool) -> None:
        # Every seat gets the reason, and the log keeps it: it must stay short whatever the
        # bot sent.
        reason = clip(reason, self.limits.reason_chars)
        if strike:
            seat.strikes += 1
        penalty = Penalty(self.deal_number, seat.index, outcome, reason, seat.strikes)
        self.penalties.append(penalty)
        self.decider.counts.penalized(outcome)
        operator_log.penalty(self.spec.match_id, seat.bot_id, penalty)
        self.log.write(penalty.to_json())
        event = codec.seat_penalized(next(self._seq), penalty).SerializeToString()
        self._fan_out(event, "seat_penalized", to_snapshot_only=False)
        if strike and not seat.forfeited and seat.strikes >= self.spec.time_control.max_strikes:
            seat.forfeited = True
            self._penalize(
                seat,
                SeatOutcome.FORFEITED,
                f"{seat.strikes} strikes: the fallback plays for this seat from now on",
                False,
            )

    def bot_log(self, seat: Seat, text: str) -> None:
        """Store a bot's debug text in the match log, up to the per-match cap."""
        room = BOT_LOG_BYTES_PER_MATCH - seat.log_bytes
        if room <= 0:
            return
        data = text.encode("utf-8", "replace")[:room]
        seat.log_bytes += len(data)
        record = BotLogRecord(self.deal_number, seat.index, data.decode("utf-8", "replace"))
        self.log.write(record.to_json())

    # --- the match -------------------------------------------------------------------------
    async def run(self) -> codec.MatchSummary:
        """Play the match to its end (or until cancelled: then it is recorded as aborted)."""
        try:
            self._write_header()
            self.log.flush()  # a reader of the running match finds the header at once
            self._index()
            for seat in self.seats:
                seat.send(codec.RefereeMessage(match_started=self._match_started(seat.index)))
            self._announced = True
            self.audience.started(self._match_started(0))
            while not self.match.is_over:
                await self._play_deal()
            self.status = MatchStatus.FINISHED
        except asyncio.CancelledError:
            self.status = MatchStatus.ABORTED
            self._finish()
            raise
        except StoreError:
            # The database is gone for good (its retries gave up), maybe before the match's
            # first record: the match cannot be kept, so it ends here, aborted, and its seats
            # and its caller hear so at once instead of waiting for a result that never comes.
            # What reached the store stays there.
            self.status = MatchStatus.ABORTED
            self._finish(recorded=False)
            raise
        self._finish()
        assert self.summary is not None
        return self.summary

    async def _play_deal(self) -> None:
        deal, seed = self.spec.next_deal(self.match)
        state = self.match.start_deal(deal)
        self.deal_number = self.match.deal_number + 1
        # Held in memory with the deal's other records until the deal ends: no other seat's
        # hand reaches the file while the deal is live (brandeln.arena.matchlog.MatchLogWriter).
        self.log.start_deal(DealRecord.of(self.deal_number, deal, seed).to_json())
        self._state = state
        self.decider.deal_number = self.deal_number
        for seat in self.seats:
            seat.send(self._deal_started(seat.index))
        while (to_act := state.to_act) is not None:
            phase = state.phase
            decision = await self._decide(self.seats[to_act], state)
            if self.faults is not None:
                self.faults.decided(
                    self.spec.match_id,
                    to_act,
                    self.deal_number,
                    phase,
                    decision.outcome,
                    decision.latency_ms,
                )
            if was_asked(decision.outcome, decision.latency_ms):
                self.decision_ms[to_act].append(decision.latency_ms)
            # Kept until its event is numbered (_publish writes it).
            self._decision = DecisionRecord(
                to_act,
                decision.request_id,
                str(decision.action),
                decision.latency_ms,
                decision.outcome,
            )
            state, events = state.step(decision.action)
            self._state = state
            for event in events:
                if isinstance(event, DealEnded):
                    outcome = state.outcome()
                    assert outcome is not None
                    self.match = self.match.record(outcome)
                self._publish(event)
        # The deal goes to the log and is flushed now it has ended; the index row is written at
        # start and end only (a referee that dies mid-match marks it aborted on its next start).
        self.log.end_deal()

    async def _decide(self, seat: Seat, state: DealState) -> Decision:
        """Ask a seat for its decision under time control (brandeln.arena.decision)."""
        return await ask_seat(
            self.decider,
            seat,
            state,
            match_balances=self.match.balances,
            deal_number=self.deal_number,
            faults=self.faults,
            match_id=self.spec.match_id,
        )

    # --- the end ---------------------------------------------------------------------------
    def forfeited_seats(self) -> list[int]:
        return [seat.index for seat in self.seats if seat.forfeited]

    def _finish(self, *, recorded: bool = True) -> None:
        """End the match: footer, index, the seats and the audience told. ``recorded``
        False: the store failed; the footer and index are tried, their failure ignored. Else
        a failure of theirs is raised, after the seats and the audience are told."""
        self.ended_at = now_ms()
        finished = self.status is MatchStatus.FINISHED
        balances = self.match.final_balances() if finished else self.match.balances
        ranks = self.match.ranks(self.forfeited_seats()) if finished else ()
        footer = FooterRecord(
            status=self.status,
            balances=tuple(balances),
            ranks=tuple(ranks),
            forfeited=tuple(self.forfeited_seats()),
            strikes=tuple(seat.strikes for seat in self.seats),
            deals_played=self.deals_played,
            pool=self.match.pool,
            seed=None if self.spec.fixed_deals else self.spec.seed,
            ended_at=self.ended_at,
        )
        self.summary = self._summary(balances, ranks)
        failed: StoreError | None = None
        try:
            self.log.write(footer.to_json())
            self.log.close()
            self._index()
        except StoreError as error:
            if recorded:
                failed = error  # raised once the seats and the caller know the match ended
        if self._announced:  # a seat is told of the end of a match it was told of
            ended = codec.match_ended(
                self.spec.match_id, balances, ranks, self.forfeited_seats(), self.status
            )
            for seat in self.seats:
                seat.send(ended)
        self.audience.ended(self.summary)
        self.done.set()
        if failed is not None:
            raise failed

    def _summary(
        self, balances: Sequence[int] | None = None, ranks: Sequence[int] = ()
    ) -> codec.MatchSummary:
        return codec.match_summary(
            match_id=self.spec.match_id,
            ruleset_id=self.spec.ruleset.id,
            bot_ids=self.spec.bot_ids,
            bot_names=[seat.bot_name for seat in self.seats],
            balances=self.match.balances if balances is None else balances,
            ranks=ranks,
            forfeited=self.forfeited_seats(),
            strikes=[seat.strikes for seat in self.seats],
            status=self.status,
            deals_played=self.deals_played,
            started_at=self.started_at,
            ended_at=self.ended_at,
            latency=[latency_of(times) for times in self.decision_ms],
        )

    def current_summary(self) -> codec.MatchSummary:
        return self.summary if self.summary is not None else self._summary()

    def _index(self) -> None:
        self.store.record_match(record_of(self.current_summary(), self.log_path))

    def _write_header(self) -> None:
        self.header = HeaderRecord.of(
            self.spec, self.seats, self.server_version, PROTOCOL_VERSION, self.started_at
        )
        self.log.write(self.header.to_json())

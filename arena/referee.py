"""The referee's core: bot identities, the lobby, running tables and finished matches.

The gRPC servicers (``brandeln.arena.servicers``) are thin adapters over this class; it holds all
state and is driven from one asyncio event loop.
"""

from __future__ import annotations

import asyncio
import hmac
import sys
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable

from brandeln.arena import codec, operator_log
from brandeln.arena.clock import Clock, SystemClock
from brandeln.arena.config import AdminTokenScope, RefereeConfig
from brandeln.arena.counters import RefereeCounts, SessionEnd
from brandeln.arena.errors import (
    BotProtocolError,
    CloseReason,
    InvalidRequestError,
    PermissionDeniedError,
    ShuttingDownError,
    StoreError,
    TooManySessionsError,
    UnauthenticatedError,
    UnsupportedVersionError,
)
from brandeln.arena.faults import FaultPolicy
from brandeln.arena.limits import (
    MAX_RESUMES_PER_MATCH,
    MAX_SESSIONS_PER_BOT,
    OPEN_REQUEST_INBOX_LIMIT,
    SEAT_INBOX_LIMIT,
)
from brandeln.arena.names import check_hello_fields, check_hello_text
from brandeln.arena.orders import HelloRequest, MatchOrder, build_spec
from brandeln.arena.referee_views import RefereeViews
from brandeln.arena.session import Lobby, SeatSession, SessionState
from brandeln.arena.spec import MatchSpec
from brandeln.arena.store.database import RefereeStore, hash_token, new_token
from brandeln.arena.table import PROTOCOL_VERSION, Table
from brandeln.datastore.private_files import private_dir
from brandeln.v1 import admin_pb2, bot_pb2

# The flood limits are re-exported for the code that imported them from here.
__all__ = [
    "MAX_RESUMES_PER_MATCH",
    "MAX_SESSIONS_PER_BOT",
    "OPEN_REQUEST_INBOX_LIMIT",
    "SEAT_INBOX_LIMIT",
    "SERVER_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "AdminTokenScope",
    "Referee",
    "RefereeConfig",
]

SERVER_VERSION = "brandeln-arena 0.1.0"
SUPPORTED_PROTOCOL_VERSIONS = (PROTOCOL_VERSION,)


class Referee(RefereeViews):
    """State and behaviour behind both services."""

    def __init__(
        self, config: RefereeConfig, clock: Clock | None = None, faults: FaultPolicy | None = None
    ) -> None:
        self.config = config
        # Deliberate faults (brandeln.arena.faults): set in-process by `bot check` and tests, never
        # from a peer.
        self.faults = faults
        self.clock: Clock = clock or SystemClock()
        self.store = RefereeStore(config.database or config.db_path, config.logs_dir)
        try:
            self._recover()
        except BaseException:
            self.store.close()
            raise
        self.tables: dict[str, Table] = {}
        # What it has done since it started, for its metrics (brandeln.services.metrics.referee
        # reads them).
        self.counts = RefereeCounts()
        self._tasks: dict[str, asyncio.Task[admin_pb2.MatchSummary]] = {}
        self._resumes: Counter[tuple[str, int]] = Counter()  # by (match id, seat)
        # What each open session's Hello called the bot, by session id (the session itself
        # carries the registered name).
        self.hello_names: dict[str, str] = {}
        self.generated_admin_token: str | None = None
        # Set by drain(): the referee is stopping and takes no new sessions or matches.
        self.draining = False
        # Called first thing by drain() (the server's health service turns NOT_SERVING).
        self.on_drain: list[Callable[[], Awaitable[None]]] = []
        # Called by close(): what the server runs beside the referee (its connection guard).
        self.on_close: list[Callable[[], object]] = []
        self._run_admin_token_hash: str | None = None
        if config.admin_token_scope is AdminTokenScope.THIS_RUN:
            # Random when none is given: a referee without an admin token is unusable.
            self._run_admin_token_hash = hash_token(config.admin_token or new_token())
        elif config.admin_token is not None:
            self.store.set_admin_token(config.admin_token)
        elif self.store.admin_token_hash() is None:
            self.generated_admin_token = new_token()
            self.store.set_admin_token(self.generated_admin_token)

    def _recover(self) -> None:
        config = self.config
        if not self.store.shared:
            # The logs hold every finished deal's hands: 0700, a folder left by an older
            # version too. (A PostgreSQL referee keeps them in the database.)
            private_dir(config.logs_dir)
        self.recovered_aborted = self.store.mark_running_aborted()
        self.store.close_open_sessions(keep_per_bot=config.limits.closed_sessions_kept_per_bot)
        if self.store.shared:
            # Several referees share the database: the sequence numbers every one's sessions.
            self.lobby = Lobby(next_number=self.store.next_session_number)
        else:
            # Session ids go on from the last run's: the session history must not collide.
            self.lobby = Lobby(first_session_number=self.store.last_session_number() + 1)

    # --- auth ------------------------------------------------------------------------------
    def check_admin(self, token: str | None) -> None:
        # Read on every call, so `brandeln admin token --reset` takes effect at once.
        stored = self._run_admin_token_hash or self.store.admin_token_hash()
        if not token or stored is None or not hmac.compare_digest(hash_token(token), stored):
            raise UnauthenticatedError("missing or wrong admin token (authorization: Bearer ...)")

    # --- seat sessions ---------------------------------------------------------------------
    async def open_session(self, hello: HelloRequest, peer: str) -> SeatSession:
        """Validate a Hello; returns the session, seated again if it resumes a match."""
        if self.draining:
            raise ShuttingDownError("the referee is shutting down; connect again later")
        bot = self.store.bot_for_token(hello.token)
        if bot is None:
            raise UnauthenticatedError("unknown or revoked bot token")
        check_hello_fields(hello, self.config.limits)
        if hello.protocol_version not in SUPPORTED_PROTOCOL_VERSIONS:
            supported = ", ".join(str(v) for v in SUPPORTED_PROTOCOL_VERSIONS)
            raise UnsupportedVersionError(
                f"protocol_version {hello.protocol_version} is not supported; this referee "
                f"speaks {supported}"
            )
        if self.lobby.count(bot.bot_id) >= MAX_SESSIONS_PER_BOT:
            raise TooManySessionsError(
                f"bot {bot.name} already has {MAX_SESSIONS_PER_BOT} sessions open (the most "
                "one bot may have); close some first"
            )
        try:
            hello_name = check_hello_text(hello.bot_name, "Hello.bot_name")
            bot_version = check_hello_text(hello.bot_version, "Hello.bot_version")
        except ValueError as error:
            raise BotProtocolError(str(error)) from None
        table = None
        if hello.resume_match_id:
            table = self.tables.get(hello.resume_match_id)
            if table is not None and all(s.bot_id != bot.bot_id for s in table.seats):
                raise PermissionDeniedError(
                    f"bot {bot.name} has no seat in match {hello.resume_match_id}"
                )
        session = SeatSession(
            session_id=self.lobby.new_session_id(),
            bot_id=bot.bot_id,
            # The registered name is the bot's name everywhere; what it calls itself is kept
            # apart (hello_names) and only ever shown beside it.
            bot_name=bot.name,
            bot_version=bot_version,
            rulesets=frozenset(hello.rulesets),
            snapshot_only=hello.snapshot_only,
        )
        self.hello_names[session.session_id] = hello_name
        self.store.session_opened(session.session_id, bot.bot_id, bot_version, peer)
        session.send(
            bot_pb2.RefereeMessage(
                welcome=bot_pb2.Welcome(
                    session_id=session.session_id,
                    bot_id=bot.bot_id,
                    protocol_version=PROTOCOL_VERSION,
                    server_version=SERVER_VERSION,
                )
            )
        )
        seat = table.seat_of_bot(bot.bot_id) if table is not None else None
        resumed: dict[str, object] = {}  # the match and seat taken back, for the log
        if table is not None and seat is not None and self._may_resume(table, seat.index):
            # Seated in the step that found the seat: waiting for the lobby's lock first (busy
            # while RunMatch calls look for seats) let the match end, or the seat's reconnect
            # time run out, with the hello in hand. A seated session is no news to them.
            session.state = SessionState.SEATED
            self.lobby.add(session)
            table.resume(seat, session)
            resumed = {"match_id": table.spec.match_id, "seat": seat.index}
        else:
            # A finished match, no seat free to resume, or one resumed too often (its seat
            # forfeits after reconnect_ms): the session simply waits in the lobby.
            await self.lobby.join(session)
        self.counts.sessions_opened += 1
        operator_log.session_opened(
            session.session_id,
            bot.bot_id,
            bot.name,
            hello_name=hello_name,
            bot_version=bot_version,
            peer=peer,
            resumed=resumed,
        )
        return session

    def _may_resume(self, table: Table, seat: int) -> bool:
        key = (table.spec.match_id, seat)
        self._resumes[key] += 1
        return self._resumes[key] <= MAX_RESUMES_PER_MATCH

    def on_message(self, session: SeatSession, message: bot_pb2.BotMessage) -> None:
        """Route a message of an open session to its seat (or answer it in the lobby)."""
        if session.state is SessionState.CLOSED:
            return  # read before the stream's end caught up with a close
        seat = session.seat
        if seat is not None:
            limit = SEAT_INBOX_LIMIT if seat.pending is None else OPEN_REQUEST_INBOX_LIMIT
            if seat.inbox.qsize() >= limit:
                session.close(
                    CloseReason.PROTOCOL, f"more than {limit} unread messages for this seat"
                )
                return
            seat.inbox.put_nowait(message)
            return
        if message.WhichOneof("kind") == "action":
            self.counts.decisions.rejected(codec.Rejection.STALE_REQUEST)
            session.send(
                codec.rejected(
                    message.action.request_id,
                    codec.Rejection.STALE_REQUEST,
                    "no request is open: the session is not seated",
                )
            )

    def close_session(self, session: SeatSession) -> None:
        """The session's stream ended: free its seat for a resume and forget it.

        Synchronous on purpose: the Play handler calls it first thing in its cleanup, where an
        await could be cut short by a second cancellation and leave a ghost in the lobby.
        """
        seat = session.seat
        match_id = session.match_id
        table = self.tables.get(match_id)
        if seat is not None and seat.session is session and table is not None:
            table.disconnect(seat)
        session.unseat()
        session.close()
        self.lobby.leave(session)
        self.hello_names.pop(session.session_id, None)
        # Counted and told before the store's write, which may fail (StoreError).
        end = SessionEnd.of(session.close_kind)
        self.counts.session_closed(end)
        operator_log.session_closed(
            session.session_id,
            session.bot_id,
            str(end),
            session.close_detail,
            (match_id, seat.index) if seat is not None else None,
        )
        self.store.session_closed(
            session.session_id, keep_per_bot=self.config.limits.closed_sessions_kept_per_bot
        )

    # --- admin -----------------------------------------------------------------------------
    def build_spec(self, order: MatchOrder) -> MatchSpec:
        """Validate an order into a MatchSpec (InvalidRequestError says what is wrong)."""

        known: set[str] | None = None

        def check_bot(bot_id: str) -> None:
            # Called once per seat, after the seat count is checked. A bot with a session open
            # here is registered (bots are never deleted); the others are read in one query,
            # on the first call (a query per seat cost each match start milliseconds).
            nonlocal known
            if known is None:
                connected = self.lobby.bot_ids()
                unseen = [b for b in order.bot_ids if b not in connected]
                known = connected | self.store.known_bot_ids(unseen)
            if bot_id not in known:
                raise InvalidRequestError(f"no bot with id {bot_id!r}")

        return build_spec(
            order,
            match_id=f"m_{uuid.uuid4().hex[:16]}",
            max_deals=self.config.max_deals,
            default_time_control=self.config.time_control,
            check_bot=check_bot,
        )

    async def start_match(
        self,
        order: MatchOrder,
        observer: Callable[[admin_pb2.MatchUpdate], None] | None = None,
    ) -> Table:
        """Seat the bots (waiting a bounded time for free sessions) and start the match.

        ``observer`` gets the match's updates as the wire carries them (the ``RunMatch``
        stream's messages): every event, or with ``order.summary_updates`` only contracts,
        deal ends and penalties."""
        if self.draining:
            raise ShuttingDownError("the referee is shutting down; it starts no new match")
        spec = self.build_spec(order)
        wait_ms = order.seat_wait_ms or self.config.seat_wait_ms
        sessions = await self.lobby.claim(spec.bot_ids, spec.ruleset.id, wait_ms / 1000)
        table = Table(
            spec,
            sessions,
            self.store,
            self.config.logs_dir,
            self.clock,
            SERVER_VERSION,
            hello_names=[self.hello_names.get(s.session_id, "") for s in sessions],
            limits=self.config.limits,
            faults=self.faults,
            counts=self.counts.decisions,
        )
        if observer is not None:
            audience = table.audience
            observers = audience.summary_observers if order.summary_updates else audience.observers
            observers.append(observer)
        self.tables[spec.match_id] = table
        task = asyncio.create_task(self._run_table(table), name=spec.match_id)
        self._tasks[spec.match_id] = task
        self.counts.matches_started += 1
        operator_log.match_started(
            spec.match_id,
            spec.ruleset.id,
            spec.deals,
            spec.bot_ids,
            [seat.bot_name for seat in table.seats],
        )
        return table

    async def _run_table(self, table: Table) -> admin_pb2.MatchSummary:
        try:
            return await table.run()
        except StoreError as error:
            # The match ended aborted and said so (Table.run); the referee goes on serving
            # the other tables, which meet the same store when they next write.
            print(f"match {table.spec.match_id} aborted: {error}", file=sys.stderr, flush=True)
            assert table.summary is not None
            return table.summary
        finally:
            self.tables.pop(table.spec.match_id, None)
            self._tasks.pop(table.spec.match_id, None)
            self._ended(table)
            for seat in table.seats:
                self._resumes.pop((table.spec.match_id, seat.index), None)
            # The sessions now at the table (a resumed seat has a new one) go back to the lobby.
            match_id = table.spec.match_id
            await self.lobby.release(s for s in self.lobby.sessions() if s.match_id == match_id)

    def _ended(self, table: Table) -> None:
        """Count and tell a match's end (its table is off the running ones)."""
        self.counts.match_ended(table.status)
        spec = table.spec
        operator_log.match_ended(
            spec.match_id,
            str(table.status),
            table.deals_played,
            spec.bot_ids,
            len(table.penalties),
            table.forfeited_seats(),
        )

    async def abort_all(self) -> None:
        """Abort every running match (each is recorded as aborted, its log closed)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def drain(self) -> None:
        """Begin a graceful stop: say so (health turns NOT_SERVING), take no new session or
        match, abort the running matches (recorded as aborted, their bots told so) and end
        every session with UNAVAILABLE once it has sent what was queued."""
        self.draining = True
        matches, sessions = len(self.tables), len(self.lobby.sessions())
        operator_log.draining(matches, sessions)
        for hook in self.on_drain:
            await hook()
        await self.abort_all()
        for session in self.lobby.sessions():
            session.close(CloseReason.SHUTDOWN)

    def close(self) -> None:
        for hook in self.on_close:
            hook()
        self.store.close()

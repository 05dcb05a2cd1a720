"""Real matches for the web tests: an embedded referee on loopback, sample bots in-process.

The bots are the SDK's real gRPC sessions (``brandeln.sdk.session.play``) in the referee's
event loop; :class:`PatientBot` waits before each answer, so a live match lasts long enough to
be watched from a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.logreader import MatchLog, read_log
from brandeln.engine.rulesets import find_ruleset
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sdk.bot import Answer, Bot
from brandeln.sdk.session import SessionOptions, SessionStats, play
from brandeln.v1 import admin_pb2, bot_pb2, cards_pb2
from tests.conftest import AdminClient

T = TypeVar("T")
PATIENT = cards_pb2.TimeControl(move_ms=5000, bank_ms=60000, max_strikes=3)
HOLD_S = 45.0  # a held bot's longest wait: within PATIENT's move and bank, so no strike


class PatientBot(HeuristicBot):
    """The heuristic sample bot (it bids what it can make, so deals run several tricks),
    taking ``delay`` seconds over each decision without blocking the event loop; with ``hold``,
    it waits for that to be set (at most ``HOLD_S``) before its first one."""

    def __init__(self, delay: float, hold: threading.Event | None = None) -> None:
        super().__init__()
        self.delay = delay
        self.hold = hold

    async def decide_async(self, request: bot_pb2.DecisionRequest) -> Answer:
        if self.hold is not None:
            await asyncio.to_thread(self.hold.wait, HOLD_S)
            self.hold = None
        if self.delay:
            await asyncio.sleep(self.delay)
        return await super().decide_async(request)


def _same(bot: Bot) -> Bot:
    return bot


@dataclass(frozen=True)
class PlayedMatch:
    match_id: str
    log: Path

    def match_log(self) -> MatchLog:
        """Its log as every reader takes it: typed, validated."""
        return read_log(self.log.read_text(), str(self.log))


async def seat_bots(
    referee: EmbeddedReferee,
    admin: AdminClient,
    names: Sequence[str],
    delay: float = 0.0,
    hold: threading.Event | None = None,
    bots: Sequence[Bot] = (),
) -> tuple[list[str], list[asyncio.Task[list[SessionStats]]]]:
    """Register ``names`` and seat one patient bot session each (one match each); ``bots``,
    if given, are the bots (one per name)."""
    ids: list[str] = []
    tasks: list[asyncio.Task[list[SessionStats]]] = []
    for n, name in enumerate(names):
        reply = await admin.register(name)
        ids.append(reply.bot_id)
        options = SessionOptions(referee.address, reply.token, max_matches=1)
        bot = bots[n] if bots else PatientBot(delay, hold)
        tasks.append(asyncio.create_task(play(functools.partial(_same, bot), options)))
    await admin.wait_for_sessions(ids, timeout=60)
    return ids, tasks


async def play_match(
    referee: EmbeddedReferee,
    ruleset: str,
    *,
    deals: int,
    seed: int,
    names: Sequence[str] | None = None,
) -> PlayedMatch:
    """One finished match of ``ruleset`` at ``referee``, its bots named ``names``."""
    players = find_ruleset(ruleset).players
    names = names or [f"{ruleset}-{seed}-{n}" for n in range(players)]
    admin = AdminClient(referee.address, referee.admin_token)
    try:
        ids, tasks = await seat_bots(referee, admin, names)
        request = admin_pb2.RunMatchRequest(
            bot_ids=ids, ruleset=ruleset, deals=deals, seed=seed, time_control=PATIENT
        )
        _, result = await admin.run_match(request)
        await asyncio.gather(*tasks)
    finally:
        await admin.close()
    assert result.status == "finished", result
    return PlayedMatch(result.match_id, referee.config.logs_dir / f"{result.match_id}.jsonl")


@dataclass(frozen=True)
class Plan:
    ruleset: str
    deals: int
    seed: int
    names: tuple[str, ...] = ()


def play_matches(data: Path, plans: Sequence[Plan]) -> list[PlayedMatch]:
    """Play the planned matches one after the other at one embedded referee."""

    async def run() -> list[PlayedMatch]:
        async with EmbeddedReferee(data) as referee:
            return [
                await play_match(
                    referee, p.ruleset, deals=p.deals, seed=p.seed, names=p.names or None
                )
                for p in plans
            ]

    # In a thread of its own: Playwright's sync API keeps an event loop running in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


class BackgroundReferee:
    """An embedded referee in a thread of its own (its own event loop), for the browser tests:
    the test's main thread drives Chromium while matches play here."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="referee", daemon=True)
        self.referee: EmbeddedReferee | None = None

    def __enter__(self) -> BackgroundReferee:
        self.thread.start()
        self.referee = self.call(EmbeddedReferee(self.data).start())
        return self

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def __exit__(self, *exc: object) -> None:
        if self.referee is not None:
            self.call(self.referee.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@dataclass
class RunningMatch:
    """A match started with RunMatch and still playing; :attr:`done` ends with its summary."""

    match_id: str
    done: asyncio.Task[admin_pb2.MatchSummary]


async def start_match(
    referee: EmbeddedReferee,
    ruleset: str,
    names: Sequence[str],
    *,
    deals: int,
    seed: int,
    delay: float,
    hold: threading.Event | None = None,
    bots: Sequence[Bot] = (),
) -> RunningMatch:
    """Seat patient bots (or ``bots``) and start a match; return as soon as the referee says
    it started. With ``hold``, the bots make no decision until it is set: a test can let a
    browser open the page first, however slowly it starts on a loaded machine."""
    admin = AdminClient(referee.address, referee.admin_token)
    ids, sessions = await seat_bots(referee, admin, names, delay, hold, bots)
    request = admin_pb2.RunMatchRequest(
        bot_ids=ids, ruleset=ruleset, deals=deals, seed=seed, time_control=PATIENT
    )
    call = admin.stub.RunMatch(request, metadata=admin.metadata)
    first = await call.read()
    assert isinstance(first, admin_pb2.MatchUpdate)
    assert first.WhichOneof("kind") == "started"

    async def finish() -> admin_pb2.MatchSummary:
        try:
            summary = None
            while isinstance(update := await call.read(), admin_pb2.MatchUpdate):
                if update.WhichOneof("kind") == "result":
                    summary = update.result
            await asyncio.gather(*sessions)
        finally:
            await admin.close()
        assert summary is not None
        return summary

    return RunningMatch(first.started.match_id, asyncio.ensure_future(finish()))


async def wait_for(task: asyncio.Task[T]) -> T:
    return await task

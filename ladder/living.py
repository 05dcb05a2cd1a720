"""The always-on ladder (``brandeln ladder serve``): blocks played one after another among the
bot versions that are connected, chosen by matchmaking, for as long as it runs.

A ladder is a season whose blocks are planned one at a time (:mod:`ladder.storage_living`):

1. A block planned and not finished (a killed run's, or one given back) is played first, the
   same block again: nothing of it was recorded, and the ratings wait for it in block order.
   If one of its bots has left (retired, or not connected), other connected versions take
   the empty seats.
2. Else the oldest queued challenge whose bots are all connected (a challenge naming a retired
   version is refused).
3. Else matchmaking (:mod:`ladder.matchmaking`) among the connected active versions.

Each block is the duplicate format of a season (:func:`ladder.duplicate.plan_block`: every
seat rotation, suits relabelled), played through the referee's Admin service
(:class:`ladder.runner.RefereeBlocks`) and recorded with the ratings it unlocks in one
transaction (:func:`ladder.rating_order.record_and_rate`; a challenge played unrated keeps its
place and moves no rating). A version that is not connected is skipped, never forfeited; one
that leaves mid-block forfeits under the referee's rules. A block that cannot be played (a bot
gone when its match is seated) is given back and planned again later.

Stopping (:meth:`LivingLadder.serve`'s ``stop`` set) stops taking blocks and gives back the
blocks in flight (their matches, already started at the referee, end there unrecorded).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from ladder.admin_client import AdminClient
from ladder.claims import HEARTBEAT_S, new_runner_id, retire
from ladder.duplicate import BotBlockResult, block_results, plan_block
from ladder.errors import BlockFailedError, LadderError, StorageError
from ladder.ladder_counts import LadderCounts
from ladder.matchmaking import Candidate, choose_block
from ladder.rating_order import record_and_rate
from ladder.ratings import Rating, RatingModel
from ladder.referee_records import SessionState
from ladder.runner import RefereeBlocks
from ladder.schema import ChallengeState, Presence
from ladder.season_rows import SeasonStatus
from ladder.season_types import ExternalBot, RatingParams, SeasonConfig, TimeControl
from ladder.storage import LadderStore, LadderVersion
from ladder.tasks import finish_in_thread

__all__ = [
    "EventKind",
    "LadderConfig",
    "LadderEvent",
    "LivingLadder",
    "new_version_rating",
    "players_of",
    "with_players",
]

log = logging.getLogger("brandeln.ladder.living")

# A new version's uncertainty starts as the one before's widened by this share of the initial
# sigma (in quadrature): a rebuild is usually close to what it replaces, not the same bot.
VERSION_WIDEN: Final = 0.5

# Matchmaking weighs the newest blocks: enough for every pair of the active versions to have
# met HISTORY_COVERS times over if seats went round evenly (and HISTORY_MIN_BLOCKS at least),
# so that pair counts mean something; few enough that meetings from when the versions were
# others fade: counted over a long history, the pairs of versions that played when there were
# fewer of them read as overplayed for hundreds of blocks, and the newcomers play every block
# (measured on the fake referee: 110 blocks of 4 versions, then 2 more; over the last 40 of
# 80 blocks after, a 200-block window seated them 40, 40, 27, 26, 27 times, this one 32 each).
HISTORY_MIN_BLOCKS: Final = 40
HISTORY_COVERS: Final = 4


def history_window(versions: int, seats: int) -> int:
    """How many of the newest planned blocks matchmaking weighs, with ``versions`` active.

    >>> history_window(5, 4), history_window(20, 4), history_window(50, 4)
    (40, 127, 817)
    """
    pairs_per_block = seats * (seats - 1) / 2
    pairs = versions * (versions - 1) / 2
    return max(HISTORY_MIN_BLOCKS, math.ceil(HISTORY_COVERS * pairs / pairs_per_block))


# The longest wait between tries while the database or the referee is away.
MAX_RETRY_WAIT_S: Final = 30.0


def players_of(ruleset: str, options: Mapping[str, str]) -> int:
    """The seats of a ruleset (the engine's count)."""
    from engine.rulesets import find_ruleset  # noqa: PLC0415 - the engine's tables load once

    return find_ruleset(ruleset, dict(options)).players


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """An always-on ladder's settings. ``ruleset``, ``options``, ``deals_per_match``,
    ``seed`` and ``rating`` decide its blocks and ratings, so they are kept with it and may not
    change; the rest may, between runs."""

    name: str = "ladder"
    ruleset: str = "standard"
    options: Mapping[str, str] = field(default_factory=dict)
    deals_per_match: int = 8
    seed: int = 0
    rating: RatingParams = field(default_factory=RatingParams)
    time_control: TimeControl = field(default_factory=TimeControl)
    blocks_at_once: int = 1
    # A block's matches played at once: each version needs as many seat sessions.
    matches_at_once: int = 1
    interval_s: float = 5.0  # how long to wait when no block can be planned
    seat_wait_ms: int = 10_000  # a match's wait for a session of each bot
    challenges_per_hour: int = 6  # per bot
    players: int = 4

    def settings(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(sorted(self.options.items())),
            "deals_per_match": self.deals_per_match,
            "seed": self.seed,
            "players": self.players,
            "rating": {
                "mu": self.rating.mu,
                "sigma": self.rating.sigma,
                "beta": self.rating.beta,
                "tau": self.rating.tau,
                "draw_probability": self.rating.draw_probability,
            },
        }

    def season(self, versions: Sequence[LadderVersion]) -> SeasonConfig:
        """The ladder as a season's settings, for the season's block player."""
        return SeasonConfig(
            name=self.name,
            seed=self.seed,
            blocks=0,
            bots=tuple(ExternalBot(version.name, version.bot_id) for version in versions),
            players=self.players,
            deals_per_match=self.deals_per_match,
            ruleset=self.ruleset,
            options=dict(self.options),
            time_control=self.time_control,
            concurrency=self.matches_at_once,
            seat_wait_ms=self.seat_wait_ms,
            rating=self.rating,
        )


class EventKind(StrEnum):
    """What happened, for the ladder's log and metrics."""

    PLANNED = "planned"  # a block is about to be played
    RECORDED = "recorded"  # a block is recorded (and rated, unless it is an unrated challenge)
    GIVEN_BACK = "given_back"  # a block could not be played; it is played again later
    REFUSED = "refused"  # a challenge names a version no longer active
    WAITING = "waiting"  # too few versions connected to plan a block


@dataclass(frozen=True, slots=True)
class LadderEvent:
    """What the ladder did, for its log and its metrics."""

    kind: EventKind
    block: int | None = None
    bots: tuple[str, ...] = ()
    detail: str = ""
    challenge: int | None = None  # the challenge the block plays
    rated: bool = True


Listener = Callable[[LadderEvent], None]


class LivingLadder:
    """One run of an always-on ladder on a referee (see the module docstring)."""

    def __init__(
        self,
        config: LadderConfig,
        store: LadderStore,
        admin: AdminClient,
        *,
        listener: Listener | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.store = store
        self.admin = admin
        self.listener = listener or (lambda event: None)
        self.clock = clock
        self.model = RatingModel(config.rating)
        self.runner = new_runner_id()
        self.counts = LadderCounts()
        self._planning = asyncio.Lock()  # one block planned at a time
        self._playing: set[str] = set()  # the versions seated in the blocks in flight
        self._sessions: dict[str, int] = {}  # each version's free sessions at the last look
        # Blocks this run claimed and could not give back (the store failed just then): given
        # back at the next look, else their claims, held by a live run, would stall the order.
        self._unreleased: set[int] = set()

    @property
    def blocks_recorded(self) -> int:
        return self.counts.blocks_rated + self.counts.blocks_unrated

    async def serve(self, stop: asyncio.Event) -> None:
        """Play blocks until ``stop`` is set; then give back what is in flight."""
        await finish_in_thread(
            self.store.ensure_ladder,
            self.config.name,
            self.config.settings(),
            self.config.players,
            {"challenges_per_hour": self.config.challenges_per_hour},
        )
        workers = [
            asyncio.ensure_future(self._worker(stop)) for _ in range(self.config.blocks_at_once)
        ]
        beating = asyncio.ensure_future(self._heartbeat())
        stopped = asyncio.ensure_future(stop.wait())
        try:
            done, _ = await asyncio.wait({stopped, *workers}, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stopped:
                    task.result()  # a worker's failure (the store gone for good) ends the run
        finally:
            for task in (*workers, beating, stopped):
                task.cancel()
            await asyncio.gather(*workers, beating, stopped, return_exceptions=True)
            with contextlib.suppress(StorageError):
                await finish_in_thread(self.store.release_claims, self.config.name, self.runner)
                # Stopped, as a season stopped by Ctrl-C says: `season list` and the web tell
                # a ladder that serves from one that does not (a SIGKILL leaves it running,
                # and its presence going stale tells that).
                await finish_in_thread(
                    self.store.set_season_status,
                    self.config.name,
                    SeasonStatus.INTERRUPTED,
                    "stopped",
                )
            retire(self.runner)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await asyncio.to_thread(self.store.heartbeat, self.config.name, self.runner)
                await asyncio.to_thread(self.store.touch_presence, self.config.name)
            except StorageError as error:  # the next beat tries again; the claims stay ours
                log.warning("heartbeat failed: %s", error, extra={"event": "store_error"})

    async def _worker(self, stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            try:
                played = await self.play_next()
                failures = 0
            except LadderError as error:
                # The database or the referee away for a while: a service waits it out (each
                # failure a line in the log), and what was recorded stays recorded.
                failures += 1
                self.counts.errors += 1
                log.error(
                    "%s (try %d; trying again)",
                    error,
                    failures,
                    extra={"event": "ladder_error", "failures": failures},
                )
                played = False
            if not played:
                wait = min(self.config.interval_s * 2 ** min(failures, 6), MAX_RETRY_WAIT_S)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), max(wait, self.config.interval_s))

    async def play_next(self) -> bool:
        """Plan (or take back) one block and play it; False when none could be planned."""
        async with self._planning:
            for index in sorted(self._unreleased):
                await self._release(index)
            planned = await self._next_block()
            if planned is not None:
                self._playing.update(planned[1])
                # Seen playing from now, not only at the next look (the block may be long).
                playing = {
                    bot: (Presence.PLAYING, self._sessions.get(bot, 0)) for bot in planned[1]
                }
                await finish_in_thread(self.store.see_versions, self.config.name, playing)
        if planned is None:
            return False
        index, bots, _, _ = planned
        self.counts.in_flight += 1
        try:
            return await self._play(*planned)
        except LadderError:
            self._unreleased.add(index)  # given back at the next look, once the store answers
            raise
        finally:
            self.counts.in_flight -= 1
            self._playing.difference_update(bots)
            # Idle until the next look says otherwise (a bot that left is seen away then).
            idle = {bot: (Presence.IDLE, self._sessions.get(bot, 0)) for bot in bots}
            with contextlib.suppress(LadderError):
                await finish_in_thread(self.store.see_versions, self.config.name, idle)

    async def _release(self, index: int) -> None:
        await finish_in_thread(self.store.release_claims, self.config.name, self.runner, index)
        self._unreleased.discard(index)

    async def _play(
        self, index: int, bots: tuple[str, ...], deals: int, versions: list[LadderVersion]
    ) -> bool:
        name = self.config.name
        block = await finish_in_thread(self.store.planned_block, name, index)
        plan = plan_block(self.config.seed, index, bots)
        season = replace(self.config.season(versions), deals_per_match=deals)
        player = RefereeBlocks(self.admin, season, {v.name: v.bot_id for v in versions}, ())

        def event(kind: EventKind, detail: str = "") -> LadderEvent:
            return LadderEvent(kind, index, bots, detail, block.challenge_id, block.rated)

        about = {
            "block": index,
            "bots": list(bots),
            "bot_ids": [v.bot_id for name in bots for v in versions if v.name == name],
            "challenge_id": block.challenge_id,
            "rated": block.rated,
        }
        started = self.clock()
        log.info("block %d planned: %s", index, ", ".join(bots), extra=about | _event("planned"))
        self.listener(event(EventKind.PLANNED))
        try:
            outcomes = await player.play_block(plan, lambda: None)
        except (BlockFailedError, LadderError) as error:
            # A bot gone when its match was seated, or a match that did not finish: the block
            # goes back to be played later (its seats may then be given to others).
            await self._release(index)
            self.counts.blocks_given_back += 1
            log.warning("block %d given back: %s", index, error, extra=about | _event("given_back"))
            for bot in bots:
                if bot in str(error) or _bot_id_in(versions, bot, str(error)):
                    await finish_in_thread(
                        self.store.version_error, name, bot, f"block {index}: {error}"
                    )
            self.listener(event(EventKind.GIVEN_BACK, str(error)))
            return False
        results = block_results(plan, outcomes)
        await finish_in_thread(
            record_and_rate, self.store, name, plan, outcomes, results, self.model.rate_block
        )
        if block.challenge_id is not None:
            await finish_in_thread(
                self.store.set_challenge, block.challenge_id, ChallengeState.PLAYED
            )
            self.counts.challenges_played += 1
        for bot, result in sorted(results.items()):
            trouble = _trouble(result)
            if trouble:
                await finish_in_thread(
                    self.store.version_error, name, bot, f"block {index}: {trouble}"
                )
        self.counts.block_played(self.clock() - started, rated=block.rated)
        match_ids = [outcome.match_id for outcome in outcomes]
        log.info(
            "block %d recorded: %s",
            index,
            ", ".join(bots),
            extra=about | _event("recorded") | {"match_ids": match_ids},
        )
        self.listener(event(EventKind.RECORDED))
        return True

    async def _next_block(
        self,
    ) -> tuple[int, tuple[str, ...], int, list[LadderVersion]] | None:
        """The block to play next: its index, its bots (rotation 0), its deals per match and
        the versions."""
        name = self.config.name
        versions = await finish_in_thread(self.store.versions, name)
        connected = await self._connected(versions)
        taken = await finish_in_thread(self.store.claim_block, name, self.runner)
        if taken is not None:
            block = await finish_in_thread(self.store.planned_block, name, taken)
            bots = self._reseated(block.bots, connected)
            if bots is None:
                await finish_in_thread(self.store.release_claims, name, self.runner, taken)
                self.counts.waits += 1
                self.listener(
                    LadderEvent(EventKind.WAITING, taken, block.bots, "its bots are away")
                )
                return None
            if bots != block.bots:
                await finish_in_thread(self.store.replan_block, name, taken, bots)
            return taken, bots, block.deals, versions
        challenge = await self._challenge(connected)
        if challenge is not None:
            bots, deals, rated, challenge_id = challenge
        else:
            picked = await self._matchmaking(versions, connected)
            if picked is None:
                detail = _too_few(connected, self.config)
                self.counts.waits += 1
                log.debug("waiting: %s", detail, extra=_event("waiting"))
                self.listener(LadderEvent(EventKind.WAITING, detail=detail))
                return None
            bots, deals, rated, challenge_id = picked, self.config.deals_per_match, True, None
        index = await finish_in_thread(
            lambda: self.store.plan_block(
                name,
                bots,
                self.config.seed,
                self.runner,
                deals=deals,
                rated=rated,
                challenge_id=challenge_id,
            )
        )
        return index, bots, deals, versions

    async def _connected(self, versions: Sequence[LadderVersion]) -> dict[str, LadderVersion]:
        """The active versions with a free seat session at the referee, by name."""
        sessions = await self.admin.sessions()
        free: dict[str, int] = {}
        for session in sessions:
            if session.state is SessionState.LOBBY:
                free[session.bot_id] = free.get(session.bot_id, 0) + 1
        need = self.config.matches_at_once
        seen = {
            version.name: (
                Presence.PLAYING
                if version.name in self._playing
                else Presence.IDLE
                if free.get(version.bot_id, 0) >= need
                else Presence.AWAY,
                free.get(version.bot_id, 0),
            )
            for version in versions
            if version.active
        }
        await finish_in_thread(self.store.see_versions, self.config.name, seen)
        self._sessions = {name: sessions for name, (_, sessions) in seen.items()}
        self.counts.versions_active = len(seen)
        self.counts.versions_connected = sum(
            presence is not Presence.AWAY for presence, _ in seen.values()
        )
        return {
            version.name: version
            for version in versions
            if version.active and seen[version.name][0] is Presence.IDLE
        }

    def _reseated(
        self, bots: tuple[str, ...], connected: Mapping[str, LadderVersion]
    ) -> tuple[str, ...] | None:
        """``bots`` with each seat whose bot is away given to a connected version not seated
        yet; None when there are not enough."""
        spare = [name for name in connected if name not in bots]
        seated = []
        for bot in bots:
            if bot in connected:
                seated.append(bot)
            elif spare:
                seated.append(spare.pop(0))
            else:
                return None
        return tuple(seated)

    async def _challenge(
        self, connected: Mapping[str, LadderVersion]
    ) -> tuple[tuple[str, ...], int, bool, int] | None:
        queued = await finish_in_thread(
            self.store.challenges, self.config.name, ChallengeState.QUEUED
        )
        versions = await finish_in_thread(self.store.versions, self.config.name)
        active = {v.name for v in versions if v.active}
        for challenge in queued:
            gone = [bot for bot in challenge.bots if bot not in active]
            if gone:
                detail = f"{', '.join(gone)} left the ladder"
                await finish_in_thread(
                    self.store.set_challenge,
                    challenge.challenge_id,
                    ChallengeState.REFUSED,
                    detail,
                )
                self.counts.challenges_refused += 1
                log.warning(
                    "challenge #%d refused: %s",
                    challenge.challenge_id,
                    detail,
                    extra=_event("challenge_refused") | {"challenge_id": challenge.challenge_id},
                )
                self.listener(
                    LadderEvent(
                        EventKind.REFUSED,
                        bots=challenge.bots,
                        detail=detail,
                        challenge=challenge.challenge_id,
                    )
                )
                continue
            if all(bot in connected for bot in challenge.bots):
                seated = _filled(challenge.bots, connected, self.config.players)
                if seated is not None:
                    return seated, challenge.deals, challenge.rated, challenge.challenge_id
        return None

    async def _matchmaking(
        self, versions: Sequence[LadderVersion], connected: Mapping[str, LadderVersion]
    ) -> tuple[str, ...] | None:
        active = sum(version.active for version in versions)
        window = history_window(active, self.config.players)
        history = await finish_in_thread(self.store.play_history, self.config.name, window)
        candidates = [
            Candidate(
                version.name,
                version.rating,
                version.blocks,
                history.last.get(version.name),
                history.blocks.get(version.name, 0),
            )
            for version in versions
            if version.name in connected
        ]
        chosen = choose_block(
            candidates,
            history.pairs,
            self.config.players,
            history.next_block,
            beta=self.config.rating.beta,
        )
        if chosen is None:
            return None
        # Matchmaking names the players in name order; their seats are drawn from the block's
        # seed, so that neighbours at the table change from block to block.
        seats = list(chosen)
        random.Random(f"{self.config.seed}:{history.next_block}").shuffle(seats)
        return tuple(seats)


def _filled(
    named: tuple[str, ...], connected: Mapping[str, LadderVersion], seats: int
) -> tuple[str, ...] | None:
    """A challenge's bots with its empty seats given to the connected versions rated closest
    to the named ones (their mean mu); None when too few are connected."""
    if len(named) >= seats:
        return named
    mean = sum(connected[bot].rating.mu for bot in named) / len(named)
    others = sorted(
        (version for name, version in connected.items() if name not in named),
        key=lambda version: (abs(version.rating.mu - mean), version.name),
    )
    if len(others) < seats - len(named):
        return None
    return named + tuple(version.name for version in others[: seats - len(named)])


def _event(name: str) -> dict[str, Any]:
    """A log record's ``event`` (its JSON line's key), with the ladder's prefix."""
    return {"event": f"ladder_{name}"}


def _trouble(result: BotBlockResult) -> str:
    """What went wrong for a bot in a block, in words; empty when nothing did."""
    parts = []
    if result.forfeited:
        parts.append("forfeited a match")
    if result.timeouts:
        parts.append(f"{result.timeouts} timeout(s)")
    if result.illegal:
        parts.append(f"{result.illegal} illegal move(s)")
    return ", ".join(parts)


def _bot_id_in(versions: Sequence[LadderVersion], bot: str, text: str) -> bool:
    return any(v.name == bot and v.bot_id and v.bot_id in text for v in versions)


def _too_few(connected: Mapping[str, LadderVersion], config: LadderConfig) -> str:
    return (
        f"{len(connected)} active version(s) connected with {config.matches_at_once} free "
        f"session(s), {config.players} needed"
    )


def new_version_rating(config: LadderConfig) -> tuple[Rating, float]:
    """A family's first version's rating, and how much a later one widens the one before."""
    return RatingModel(config.rating).initial(), VERSION_WIDEN * config.rating.sigma


def with_players(config: LadderConfig) -> LadderConfig:
    """``config`` with its ruleset's seat count."""
    return replace(config, players=players_of(config.ruleset, config.options))

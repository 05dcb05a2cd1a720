"""The always-on ladder (``brandeln ladder serve``): blocks played one after another among the
bot versions that are connected, chosen by matchmaking, for as long as it runs.

A ladder is a season whose blocks are planned one at a time (:mod:`brandeln.ladder.store.living`):

1. A block planned and not finished (a killed run's, or one given back) is played first, the
   same block again: nothing of it was recorded, and the ratings wait for it in block order.
   If one of its bots has left (retired, or not connected), other connected versions take
   the empty seats.
2. Else the oldest queued challenge whose bots are all connected (a challenge naming a retired
   version is refused).
3. Else matchmaking (:mod:`brandeln.ladder.living.matchmaking`) among the connected active versions.

Each block is the duplicate format of a season (:func:`brandeln.ladder.season.duplicate.plan_block`:
every seat rotation, suits relabelled), dealt from its seed period's committed seed
(:mod:`brandeln.ladder.living.periods`), played through the referee's Admin service
(:class:`brandeln.ladder.season.runner.RefereeBlocks`) and recorded with the ratings it unlocks in
one transaction (:func:`brandeln.ladder.ratings.order.record_and_rate`; a challenge played unrated
keeps its place and moves no rating). A version that is not connected is skipped, never forfeited;
one that leaves mid-block forfeits under the referee's rules. A block that cannot be played (a bot
gone when its match is seated) is given back and planned again later.

Stopping (:meth:`LivingLadder.serve`'s ``stop`` set) stops taking blocks and gives back the
blocks in flight (their matches, already started at the referee, end there unrecorded).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from brandeln.ladder.errors import BlockFailedError, LadderError, StorageError
from brandeln.ladder.living.config import EventKind, LadderConfig, LadderEvent, Listener
from brandeln.ladder.living.counts import LadderCounts
from brandeln.ladder.living.periods import announce_period
from brandeln.ladder.living.play import LadderPlayer, PresenceSource, RefereePlayer, RefereePresence
from brandeln.ladder.living.seating import filled, history_window, matchmade, reseated, trouble
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.referee.admin_client import AdminClient
from brandeln.ladder.season.claims import HEARTBEAT_S, new_runner_id, retire
from brandeln.ladder.season.duplicate import block_results, plan_seeded_block
from brandeln.ladder.store.database import LadderStore, LadderVersion
from brandeln.ladder.store.schema import ChallengeState, Presence
from brandeln.ladder.store.season_rows import SeasonStatus
from brandeln.ladder.tasks import finish_in_thread

__all__ = ["STOPPED", "LadderLogEvent", "LivingLadder"]

log = logging.getLogger("brandeln.ladder.living")

# The longest wait between tries while the database or the referee is away.
MAX_RETRY_WAIT_S: Final = 30.0
# Why a block in flight is given back when the ladder stops.
STOPPED: Final = "the ladder is stopping"


class LadderLogEvent(enum.StrEnum):
    """The ``event`` of the ladder's log records (a JSON line's key under --log-json)."""

    PLANNED = "ladder_planned"  # a block is about to be played
    RECORDED = "ladder_recorded"  # with its match_ids and bot_ids
    GIVEN_BACK = "ladder_given_back"  # not played (a bot gone, the ladder stopping): later
    CHALLENGE_REFUSED = "ladder_challenge_refused"  # it names a version no longer active
    WAITING = "ladder_waiting"  # too few versions connected (at debug)
    ERROR = "ladder_error"  # the store or the referee away: tried again
    STORE_ERROR = "store_error"  # a heartbeat the store refused: the next one tries again


class LivingLadder:
    """One run of an always-on ladder (see the module docstring): on the referee of ``admin``,
    or wherever ``player`` plays and ``presence`` looks (:mod:`brandeln.ladder.living.play`)."""

    def __init__(
        self,
        config: LadderConfig,
        store: LadderStore,
        admin: AdminClient | None,
        *,
        listener: Listener | None = None,
        clock: Callable[[], float] = time.monotonic,
        player: LadderPlayer | None = None,
        presence: PresenceSource | None = None,
    ) -> None:
        self.config = config
        self.store = store
        if admin is not None:
            player, presence = player or RefereePlayer(admin), presence or RefereePresence(admin)
        if player is None or presence is None:
            raise ValueError("a ladder without a referee needs its player and presence source")
        self.player: LadderPlayer = player
        self.presence: PresenceSource = presence
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
        self._registered = False

    @property
    def blocks_recorded(self) -> int:
        return self.counts.blocks_rated + self.counts.blocks_unrated

    async def register(self) -> None:
        """Write the ladder and this run's settings to the store, once: a command does it
        before it says the ladder serves, so that from that line on ``bots version add`` and
        the version launcher find the ladder (:meth:`serve` does it where nobody did)."""
        if self._registered:
            return
        await finish_in_thread(
            self.store.ladders.ensure_ladder,
            self.config.name,
            self.config.settings(),
            self.config.players,
            self.config.run_settings(),
        )
        self._registered = True

    async def serve(self, stop: asyncio.Event) -> None:
        """Play blocks until ``stop`` is set; then give back what is in flight."""
        await self.register()
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
                await finish_in_thread(
                    self.store.blocks.release_claims, self.config.name, self.runner
                )
                # Stopped, as a season stopped by Ctrl-C says: `season list` and the web tell
                # a ladder that serves from one that does not (a SIGKILL leaves it running,
                # and its presence going stale tells that).
                await finish_in_thread(
                    self.store.seasons.set_season_status,
                    self.config.name,
                    SeasonStatus.INTERRUPTED,
                    "stopped",
                )
            retire(self.runner)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await asyncio.to_thread(self.store.blocks.heartbeat, self.config.name, self.runner)
                await asyncio.to_thread(self.store.presence.touch_presence, self.config.name)
            except StorageError as error:  # the next beat tries again; the claims stay ours
                log.warning("heartbeat failed: %s", error, extra=_event(LadderLogEvent.STORE_ERROR))

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
                    extra=_event(LadderLogEvent.ERROR) | {"failures": failures},
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
                await finish_in_thread(self.store.presence.see_versions, self.config.name, playing)
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
                await finish_in_thread(self.store.presence.see_versions, self.config.name, idle)

    async def _release(self, index: int) -> None:
        await finish_in_thread(
            self.store.blocks.release_claims, self.config.name, self.runner, index
        )
        self._unreleased.discard(index)

    async def _play(
        self, index: int, bots: tuple[str, ...], deals: int, versions: list[LadderVersion]
    ) -> bool:
        name = self.config.name
        block = await finish_in_thread(self.store.planned.planned_block, name, index)
        plan = plan_seeded_block(block.seed, index, bots)  # its period's seed (planned)
        season = replace(self.config.season(versions), deals_per_match=deals)

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
        log.info(
            "block %d planned: %s",
            index,
            ", ".join(bots),
            extra=about | _event(LadderLogEvent.PLANNED),
        )
        self.listener(event(EventKind.PLANNED))

        def given_back(level: int, why: str) -> None:
            self.counts.blocks_given_back += 1
            given = about | _event(LadderLogEvent.GIVEN_BACK)
            log.log(level, "block %d given back: %s", index, why, extra=given)
            self.listener(event(EventKind.GIVEN_BACK, why))

        try:
            outcomes = await self.player.play_block(season, versions, plan)
        except (BlockFailedError, LadderError) as error:
            # A bot gone when its match was seated, or a match that did not finish: the block
            # goes back to be played later (its seats may then be given to others).
            await self._release(index)
            for bot in bots:
                if bot in str(error) or _bot_id_in(versions, bot, str(error)):
                    await finish_in_thread(
                        self.store.presence.version_error, name, bot, f"block {index}: {error}"
                    )
            given_back(logging.WARNING, str(error))
            return False
        except asyncio.CancelledError:
            # Stopped mid-block: serve() gives back the run's claims once its workers are
            # done, this block's among them. A stop is no trouble: said at info.
            given_back(logging.INFO, STOPPED)
            raise

        async def record() -> bool:
            results = block_results(plan, outcomes)
            await finish_in_thread(
                record_and_rate, self.store, name, plan, outcomes, results, self.model.rate_block
            )
            if block.challenge_id is not None:
                await finish_in_thread(
                    self.store.challenges.set_challenge, block.challenge_id, ChallengeState.PLAYED
                )
                self.counts.challenges_played += 1
            for bot, result in sorted(results.items()):
                went_wrong = trouble(result)
                if went_wrong:
                    await finish_in_thread(
                        self.store.presence.version_error, name, bot, f"block {index}: {went_wrong}"
                    )
            self.counts.block_played(self.clock() - started, rated=block.rated)
            match_ids = [outcome.match_id for outcome in outcomes]
            log.info(
                "block %d recorded: %s",
                index,
                ", ".join(bots),
                extra=about | _event(LadderLogEvent.RECORDED) | {"match_ids": match_ids},
            )
            self.listener(event(EventKind.RECORDED))
            return True

        # Played: recorded whole even if the ladder stops meanwhile. The transaction cannot be
        # cut short (brandeln.ladder.tasks.finish_in_thread), and what follows it (the challenge
        # marked played, the count, the log's ladder_recorded) belongs with it.
        recording = asyncio.ensure_future(record())
        try:
            return await asyncio.shield(recording)
        except asyncio.CancelledError:
            await asyncio.wait({recording})
            failure = None if recording.cancelled() else recording.exception()
            if failure is not None:
                # Not recorded: serve() gives the block back with the run's claims, and the
                # next run plays it again. Said here: the worker that would say it is stopped.
                given_back(logging.WARNING, f"{failure} ({STOPPED})")
            raise

    async def _next_block(
        self,
    ) -> tuple[int, tuple[str, ...], int, list[LadderVersion]] | None:
        """The block to play next: its index, its bots (rotation 0), its deals per match and
        the versions."""
        name = self.config.name
        versions = await finish_in_thread(self.store.ladders.versions, name)
        connected = await self._connected(versions)
        taken = await finish_in_thread(self.store.blocks.claim_block, name, self.runner)
        if taken is not None:
            block = await finish_in_thread(self.store.planned.planned_block, name, taken)
            bots = reseated(block.bots, connected)
            if bots is None:
                await finish_in_thread(self.store.blocks.release_claims, name, self.runner, taken)
                self.counts.waits += 1
                self.listener(
                    LadderEvent(EventKind.WAITING, taken, block.bots, "its bots are away")
                )
                return None
            if bots != block.bots:
                await finish_in_thread(self.store.planned.replan_block, name, taken, bots)
            return taken, bots, block.deals, versions
        challenge = await self._challenge(connected)
        if challenge is not None:
            bots, deals, rated, challenge_id = challenge
        else:
            picked = await self._matchmaking(versions, connected)
            if picked is None:
                detail = (
                    f"{len(connected)} active version(s) connected with "
                    f"{self.config.matches_at_once} free session(s), {self.config.players} needed"
                )
                self.counts.waits += 1
                log.debug("waiting: %s", detail, extra=_event(LadderLogEvent.WAITING))
                self.listener(LadderEvent(EventKind.WAITING, detail=detail))
                return None
            bots, deals, rated, challenge_id = picked, self.config.deals_per_match, True, None
        index = await finish_in_thread(
            lambda: self.store.planned.plan_block(
                name,
                bots,
                self.config.seed,
                self.runner,
                deals=deals,
                rated=rated,
                challenge_id=challenge_id,
                period_blocks=self.config.period_blocks,
            )
        )
        period = await finish_in_thread(
            announce_period, self.store.commitments.period_of_block, name, index
        )
        if period is not None:  # the block opens a period: its commitment is published now
            detail = (
                f"period {period.period} (blocks {period.first_block}-{period.last_block}) "
                f"committed: {period.commitment.digest}"
            )
            self.listener(LadderEvent(EventKind.COMMITTED, index, bots, detail))
        return index, bots, deals, versions

    async def _connected(self, versions: Sequence[LadderVersion]) -> dict[str, LadderVersion]:
        """The active versions free to be seated, by name (each one's presence recorded)."""
        seen = await self.presence.presence(versions, self._playing, self.config.matches_at_once)
        await finish_in_thread(self.store.presence.see_versions, self.config.name, seen)
        self._sessions = {name: free for name, (_, free) in seen.items()}
        self.counts.versions_active = len(seen)
        self.counts.versions_connected = sum(
            state is not Presence.AWAY for state, _ in seen.values()
        )
        return {
            name: v for v in versions if (name := v.name) in seen and seen[name][0] is Presence.IDLE
        }

    async def _challenge(
        self, connected: Mapping[str, LadderVersion]
    ) -> tuple[tuple[str, ...], int, bool, int] | None:
        queued = await finish_in_thread(
            self.store.challenges.challenges, self.config.name, ChallengeState.QUEUED
        )
        versions = await finish_in_thread(self.store.ladders.versions, self.config.name)
        active = {v.name for v in versions if v.active}
        for challenge in queued:
            gone = [bot for bot in challenge.bots if bot not in active]
            if gone:
                detail = f"{', '.join(gone)} left the ladder"
                await finish_in_thread(
                    self.store.challenges.set_challenge,
                    challenge.challenge_id,
                    ChallengeState.REFUSED,
                    detail,
                )
                self.counts.challenges_refused += 1
                log.warning(
                    "challenge #%d refused: %s",
                    challenge.challenge_id,
                    detail,
                    extra=_event(LadderLogEvent.CHALLENGE_REFUSED)
                    | {"challenge_id": challenge.challenge_id},
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
                seated = filled(challenge.bots, connected, self.config.players)
                if seated is not None:
                    return seated, challenge.deals, challenge.rated, challenge.challenge_id
        return None

    async def _matchmaking(
        self, versions: Sequence[LadderVersion], connected: Mapping[str, LadderVersion]
    ) -> tuple[str, ...] | None:
        active = sum(version.active for version in versions)
        window = history_window(active, self.config.players)
        history = await finish_in_thread(self.store.planned.play_history, self.config.name, window)
        config = self.config
        return matchmade(
            versions, connected, history, config.players, config.rating.beta, config.seed
        )


def _event(name: LadderLogEvent) -> dict[str, Any]:
    """A log record's ``event`` (its JSON line's key)."""
    return {"event": name}


def _bot_id_in(versions: Sequence[LadderVersion], bot: str, text: str) -> bool:
    return any(v.name == bot and v.bot_id and v.bot_id in text for v in versions)

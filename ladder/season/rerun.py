"""A season's final rerun: extra blocks among its top K bots while their intervals overlap.

Asked for by ``season run --rerun-top K`` or a season file's ``[rerun]`` table, it begins once
every block of the season is recorded, and ends with a reason (:class:`RerunStop`).

**Which bots.** The K best by batch strength (:mod:`brandeln.ladder.ratings.batch`) over the
season's own blocks, chosen once when the rerun begins and kept with the season
(:mod:`brandeln.ladder.store.rerun`): the rerun asks for the order of these K, so a bot the season
placed lower never joins it, and a later run goes on among the same K.

**When it stops.** Before each rerun block the batch ratings of every recorded block of the
season (the rerun's included) are fitted again, and the rerun stops, *separated*, when no two
of the K have overlapping 95% bootstrap intervals. Every pair, not only neighbours by strength:
intervals of different widths can overlap between non-neighbours while neighbours are apart,
and what the rerun is for is the whole order of the K, not only its first place (so not the
leader's probability of rank 1, which says nothing about second and third). Disjoint 95%
intervals are a strict test: two equal bots with intervals of equal width are told apart by
chance about once in 180 fits (the gap must exceed 2.77 standard errors of the difference).
A bot without an interval (fewer than two blocks fitted) overlaps every other.

**The cap.** At most ``max_blocks`` rerun blocks (``--rerun-max-blocks``); by default as many
as give the K bots together as many seats again as the season gave them (the sum of their
season blocks over the seats of a table, rounded up; at least the ``ceil(K / seats)`` blocks
that seat each of them once): the rerun at most doubles their evidence, which narrows an
interval by about 1/sqrt(2). Bots whose intervals still overlap then are close enough that
telling them apart costs much more; a later run with a higher cap goes on where this one
stopped.

**Seats and deals.** Rerun block ``j`` seats the ``j``-th table of the schedule's rule for the
K bots (:func:`brandeln.ladder.season.schedule.schedule`: each plays equally often, pairs meet
evenly; with K equal to the seats, all of them every block) in duplicate, with the deal seed of its
index (:func:`brandeln.ladder.season.duplicate.block_seed`): new deals. Its blocks are recorded and
rated by TrueSkill in block order like the season's others.

**One block at a time, resumable.** Each rerun block is planned (with its claim, in one
transaction) only once every block before it is recorded, as the fit before it decides; a run
killed mid-block leaves its claim, which the next run takes over and plays again from the
start, so nothing is counted twice. The verdict is a function of the recorded blocks (the
bootstrap's seed is fixed), so a resumed rerun decides as an uninterrupted one would, and a
rerun that has stopped plays nothing more when run again (unless its cap is raised).

>>> pairs = overlapping([BotInterval("a", 2.0, 1.5, 2.5), BotInterval("b", 1.0, 0.4, 1.6),
...                      BotInterval("c", -1.0, -1.5, -0.5)])
>>> pairs
(('a', 'b'),)
>>> default_cap([12, 12, 11, 13], seats=4)
12
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations
from typing import Final

from brandeln.ladder.errors import LadderError
from brandeln.ladder.ratings.batch import BatchRatings, blocks_from_results, fit_batch_ratings
from brandeln.ladder.season.commitment import SeedState
from brandeln.ladder.season.config import SeasonConfig
from brandeln.ladder.season.duplicate import BotBlockResult, plan_block
from brandeln.ladder.season.run import BlockPlayer, RerunProgress, SeasonRun
from brandeln.ladder.season.schedule import schedule
from brandeln.ladder.store.database import LadderStore, RerunRecord
from brandeln.ladder.tasks import finish_in_thread

__all__ = [
    "FIT_SEED",
    "RESAMPLES",
    "BotInterval",
    "RerunError",
    "RerunStop",
    "RerunSummary",
    "default_cap",
    "overlapping",
    "play_rerun",
    "refuse_another_top",
]

RESAMPLES: Final = 1000  # the bootstrap's resamples per fit (about a second for 50 blocks)
FIT_SEED: Final = 0  # fixed: the same blocks give the same verdict, run after run


class RerunStop(StrEnum):
    """Why the rerun stopped."""

    SEPARATED = "separated"  # no two of the top bots' intervals overlap
    CAP = "cap"  # its cap of blocks is played, and some still overlap
    WAITING = "waiting"  # another live run holds a block of the season: run again later


class RerunError(LadderError):
    """A rerun that cannot be played as asked (too few rated bots, another K than stored)."""


@dataclass(frozen=True, slots=True)
class BotInterval:
    """A top bot's batch strength and its 95% interval (None: no bootstrap yet)."""

    bot: str
    strength: float
    low: float | None
    high: float | None

    def text(self) -> str:
        if self.low is None or self.high is None:
            return f"{self.bot} {self.strength:+.2f} (no interval yet)"
        return f"{self.bot} {self.strength:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"


@dataclass(frozen=True, slots=True)
class RerunSummary:
    """What the rerun did in one run, and why it stopped (``message`` says it in a line)."""

    stopped: RerunStop
    top: tuple[str, ...]  # the bots it is among (empty: it could not begin yet)
    after: int  # the season's blocks before it
    cap: int
    blocks_played: int  # rerun blocks played in this run
    blocks_done: int  # rerun blocks recorded, in all
    intervals: tuple[BotInterval, ...]  # the top bots, strongest first, by the last fit
    overlapping: tuple[tuple[str, str], ...]
    message: str


def overlapping(intervals: Sequence[BotInterval]) -> tuple[tuple[str, str], ...]:
    """The pairs of ``intervals`` (in their order) whose closed intervals overlap; a bot
    without an interval overlaps every other."""

    def apart(one: BotInterval, other: BotInterval) -> bool:
        if one.low is None or one.high is None or other.low is None or other.high is None:
            return False
        return one.low > other.high or other.low > one.high

    return tuple(
        (one.bot, other.bot) for one, other in combinations(intervals, 2) if not apart(one, other)
    )


def default_cap(season_blocks: Sequence[int], seats: int) -> int:
    """The default cap for top bots that played ``season_blocks`` blocks each in the season
    (see the module's docstring)."""
    return max(math.ceil(len(season_blocks) / seats), math.ceil(sum(season_blocks) / seats), 1)


def top_intervals(ratings: BatchRatings, top: Sequence[str]) -> tuple[BotInterval, ...]:
    """The ``top`` bots' intervals, strongest first (then by name)."""
    found = []
    for bot in top:
        rating = ratings.rating(bot)
        if rating is None:  # cannot happen once they played: the rerun seats only them
            found.append(BotInterval(bot, 0.0, None, None))
        else:
            found.append(BotInterval(bot, rating.strength, rating.low, rating.high))
    return tuple(sorted(found, key=lambda interval: (-interval.strength, interval.bot)))


PlayerGetter = Callable[[], Awaitable[BlockPlayer]]


def refuse_another_top(record: RerunRecord | None, config: SeasonConfig) -> None:
    """Raise :class:`RerunError` when ``config`` asks for a rerun among another number of
    bots than the one ``record`` (the season's rerun, if begun) is among: checked before a run
    starts too, so a mistaken request leaves the season as it was."""
    if record is None or config.rerun is None or len(record.top) == config.rerun.top:
        return
    raise RerunError(
        f"season {config.name!r} has a rerun among its top {len(record.top)} "
        f"({', '.join(record.top)}): ask for the top {len(record.top)} to go on with it"
    )


async def play_rerun(run: SeasonRun, player: PlayerGetter) -> RerunSummary:
    """Play the final rerun ``run.config.rerun`` asks for, with the player ``player()`` gives
    (entered only if a block is to be played), until it stops; see the module's docstring.

    Raises :class:`RerunError` when it cannot be played as asked, or the player's errors (the
    blocks recorded before stay recorded).
    """
    config, store = run.config, run.store
    asked = config.rerun
    if asked is None:
        raise ValueError(f"season {config.name!r} asks for no rerun")
    season = config.name
    bots = [bot.name for bot in config.bots]
    fits = _Fits(bots)
    # The committed seed the season's blocks follow (brandeln.ladder.season.commitment): the file's,
    # or the secret one drawn when the season was created.
    seed = await finish_in_thread(store.commitments.season_deal_seed, season)
    record = await finish_in_thread(store.rerun.rerun, season)
    if record is None:
        finished = await finish_in_thread(store.blocks.finished_blocks, season)
        if not set(range(config.blocks)) <= finished:
            return _waiting_for_the_season(config.blocks, asked.max_blocks or 0)
        results = await finish_in_thread(store.reads.results, season)
        ratings = await fits.fit(results)
        top = _top(ratings, asked.top)
        record = await finish_in_thread(store.rerun.start_rerun, season, config.blocks, top)
    refuse_another_top(record, config)
    results = await finish_in_thread(store.reads.results, season)
    season_blocks = Counter(result.bot for index, result in results if index < record.after)
    cap = asked.max_blocks or default_cap(
        [season_blocks[bot] for bot in record.top], config.players
    )
    tables = schedule(record.top, config.players, max(cap, record.planned), seed)
    done = len({index for index, _ in results if record.is_rerun_block(index)})
    run.rerun = RerunProgress(record.top, done, cap, ())
    played_before = run.blocks_played
    intervals: tuple[BotInterval, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    async with run.heartbeating():
        while True:
            index = await finish_in_thread(store.blocks.claim_block, season, run.runner)
            if index is None:
                # Nothing left to take over: the fit of every recorded block decides.
                ratings = await fits.fit(await finish_in_thread(store.reads.results, season))
                intervals = top_intervals(ratings, record.top)
                pairs = overlapping(intervals)
                run.rerun = replace(_progress(run), overlapping=pairs)
                run.report(force=True)
                if not pairs:
                    stopped = RerunStop.SEPARATED
                    break
                record = await finish_in_thread(_stored_rerun, store, season)
                # The cap before the seed: a rerun stopped at its cap says so when run again,
                # whether or not its season's seed has been revealed since.
                if record.planned >= cap:
                    stopped = RerunStop.CAP
                    break
                await finish_in_thread(_refuse_a_known_seed, store, season)
                index = await finish_in_thread(
                    store.rerun.plan_rerun_block, season, run.runner, cap
                )
                if index is None:
                    # Another run planned the block meanwhile (or reached the cap first).
                    record = await finish_in_thread(_stored_rerun, store, season)
                    stopped = RerunStop.CAP if record.planned >= cap else RerunStop.WAITING
                    break
            if not record.is_rerun_block(index):
                raise RerunError(f"block {index} of season {season!r} is not recorded yet")
            rerun_block = index - record.after
            table = (
                tables[rerun_block]
                if rerun_block < len(tables)
                else schedule(record.top, config.players, rerun_block + 1, seed)[-1]
            )
            await run.play_one(await player(), plan_block(seed, index, table))
    return _summary(
        stopped,
        record,
        cap,
        run.blocks_played - played_before,
        _progress(run).blocks_done,
        intervals,
        pairs,
    )


def _progress(run: SeasonRun) -> RerunProgress:
    if run.rerun is None:
        raise ValueError("the rerun has not begun")
    return run.rerun


def _refuse_a_known_seed(store: LadderStore, season: str) -> None:
    """A season's secret seed is revealed once it is finished (a stopped rerun included):
    another rerun block then would deal from a seed everyone knows."""
    commitment = store.commitments.season_commitment(season)
    if commitment is not None and commitment.state is SeedState.REVEALED:
        raise RerunError(
            f"season {season!r} is finished and its seed revealed: more rerun blocks would "
            "deal from a known seed. Play them as a new season (another name)"
        )


def _stored_rerun(store: LadderStore, season: str) -> RerunRecord:
    record = store.rerun.rerun(season)
    if record is None:
        raise RerunError(f"season {season!r} lost its rerun")
    return record


class _Fits:
    """Batch ratings of a season's recorded blocks, fitted in a worker thread (about a
    second: the event loop keeps serving the bots meanwhile), once per set of blocks."""

    def __init__(self, bots: Sequence[str]) -> None:
        self.bots = tuple(bots)
        self._last: tuple[tuple[int, ...], BatchRatings] | None = None

    async def fit(self, results: Sequence[tuple[int, BotBlockResult]]) -> BatchRatings:
        key = tuple(sorted({index for index, _ in results}))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        ratings = await asyncio.to_thread(
            fit_batch_ratings,
            blocks_from_results(results),
            resamples=RESAMPLES,
            seed=FIT_SEED,
            bots=self.bots,
        )
        self._last = (key, ratings)
        return ratings


def _top(ratings: BatchRatings, count: int) -> tuple[str, ...]:
    """The ``count`` best rated bots (by rank, then name)."""
    if len(ratings.bots) < count:
        raise RerunError(
            f"a rerun among the top {count} needs {count} bots rated by the season's blocks; "
            f"they rate {len(ratings.bots)}"
        )
    return tuple(rating.bot for rating in ratings.bots[:count])


def _waiting_for_the_season(after: int, cap: int) -> RerunSummary:
    return RerunSummary(
        stopped=RerunStop.WAITING,
        top=(),
        after=after,
        cap=cap,
        blocks_played=0,
        blocks_done=0,
        intervals=(),
        overlapping=(),
        message="rerun not begun: another run is still playing blocks of the season; run the "
        "same command again once they are recorded",
    )


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _summary(
    stopped: RerunStop,
    record: RerunRecord,
    cap: int,
    played: int,
    done: int,
    intervals: tuple[BotInterval, ...],
    pairs: tuple[tuple[str, str], ...],
) -> RerunSummary:
    shown = ", ".join(interval.text() for interval in intervals)
    if stopped is RerunStop.SEPARATED:
        when = f"after {_counted(done, 'rerun block')}" if done else "by the season's own blocks"
        message = f"rerun stopped: the top {len(record.top)} are separated {when} ({shown})"
    elif stopped is RerunStop.CAP:
        still = ", ".join(f"{one} and {other}" for one, other in pairs)
        message = (
            f"rerun stopped at its cap of {_counted(cap, 'block')}: {still} still overlap ({shown})"
        )
    else:
        message = (
            "rerun paused: another run is playing a block of the season; run the same "
            "command again once it is recorded"
        )
    return RerunSummary(
        stopped=stopped,
        top=record.top,
        after=record.after,
        cap=cap,
        blocks_played=played,
        blocks_done=done,
        intervals=intervals,
        overlapping=pairs,
        message=message,
    )

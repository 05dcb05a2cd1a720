"""Duplicate blocks: the same deals played once per seat rotation, and the block's ranking.

A block seats N bots (N = the ruleset's players) and plays one set of deals (one seed, derived
from the season seed and the block index) as N matches: in rotation ``r`` seat ``s`` holds the
bot ``bots[(s + r) % N]``, so every bot plays every seat's cards once. Each rotation relabels
the suits with a different permutation (identity first, then distinct derangements chosen by
the block's seed), so a bot cannot recognise a deal it has already played in the block.

A bot's block result is its chip total over the N matches. The block ranks bots by that total
(1 is best, equal totals share a rank, competition style 1 2 2 4), except that a bot which
forfeited any of its matches ranks last, below every bot that did not; several forfeiting bots
share that last rank whatever their chips.

>>> plan = plan_block(season_seed=7, index=0, bots=("a", "b", "c", "d"))
>>> [m.bots for m in plan.matches][:2]
[('a', 'b', 'c', 'd'), ('b', 'c', 'd', 'a')]
>>> plan.matches[0].suit_permutation
'CSHD'
>>> rank_block({"a": 5, "b": -3, "c": 5, "d": -7}, forfeited={"a"})
{'a': 4, 'b': 2, 'c': 1, 'd': 3}
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import permutations
from typing import Final

from brandeln.engine.cards import Suit
from brandeln.ladder.season.schedule import schedule

__all__ = [
    "IDENTITY",
    "BlockPlan",
    "BotBlockResult",
    "DecisionLatency",
    "MatchOutcome",
    "MatchPlan",
    "SeatTally",
    "block_results",
    "block_seed",
    "combine_latency",
    "plan_block",
    "plan_season",
    "plan_seeded_block",
    "rank_block",
    "seat_of",
]

IDENTITY: Final = "".join(suit.letter for suit in Suit)
"""The identity suit permutation, written as the images of C S H D."""

_DERANGEMENTS: Final = tuple(
    "".join(images)
    for images in permutations(IDENTITY)
    if all(image != suit for image, suit in zip(images, IDENTITY, strict=True))
)


def block_seed(season_seed: int, index: int) -> int:
    """The deal seed of block ``index``: a 64-bit hash of the season seed and the index.

    >>> block_seed(7, 0) == block_seed(7, 0) != block_seed(7, 1)
    True
    """
    digest = hashlib.sha256(f"brandeln-block:{season_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """One match of a block: which bot sits where and how the suits are relabelled."""

    block: int
    rotation: int
    seed: int
    bots: tuple[str, ...]  # season bot names by seat
    suit_permutation: str  # images of C S H D, e.g. "SHDC"


@dataclass(frozen=True, slots=True)
class BlockPlan:
    """A block: its bots (seating of rotation 0), its deal seed and its N matches."""

    index: int
    seed: int
    bots: tuple[str, ...]
    matches: tuple[MatchPlan, ...]


def seat_of(bots: Sequence[str], rotation: int, seat: int) -> str:
    """The bot at ``seat`` in ``rotation`` of a block seating ``bots`` (rotation 0)."""
    return bots[(seat + rotation) % len(bots)]


def plan_block(season_seed: int, index: int, bots: Sequence[str]) -> BlockPlan:
    """The N matches of block ``index`` for ``bots`` (N = len(bots))."""
    return plan_seeded_block(block_seed(season_seed, index), index, bots)


def plan_seeded_block(seed: int, index: int, bots: Sequence[str]) -> BlockPlan:
    """The N matches of block ``index`` for ``bots`` dealt from the block seed ``seed`` (as
    stored with the block: an always-on ladder's come from its periods' seeds)."""
    seats = len(bots)
    if seats - 1 > len(_DERANGEMENTS):
        raise ValueError(f"no {seats - 1} distinct derangements of the four suits")
    rotations = [IDENTITY, *random.Random(seed).sample(_DERANGEMENTS, seats - 1)]
    return BlockPlan(
        index=index,
        seed=seed,
        bots=tuple(bots),
        matches=tuple(
            MatchPlan(
                block=index,
                rotation=rotation,
                seed=seed,
                bots=tuple(seat_of(bots, rotation, seat) for seat in range(seats)),
                suit_permutation=permutation,
            )
            for rotation, permutation in enumerate(rotations)
        ),
    )


def plan_season(bots: Sequence[str], seats: int, blocks: int, season_seed: int) -> list[BlockPlan]:
    """Every block of a season: the schedule's tables, each played in duplicate."""
    return [
        plan_block(season_seed, index, table)
        for index, table in enumerate(schedule(bots, seats, blocks, season_seed))
    ]


@dataclass(frozen=True, slots=True)
class SeatTally:
    """What one seat did in one match, counted from the match's public events."""

    timeouts: int = 0
    illegal: int = 0  # actions rejected as illegal or malformed
    strikes: int = 0  # every penalty, timeouts and illegal actions included
    contracts_bid: int = 0  # deals it played as soloist after winning the auction
    contracts_made: int = 0  # ... and made


@dataclass(frozen=True, slots=True)
class DecisionLatency:
    """How long a bot took to decide (``MatchSummary.latency``), over one match or more.

    Over one match the referee's nearest-rank percentiles; over several (a block, a season)
    ``p50_ms``/``p95_ms`` are the decision-weighted means of the matches' percentiles, an
    estimate (the ladder keeps no single decision times), and ``max_ms`` is exact.
    """

    decisions: int = 0
    p50_ms: int = 0
    p95_ms: int = 0
    max_ms: int = 0


def combine_latency(parts: Iterable[DecisionLatency]) -> DecisionLatency:
    """Several matches' latencies as one (see :class:`DecisionLatency`).

    >>> combine_latency([DecisionLatency(10, 4, 9, 20), DecisionLatency(30, 8, 13, 15)])
    DecisionLatency(decisions=40, p50_ms=7, p95_ms=12, max_ms=20)
    """
    asked = [part for part in parts if part.decisions]
    decisions = sum(part.decisions for part in asked)
    if not decisions:
        return DecisionLatency()
    return DecisionLatency(
        decisions=decisions,
        p50_ms=round(sum(part.p50_ms * part.decisions for part in asked) / decisions),
        p95_ms=round(sum(part.p95_ms * part.decisions for part in asked) / decisions),
        max_ms=max(part.max_ms for part in asked),
    )


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """A finished match as the ladder records it."""

    plan: MatchPlan
    match_id: str
    balances: tuple[int, ...]  # by seat
    forfeited: frozenset[int]  # seats
    deals_played: int
    tallies: tuple[SeatTally, ...] = field(default=())  # by seat; empty = nothing counted
    latency: tuple[DecisionLatency, ...] = field(default=())  # by seat; empty = not reported


@dataclass(frozen=True, slots=True)
class BotBlockResult:
    """One bot's result in one block: chips and counts summed over its N matches."""

    bot: str
    rank: int
    chips: int
    deals: int
    forfeited: bool
    timeouts: int
    illegal: int
    strikes: int
    contracts_bid: int
    contracts_made: int
    latency: DecisionLatency = DecisionLatency()  # over its N matches


_TALLY_FIELDS: Final = tuple(f.name for f in fields(SeatTally))


def rank_block(chips: Mapping[str, int], forfeited: Iterable[str] = ()) -> dict[str, int]:
    """Competition ranks (1 is best, ties share) by chips; forfeiting bots share last place."""
    out = set(forfeited)
    playing = sorted((bot for bot in chips if bot not in out), key=lambda bot: -chips[bot])
    ranks: dict[str, int] = {}
    for position, bot in enumerate(playing, start=1):
        tied = position > 1 and chips[playing[position - 2]] == chips[bot]
        ranks[bot] = ranks[playing[position - 2]] if tied else position
    for bot in chips:
        if bot in out:
            ranks[bot] = len(playing) + 1
    return {bot: ranks[bot] for bot in sorted(chips)}


def block_results(plan: BlockPlan, outcomes: Sequence[MatchOutcome]) -> dict[str, BotBlockResult]:
    """Each bot's block result from the block's N finished matches (one per rotation)."""
    rotations = sorted(outcome.plan.rotation for outcome in outcomes)
    if rotations != list(range(len(plan.matches))):
        raise ValueError(f"block {plan.index} needs one outcome per rotation, got {rotations}")
    totals: dict[str, dict[str, int]] = {
        bot: dict.fromkeys(("chips", "deals", *_TALLY_FIELDS), 0) for bot in plan.bots
    }
    forfeited: set[str] = set()
    latency: dict[str, list[DecisionLatency]] = {bot: [] for bot in plan.bots}
    for outcome in outcomes:
        for seat, bot in enumerate(outcome.plan.bots):
            if outcome.latency:
                latency[bot].append(outcome.latency[seat])
            total = totals[bot]
            total["chips"] += outcome.balances[seat]
            total["deals"] += outcome.deals_played
            if outcome.tallies:
                tally = outcome.tallies[seat]
                for name in _TALLY_FIELDS:
                    total[name] += getattr(tally, name)
            if seat in outcome.forfeited:
                forfeited.add(bot)
    ranks = rank_block({bot: total["chips"] for bot, total in totals.items()}, forfeited)
    return {
        bot: BotBlockResult(
            bot=bot,
            rank=ranks[bot],
            chips=total["chips"],
            deals=total["deals"],
            forfeited=bot in forfeited,
            timeouts=total["timeouts"],
            illegal=total["illegal"],
            strikes=total["strikes"],
            contracts_bid=total["contracts_bid"],
            contracts_made=total["contracts_made"],
            latency=combine_latency(latency[bot]),
        )
        for bot, total in totals.items()
    }

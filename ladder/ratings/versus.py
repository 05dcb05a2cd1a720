"""Head to head: how many chips per deal one group of a season's bots gains on another.

A season that seats two copies of each of two bots (``expert`` and ``expert-2`` against
``montecarlo`` and ``montecarlo-2``, as ``examples/seasons/expert.toml`` does) asks one question
of its results: by how much does the one bot beat the other on the same cards? Per block, each
side's chips per deal (its bots' chips over their deals) are taken, and the difference; the
interval is over blocks, the independent unit, as the leaderboard's is
(:mod:`brandeln.ladder.ratings.stats`). Blocks where a bot of either side did not play are left out.

>>> from brandeln.ladder.season.duplicate import BotBlockResult
>>> def result(bot: str, chips: int) -> BotBlockResult:
...     return BotBlockResult(bot, 1, chips, 10, False, 0, 0, 0, 0, 0)
>>> results = [(0, result("a", 20)), (0, result("b", -20)), (1, result("a", 10)),
...            (1, result("b", -10))]
>>> gap = head_to_head(results, ("a",), ("b",))
>>> gap.blocks, gap.difference.mean, round(gap.difference.half_width or 0, 2)
(2, 3.0, 1.96)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from brandeln.ladder.errors import VersusError
from brandeln.ladder.ratings.stats import MeanInterval, mean_ci95
from brandeln.ladder.season.duplicate import BotBlockResult

__all__ = ["HeadToHead", "head_to_head", "side_names", "versus_matrix"]


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Side ``a``'s chips per deal minus side ``b``'s, over the blocks both played."""

    a: tuple[str, ...]
    b: tuple[str, ...]
    blocks: int
    difference: MeanInterval | None  # None: no block where both sides played


def side_names(text: str) -> list[str]:
    """A side as a reader types it, bot names separated by commas: ``"expert, expert-2"``."""
    return [bot.strip() for bot in text.split(",") if bot.strip()]


def head_to_head(
    results: Iterable[tuple[int, BotBlockResult]], a: Sequence[str], b: Sequence[str]
) -> HeadToHead:
    """Side ``a`` against side ``b`` (each one or more bot names) over ``results``, the
    (block index, bot result) pairs of a season."""
    side_a, side_b = tuple(dict.fromkeys(a)), tuple(dict.fromkeys(b))
    if not side_a or not side_b:
        raise VersusError("each side needs at least one bot")
    shared = set(side_a) & set(side_b)
    if shared:
        raise VersusError(f"a bot on both sides: {', '.join(sorted(shared))}")
    by_block = _by_block(results)
    seen = {bot for played in by_block.values() for bot in played}
    unknown = [bot for bot in (*side_a, *side_b) if bot not in seen]
    if unknown:
        known = ", ".join(sorted(seen)) or "none yet"
        raise VersusError(f"no results for {', '.join(unknown)} in the season (its bots: {known})")
    gaps = [
        _per_deal(played, side_a) - _per_deal(played, side_b)
        for _, played in sorted(by_block.items())
        if all(bot in played for bot in (*side_a, *side_b))
    ]
    return HeadToHead(side_a, side_b, len(gaps), mean_ci95(gaps) if gaps else None)


def _per_deal(played: dict[str, BotBlockResult], side: tuple[str, ...]) -> float:
    deals = sum(played[bot].deals for bot in side)
    return sum(played[bot].chips for bot in side) / deals if deals else 0.0


def versus_matrix(
    results: Iterable[tuple[int, BotBlockResult]], bots: Sequence[str]
) -> dict[tuple[str, str], HeadToHead]:
    """Each ordered pair of distinct ``bots``, one bot a side: ``head_to_head(results, (a,),
    (b,))`` for every pair, in one pass over the blocks (a season's web page asks for all).
    A bot with no results has no block with any other: its pairs have no difference."""
    gaps: dict[tuple[str, str], list[float]] = {(a, b): [] for a in bots for b in bots if a != b}
    for _, played in sorted(_by_block(results).items()):
        per_deal = {bot: _per_deal(played, (bot,)) for bot in bots if bot in played}
        for (a, b), found in gaps.items():
            if a in per_deal and b in per_deal:
                found.append(per_deal[a] - per_deal[b])
    return {
        (a, b): HeadToHead((a,), (b,), len(found), mean_ci95(found) if found else None)
        for (a, b), found in gaps.items()
    }


def _by_block(
    results: Iterable[tuple[int, BotBlockResult]],
) -> dict[int, dict[str, BotBlockResult]]:
    by_block: dict[int, dict[str, BotBlockResult]] = defaultdict(dict)
    for block, result in results:
        by_block[block][result.bot] = result
    return by_block

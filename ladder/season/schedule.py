"""Which bots sit at the table of each block, when a season has more bots than seats.

The schedule is a pure function of the bot names, the number of seats, the seed and the block
count, and it is prefix-stable: the first k blocks of a longer schedule are the schedule of k
blocks, so a season can be extended (more ``blocks``) without changing the blocks already played.

Balance, built block by block:

- every bot plays the same number of blocks, give or take one: a block takes the bots with the
  fewest blocks so far first, choosing only among those tied at the cut;
- among the tables that rule allows, it picks the one whose most frequent pair has met least
  often, then the one with the fewest earlier meetings in all (every allowed table is tried
  while there are at most ``EXHAUSTIVE_LIMIT`` of them, else bots are added one at a time by
  the same measure), so every pair of bots shares a table about equally often; ties are broken
  by the seeded RNG;
- the seating order of each table is shuffled, so neighbours change from block to block (the
  duplicate rotations keep neighbours, so only the schedule can vary them).

>>> schedule(["a", "b", "c", "d", "e"], seats=4, blocks=2, seed=1)
[('d', 'c', 'b', 'a'), ('d', 'b', 'e', 'c')]
>>> schedule(["a", "b", "c"], seats=4, blocks=1, seed=1)
Traceback (most recent call last):
...
brandeln.ladder.errors.ScheduleError: a table has 4 seats but the season has only 3 bots: a, b, c
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Final

from brandeln.ladder.errors import ScheduleError

__all__ = ["EXHAUSTIVE_LIMIT", "pair_counts", "schedule"]

EXHAUSTIVE_LIMIT: Final = 5000
"""Above this many candidate tables per block, tables are built greedily (large fields)."""


def schedule(bots: Sequence[str], seats: int, blocks: int, seed: int) -> list[tuple[str, ...]]:
    """The bots of each block, in seating order (seat 0 first) of its first rotation."""
    if len(set(bots)) != len(bots):
        raise ScheduleError(f"bot names must be unique: {', '.join(bots)}")
    if seats < 2:
        raise ScheduleError(f"a table needs at least 2 seats, got {seats}")
    if len(bots) < seats:
        raise ScheduleError(
            f"a table has {seats} seats but the season has only {len(bots)} bots: {', '.join(bots)}"
        )
    if blocks < 0:
        raise ScheduleError(f"the number of blocks cannot be negative, got {blocks}")
    rng = random.Random(f"brandeln-schedule:{seed}")
    plays: Counter[str] = Counter(dict.fromkeys(bots, 0))
    pairs: Counter[frozenset[str]] = Counter()

    def meetings(table: Iterable[str]) -> tuple[int, int]:
        counts = [pairs[frozenset(pair)] for pair in combinations(table, 2)]
        return max(counts, default=0), sum(counts)

    tables: list[tuple[str, ...]] = []
    for _ in range(blocks):
        # A fresh random tie-break per block keeps the choice fair without favouring list order.
        tie_break = {bot: rng.random() for bot in bots}
        by_plays = sorted(bots, key=lambda bot: (plays[bot], tie_break[bot]))
        cut = plays[by_plays[seats - 1]]
        forced = [bot for bot in by_plays if plays[bot] < cut]
        optional = [bot for bot in by_plays if plays[bot] == cut]
        free_seats = seats - len(forced)
        if math.comb(len(optional), free_seats) <= EXHAUSTIVE_LIMIT:
            chosen = list(
                min(
                    (forced + list(extra) for extra in combinations(optional, free_seats)),
                    key=lambda table: (*meetings(table), sum(tie_break[bot] for bot in table)),
                )
            )
        else:
            chosen = list(forced)
            while len(chosen) < seats:
                chosen.append(
                    min(
                        (bot for bot in optional if bot not in chosen),
                        key=lambda bot: (*meetings([*chosen, bot]), tie_break[bot]),
                    )
                )
        for bot in chosen:
            plays[bot] += 1
        for pair in combinations(chosen, 2):
            pairs[frozenset(pair)] += 1
        rng.shuffle(chosen)
        tables.append(tuple(chosen))
    return tables


def pair_counts(bots: Sequence[str], tables: Sequence[Sequence[str]]) -> dict[frozenset[str], int]:
    """How often each pair of ``bots`` shares a table in ``tables`` (pairs never met: 0)."""
    counts = {frozenset(pair): 0 for pair in combinations(bots, 2)}
    for table in tables:
        for pair in combinations(table, 2):
            counts[frozenset(pair)] += 1
    return counts

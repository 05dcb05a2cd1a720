"""How often a bot's bettels are made against given defenders, on the same deals.

The duel (brandeln.bench.duel) scores whole deals; where the chips of issue 18 lie is narrower: the
oracle's card play gains most by holding montecarlo's bettels to fewer made. This bench looks
at that alone. Four copies of the soloist's bot hold the auction of each deal (the duel's
cards for ``--seed``), and the deals whose auction ends in a bettel are kept; each is then
played out with the bettel's soloist unchanged and the three other seats given to the
defenders' bot. The share of bettels made is the defence's measure (lower is better), on
the same auctions for every defence, so two defences are compared deal by deal::

    python -m brandeln.bench.bettel_defence --defenders expert --seed 900 --deals 100
    python -m brandeln.bench.bettel_defence --defenders seer --seed 900 --deals 100

Bots are the duel's specs (``expert:card_prior=8``, the bench's ``oracle`` and ``seer``). The
auction's bots search to their sample caps, so the same seed gives the same bettels whatever
the machine; the defenders think on the process's CPU clock (``--clock``, as in the duel).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from brandeln.bench.duel import CLOCKS, DuelConfig, build_bot, drive, seat_bots
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.engine.state import DealState
from brandeln.sdk import Bot

__all__ = ["BettelResult", "auction", "defend", "main", "play"]

BETTEL = "bettel"
SEAT_SEEDS = 1000  # the duel's: seat s's bot is seeded 1000 * s + 1


@dataclass(frozen=True, slots=True)
class BettelResult:
    """One bettel: its deal, its soloist, and whether the defence let it be made."""

    deal: int
    soloist: int
    made: bool


def _ruleset(config: DuelConfig) -> Ruleset:
    return find_ruleset(config.ruleset, {"early_stop": config.early_stop})


def _bidders(config: DuelConfig, ruleset: Ruleset) -> list[Bot]:
    # Sample caps, not a clock: the auction, and so the set of bettels, is reproducible.
    capped = replace(config, clock="samples")
    return [build_bot(config.a, SEAT_SEEDS * seat + 1, capped) for seat in range(ruleset.players)]


def auction(config: DuelConfig, deal: int) -> tuple[DealState, list[Bot]] | None:
    """The deal's auction held by four of ``config.a``: the state where the play begins and
    the bidders, if it ended in a bettel with a soloist who bid it; else None."""
    ruleset = _ruleset(config)
    bots = _bidders(config, ruleset)
    names = ["soloist"] * ruleset.players
    state = seat_bots(config, ruleset, deal, bots, names)
    state = drive(config, state, bots, names, auction_only=True)
    if state.is_over() or state.contract is None or state.contract.id != BETTEL:
        return None
    return state, bots


def defend(config: DuelConfig, deal: int) -> BettelResult | None:
    """Deal ``deal``'s bettel, if its auction ends in one, defended by ``config.b``."""
    found = auction(config, deal)
    if found is None:
        return None
    state, bidders = found
    soloist = state.soloist
    assert soloist is not None
    ruleset = state.ruleset
    defenders = [
        build_bot(config.b, SEAT_SEEDS * seat + 7, config) for seat in range(ruleset.players)
    ]
    bots = [bidders[s] if s == soloist else defenders[s] for s in range(ruleset.players)]
    names = ["soloist" if s == soloist else "defender" for s in range(ruleset.players)]
    # The defenders are told the match and their hands (the soloist keeps what it knows).
    seat_bots(config, ruleset, deal, defenders, names)
    state = drive(config, state, bots, names)
    outcome = state.outcome()
    assert outcome is not None
    return BettelResult(deal, soloist, outcome.payments[soloist] > 0)


def _defend(job: tuple[DuelConfig, int]) -> BettelResult | None:
    return defend(*job)


def play(config: DuelConfig, workers: int = 2) -> Iterator[BettelResult]:
    """The bettels among deals ``0 .. config.deals - 1``, in deal order, each defended."""
    jobs = [(config, deal) for deal in range(config.deals)]
    if workers <= 1:
        results: Iterator[BettelResult | None] = map(_defend, jobs)
        yield from (r for r in results if r is not None)
        return
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        yield from (r for r in pool.map(_defend, jobs) if r is not None)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brandeln.bench.bettel_defence",
        description="The share of a bot's bettels made against given defenders.",
    )
    parser.add_argument("--soloist", default="montecarlo", help="the bidders' bot spec")
    parser.add_argument("--defenders", default="expert", help="the defenders' bot spec")
    parser.add_argument("--deals", type=int, default=100, help="deals to auction")
    parser.add_argument("--seed", type=int, default=900, help="the duel's seed of the cards")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--level", type=int, default=4, help="the expert's level")
    parser.add_argument("--samples", type=int, default=64, help="montecarlo's sample cap")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--save", type=Path, help="write each bettel's result here as JSON")
    args = parser.parse_args(argv)
    config = DuelConfig(
        a=args.soloist,
        b=args.defenders,
        deals=args.deals,
        seed=args.seed,
        samples=args.samples,
        level=args.level,
        clock=args.clock,
    )
    start = time.monotonic()
    results: list[BettelResult] = []
    try:
        for result in play(config, args.workers):
            results.append(result)
            verdict = "made" if result.made else "beaten"
            print(f"deal {result.deal}: soloist seat {result.soloist}, {verdict}", flush=True)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    made = sum(r.made for r in results)
    share = f" ({made / len(results):.0%})" if results else ""
    print(
        f"{args.soloist}'s bettels against {args.defenders}: made {made} of {len(results)}"
        f"{share}, {args.deals} deals, seed {args.seed}, {time.monotonic() - start:.0f} s"
    )
    if args.save is not None:
        args.save.write_text(json.dumps([[r.deal, r.soloist, r.made] for r in results]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`brandeln bench solver`: the double-dummy solver's speed from trick 1, 3 and 5.

Random deals of each ruleset, a random contract (and trump) and soloist, the tricks before the
starting one shared out at random; one figure per starting trick: solves per second and the
positions visited per solve (the tree the search really walks, after its pruning).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from brandeln.engine.cards import Suit
from brandeln.engine.double_dummy import DoubleDummy
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset

__all__ = ["START_TRICKS", "run_solver_bench"]

START_TRICKS = (1, 3, 5)


def _one_run(ruleset_id: str, start: int, seconds: float, rng: random.Random) -> dict[str, float]:
    ruleset = find_ruleset(ruleset_id)
    left = ruleset.tricks - start + 1
    deck = [i for i in range(32) if ruleset.deck().mask >> i & 1]
    solves = nodes = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        rng.shuffle(deck)
        hands = [
            sum(1 << c for c in deck[seat * left : (seat + 1) * left])
            for seat in range(ruleset.players)
        ]
        contract = rng.choice(ruleset.contracts)
        soloist = rng.randrange(ruleset.players)
        won = [0] * ruleset.players
        for _ in range(start - 1):
            won[rng.randrange(ruleset.players)] += 1
        solver = DoubleDummy(ruleset, contract, soloist, rng.choice(list(Suit)))
        solver.makes(hands, won, leader=rng.randrange(ruleset.players))
        solves += 1
        nodes += solver.stats.nodes
    elapsed = time.perf_counter() - began
    return {"solves_per_s": solves / elapsed, "nodes_per_solve": nodes / solves}


def run_solver_bench(seconds: float = 1.0, rounds: int = 3, seed: int = 5) -> dict[str, Any]:
    """Per ruleset and starting trick, the median of ``rounds`` runs of ``seconds`` each."""
    rng = random.Random(seed)
    results: dict[str, dict[str, dict[str, float]]] = {}
    for ruleset_id in RULESET_IDS:
        results[ruleset_id] = {}
        for start in START_TRICKS:
            runs = [_one_run(ruleset_id, start, seconds, rng) for _ in range(rounds)]
            results[ruleset_id][str(start)] = {
                key: statistics.median(run[key] for run in runs)
                for key in ("solves_per_s", "nodes_per_solve")
            }
    return {
        "benchmark": "solver",
        "settings": {"seconds": seconds, "rounds": rounds, "seed": seed},
        "rulesets": results,
    }

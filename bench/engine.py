"""Benchmark of the engine: ``python -m bench.engine [--seconds S] [--json PATH]``.

Measures, on one core, complete random deals per second through the public API (auction,
trump and play via ``legal_actions``/``apply``), the same through the fast playout path, and
legal-move generations per second; where OpenSpiel (``pyspiel``) is importable, also its
``oh_hell`` random playouts for comparison. This module is the engine's one command-line
entry point, so it alone reads the clock and writes a file; the rules never import it.

>>> figures = run_benchmarks(seconds=0.05, ruleset_id="standard", rounds=1)
>>> figures["public_api"]["deals_per_second"] > 0
True
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.dealing import deal_cards
from engine.playout import playout_deal
from engine.rulesets import find_ruleset
from engine.seats import seat_after
from engine.state import DealState
from engine.trick_rules import PlayDuties, canonical_play_cards, legal_card_mask

__all__ = ["main", "run_benchmarks"]

_POSITIONS = 2000  # sampled play positions for the legal-move figure
_DEAL_FIGURES = ("public_api", "fast_path", "public_api_full_length", "fast_path_full_length")


def _timed(seconds: float, batch: Callable[[], int]) -> tuple[float, int]:
    """Run ``batch`` (returning a count) until ``seconds`` have passed: (elapsed, count)."""
    start = time.perf_counter()
    count = 0
    while True:
        count += batch()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed, count


def _public_api(ruleset_id: str, options: dict[str, str], seconds: float) -> dict[str, float]:
    ruleset = find_ruleset(ruleset_id, options)
    rng = random.Random(1)
    seeds = itertools.count()
    actions = 0

    def one_deal() -> int:
        nonlocal actions
        seed = next(seeds)
        dealer = seat_after(0, seed, ruleset.players)  # the deal goes round the table
        state = DealState.new(ruleset, deal_cards(ruleset, dealer, seed))
        randrange = rng.randrange
        while state.to_act is not None:
            legal = state.legal_actions()
            state = state.apply(legal[randrange(len(legal))])
            actions += 1
        return 1

    elapsed, deals = _timed(seconds, one_deal)
    return {
        "deals_per_second": deals / elapsed,
        "actions_per_second": actions / elapsed,
        "deals": deals,
    }


def _fast_path(ruleset_id: str, options: dict[str, str], seconds: float) -> dict[str, float]:
    ruleset = find_ruleset(ruleset_id, options)
    rng = random.Random(1)
    seeds = itertools.count()

    def one_deal() -> int:
        seed = next(seeds)
        dealer = seat_after(0, seed, ruleset.players)  # the deal goes round the table
        playout_deal(ruleset, deal_cards(ruleset, dealer, seed), rng)
        return 1

    elapsed, deals = _timed(seconds, one_deal)
    return {"deals_per_second": deals / elapsed, "deals": deals}


def _sample_positions(ruleset_id: str) -> list[tuple[int, int, int, int, PlayDuties]]:
    """Play positions met in random deals, as the inputs of the legal-move generator."""
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(2)
    positions: list[tuple[int, int, int, int, PlayDuties]] = []
    seed = 0
    while len(positions) < _POSITIONS:
        seed += 1
        state = DealState.new(ruleset, deal_cards(ruleset, 0, seed))
        while state.to_act is not None:
            if state.duties is not None and state.to_act is not None:
                led, win, head = state.trick_position()
                hand = state.hand(state.to_act).mask
                positions.append((hand, led, win, head, state.duties))
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
    return positions[:_POSITIONS]


def _legal_moves(ruleset_id: str, seconds: float) -> dict[str, float]:
    positions = _sample_positions(ruleset_id)

    def batch() -> int:
        for hand, led, win, head, duties in positions:
            canonical_play_cards(legal_card_mask(hand, led, win, head, duties), duties)
        return len(positions)

    elapsed, generations = _timed(seconds, batch)
    return {"generations_per_second": generations / elapsed}


def _open_spiel(seconds: float) -> dict[str, float] | None:
    try:
        pyspiel: Any = importlib.import_module("pyspiel")
    except ImportError:
        return None
    game = pyspiel.load_game(
        "oh_hell",
        {"players": 4, "num_tricks_fixed": 7, "num_suits": 4, "num_cards_per_suit": 8},
    )
    rng = random.Random(1)

    def one_deal() -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
        return 1

    elapsed, deals = _timed(seconds, one_deal)
    return {"deals_per_second": deals / elapsed, "deals": deals}


def run_benchmarks(
    seconds: float = 1.0, ruleset_id: str = "standard", rounds: int = 3
) -> dict[str, Any]:
    """Every figure, as a JSON-ready dict: the best of ``rounds`` runs of ``seconds`` each.

    The rounds go round all figures in turn, so a burst of load from elsewhere on the machine
    spoils one run of each figure rather than every run of one.
    """
    full_length = {"early_stop": "never"}
    measures: dict[str, Callable[[], dict[str, float] | None]] = {
        "public_api": lambda: _public_api(ruleset_id, {}, seconds),
        "fast_path": lambda: _fast_path(ruleset_id, {}, seconds),
        "public_api_full_length": lambda: _public_api(ruleset_id, full_length, seconds),
        "fast_path_full_length": lambda: _fast_path(ruleset_id, full_length, seconds),
        "legal_moves": lambda: _legal_moves(ruleset_id, seconds),
        "open_spiel_oh_hell": lambda: _open_spiel(seconds),
    }
    best: dict[str, dict[str, float] | None] = {}
    rates: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(max(1, rounds)):
        for name, measure in measures.items():
            result = measure()
            if result is not None:
                rates[name].append(_rate(result))
            previous = best.get(name)
            # The first value of each result is its rate: keep the fastest run.
            if result is None or previous is None or _rate(result) > _rate(previous):
                best[name] = result
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "ruleset": ruleset_id,
        "seconds_per_figure": seconds,
        "rounds": max(1, rounds),
        **best,
        # Every round's rate, for the median and spread a noisy machine calls for.
        "spread": {
            name: {"median": statistics.median(runs), "min": min(runs), "max": max(runs)}
            for name, runs in rates.items()
            if runs
        },
    }
    spiel = best["open_spiel_oh_hell"]
    if spiel is not None:
        figures["ratios_to_oh_hell"] = {
            section: figures[section]["deals_per_second"] / spiel["deals_per_second"]
            for section in _DEAL_FIGURES
        }
        # The same ratios from the medians: robust to one lucky or unlucky round.
        spread = figures["spread"]
        figures["median_ratios_to_oh_hell"] = {
            section: spread[section]["median"] / spread["open_spiel_oh_hell"]["median"]
            for section in _DEAL_FIGURES
        }
    return figures


def _rate(result: dict[str, float]) -> float:
    return next(iter(result.values()))


def _report(figures: dict[str, Any]) -> str:
    def rate(section: str, key: str = "deals_per_second") -> str:
        return f"{figures[section][key]:>12,.0f}"

    lines = [
        f"engine benchmark: ruleset {figures['ruleset']}, one core, "
        f"{figures['implementation']} {figures['python']}, "
        f"best of {figures['rounds']} runs of {figures['seconds_per_figure']:g} s per figure",
        f"  public API, random deals/s            {rate('public_api')}"
        f"   ({figures['public_api']['actions_per_second']:,.0f} actions/s)",
        f"  fast path, random deals/s             {rate('fast_path')}",
        f"  public API, full-length deals/s       {rate('public_api_full_length')}"
        f"   (early_stop=never: every deal to its last trick)",
        f"  fast path, full-length deals/s        {rate('fast_path_full_length')}",
        f"  legal-move generations/s              {rate('legal_moves', 'generations_per_second')}",
    ]
    spiel = figures["open_spiel_oh_hell"]
    if spiel is None:
        lines.append("  OpenSpiel oh_hell: not installed (pip install open_spiel to compare)")
    else:
        lines.append(f"  OpenSpiel oh_hell, random deals/s     {rate('open_spiel_oh_hell')}")
        lines.extend(
            f"  {section} / oh_hell".ljust(40) + f"{ratio:>12.2f}x"
            for section, ratio in figures["ratios_to_oh_hell"].items()
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: print the figures, optionally write them as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per run of a figure")
    parser.add_argument("--rounds", type=int, default=3, help="runs per figure; the best counts")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here as JSON")
    parser.add_argument("--ruleset", default="standard", help="ruleset id (default standard)")
    args = parser.parse_args(argv)
    figures = run_benchmarks(args.seconds, args.ruleset, args.rounds)
    print(_report(figures))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

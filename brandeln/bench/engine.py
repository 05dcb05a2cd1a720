"""Benchmark of the engine: ``python -m brandeln.bench.engine [--seconds S] [--json PATH]``.

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

from brandeln import engine
from brandeln.engine.dealing import deal_cards
from brandeln.engine.playout import playout_deal
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.seats import seat_after
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import PlayDuties, canonical_play_cards, legal_card_mask

__all__ = ["main", "run_benchmarks"]

_POSITIONS = 2000  # sampled play positions for the legal-move figure
_DEAL_FIGURES = ("public_api", "fast_path", "public_api_full_length", "fast_path_full_length")


_SLICE_S = 0.05  # the figures take turns in slices this long, so load from elsewhere hits all


class _Meter:
    """One figure: a batch (one deal, or a sweep of positions) that returns how many items it
    did, run in slices; ``extra`` counts anything else the batch reports (actions)."""

    def __init__(self, batch: Callable[[], int], extra: list[int] | None = None) -> None:
        self.batch = batch
        self.extra = extra if extra is not None else [0]
        self.elapsed = 0.0
        self.count = 0

    def run(self, seconds: float) -> None:
        batch = self.batch
        start = time.perf_counter()
        count = 0
        while True:
            count += batch()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        self.elapsed += elapsed
        self.count += count

    def take(self) -> tuple[float, int, int]:
        """(elapsed, count, extra) since the last take, then zero them."""
        figures = (self.elapsed, self.count, self.extra[0])
        self.elapsed, self.count, self.extra[0] = 0.0, 0, 0
        return figures


def _public_api(ruleset_id: str, options: dict[str, str]) -> _Meter:
    ruleset = find_ruleset(ruleset_id, options)
    rng = random.Random(1)
    seeds = itertools.count()
    actions = [0]

    def one_deal() -> int:
        seed = next(seeds)
        dealer = seat_after(0, seed, ruleset.players)  # the deal goes round the table
        state = DealState.new(ruleset, deal_cards(ruleset, dealer, seed))
        randrange = rng.randrange
        taken = 0
        while state.to_act is not None:
            legal = state.legal_actions()
            state = state.apply(legal[randrange(len(legal))])
            taken += 1
        actions[0] += taken
        return 1

    return _Meter(one_deal, actions)


def _fast_path(ruleset_id: str, options: dict[str, str]) -> _Meter:
    ruleset = find_ruleset(ruleset_id, options)
    rng = random.Random(1)
    seeds = itertools.count()

    def one_deal() -> int:
        seed = next(seeds)
        dealer = seat_after(0, seed, ruleset.players)  # the deal goes round the table
        playout_deal(ruleset, deal_cards(ruleset, dealer, seed), rng)
        return 1

    return _Meter(one_deal)


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


def _legal_moves(ruleset_id: str) -> _Meter:
    positions = _sample_positions(ruleset_id)[:200]  # a short sweep: slices stay short

    def batch() -> int:
        for hand, led, win, head, duties in positions:
            canonical_play_cards(legal_card_mask(hand, led, win, head, duties), duties)
        return len(positions)

    return _Meter(batch)


def _open_spiel() -> _Meter | None:
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

    return _Meter(one_deal)


def run_benchmarks(
    seconds: float = 1.0, ruleset_id: str = "standard", rounds: int = 3
) -> dict[str, Any]:
    """Every figure, as a JSON-ready dict.

    In each round every figure runs for ``seconds`` in all, the figures taking turns in
    slices of 50 ms, so that load from elsewhere on the machine falls on all of them alike; a
    ratio to OpenSpiel is taken within each round and the report gives the median of those
    per-round ratios. ``best`` keeps the fastest round of each figure, ``spread`` every
    round's rate.
    """
    full_length = {"early_stop": "never"}
    meters: dict[str, _Meter | None] = {
        "public_api": _public_api(ruleset_id, {}),
        "fast_path": _fast_path(ruleset_id, {}),
        "public_api_full_length": _public_api(ruleset_id, full_length),
        "fast_path_full_length": _fast_path(ruleset_id, full_length),
        "legal_moves": _legal_moves(ruleset_id),
        "open_spiel_oh_hell": _open_spiel(),
    }
    best: dict[str, dict[str, float] | None] = dict.fromkeys(meters)
    rates: dict[str, list[float]] = {name: [] for name, meter in meters.items() if meter}
    round_ratios: dict[str, list[float]] = {section: [] for section in _DEAL_FIGURES}
    slices = max(1, round(seconds / _SLICE_S))
    for _ in range(max(1, rounds)):
        for _ in range(slices):
            for meter in meters.values():
                if meter is not None:
                    meter.run(seconds / slices)
        this_round: dict[str, float] = {}
        for name, meter in meters.items():
            if meter is None:
                continue
            elapsed, count, extra = meter.take()
            key = "generations_per_second" if name == "legal_moves" else "deals_per_second"
            result = {
                key: count / elapsed,
                ("deals" if key == "deals_per_second" else "generations"): count,
            }
            if name.startswith("public_api"):
                result["actions_per_second"] = extra / elapsed
            rates[name].append(result[key])
            this_round[name] = result[key]
            previous = best[name]
            if previous is None or _rate(result) > _rate(previous):
                best[name] = result
        spiel_rate = this_round.get("open_spiel_oh_hell")
        if spiel_rate:
            for section in _DEAL_FIGURES:
                round_ratios[section].append(this_round[section] / spiel_rate)
    figures: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "ruleset": ruleset_id,
        "seconds_per_figure": seconds,
        "rounds": max(1, rounds),
        # Which engine modules run compiled (setup.py); empty: pure Python.
        "compiled_modules": list(engine.compiled_modules()),
        **best,
        # Every round's rate, for the median and spread a noisy machine calls for.
        "spread": {
            name: {"median": statistics.median(runs), "min": min(runs), "max": max(runs)}
            for name, runs in rates.items()
            if runs
        },
    }
    if best["open_spiel_oh_hell"] is not None:
        figures["ratios_per_round"] = round_ratios
        figures["median_ratios_to_oh_hell"] = {
            section: statistics.median(runs) for section, runs in round_ratios.items()
        }
        figures["ratio_spread"] = {
            section: {"median": statistics.median(runs), "min": min(runs), "max": max(runs)}
            for section, runs in round_ratios.items()
        }
    return figures


def _rate(result: dict[str, float]) -> float:
    return next(iter(result.values()))


def _report(figures: dict[str, Any]) -> str:
    def rate(section: str, key: str = "deals_per_second") -> str:
        return f"{figures['spread'][section]['median']:>12,.0f}"

    compiled = figures["compiled_modules"]
    lines = [
        f"engine benchmark: ruleset {figures['ruleset']}, one core, "
        f"{figures['implementation']} {figures['python']}, "
        f"{'compiled core (' + str(len(compiled)) + ' modules)' if compiled else 'pure Python'}, "
        f"medians of {figures['rounds']} rounds of {figures['seconds_per_figure']:g} s per figure",
        f"  public API, full-length deals/s       {rate('public_api_full_length')}"
        "   (early_stop=never: every deal to its last trick, like oh_hell)",
        f"  fast path, full-length deals/s        {rate('fast_path_full_length')}",
        f"  public API, random deals/s            {rate('public_api')}"
        "   (our rules: sudden death ends some deals early)",
        f"  fast path, random deals/s             {rate('fast_path')}",
        f"  legal-move generations/s              {rate('legal_moves')}",
    ]
    if figures["open_spiel_oh_hell"] is None:
        lines.append("  OpenSpiel oh_hell: not installed (pip install open_spiel to compare)")
    else:
        lines.append(
            f"  OpenSpiel oh_hell deals/s             {rate('open_spiel_oh_hell')}"
            "   (always every trick)"
        )
        labels = {
            "public_api_full_length": "public API / oh_hell, like with like",
            "fast_path_full_length": "fast path / oh_hell, like with like",
            "public_api": "public API random deals / oh_hell",
            "fast_path": "fast path random deals / oh_hell",
        }
        for section, label in labels.items():
            spread = figures["ratio_spread"][section]
            lines.append(
                f"  {label}".ljust(40)
                + f"{spread['median']:>12.2f}x   (rounds {spread['min']:.2f}-{spread['max']:.2f})"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: print the figures, optionally write them as JSON."""
    parser = argparse.ArgumentParser(prog="python -m brandeln.bench.engine", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per run of a figure")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of every figure; medians count"
    )
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

"""Playouts per second of the Monte Carlo sample bot: ``python -m brandeln.bench.montecarlo``.

The bot's search is its playouts: a determinized deal played out on the engine's fast path
with the bot's greedy policy choosing every card (``brandeln.sample_bots.montecarlo.Playout``). This
measures them on sampled positions at the start of the play (the dearest, 7 tricks to go),
with the engine as installed (its compiled core, where the install built it) and as its
pure-Python reference (``BRANDELN_PURE_PYTHON=1``), each in its own process, the two taking
turns round after round; ``--previous DIR`` adds another checkout of the project (an older
version of the bot and the engine) as a third contestant.

``--strength-deals N`` also measures what the playouts buy: a short duplicate run through a real
referee (``brandeln ab``), the bot as installed (B) against its pure-Python reference, or the
``--previous`` checkout (A), at the same time budget, every other seat A; it prints B's chips a
deal minus A's with its 95% interval, over exactly N deals (``brandeln ab --deals N``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BASELINES",
    "baseline_command",
    "main",
    "run_playout_bench",
    "run_strength_bench",
    "strength_report",
]

ROOT = Path(__file__).resolve().parents[2]  # the checkout: brandeln/bench/ is two below it

# Runs in a fresh process, so that each side imports its own engine; prints playouts/s. Only
# the API every version of the bot has: Playout(ruleset, rng).run(deal, first=card).
_MEASURE = """
import random, sys, time
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.cards import Suit
from brandeln.sample_bots.montecarlo import DeterminizedDeal, Playout
ruleset = find_ruleset("standard")
brand = ruleset.contract("brand")
rng = random.Random(1)
playout = Playout(ruleset, rng)
deals = []
for seed in range(200):
    hands = [hand.mask for hand in deal_cards(ruleset, seed % 4, seed).hands]
    soloist = seed % 4
    deals.append((DeterminizedDeal(hands, soloist, [], [0] * 4, soloist, brand, Suit(seed % 4)),
                  (hands[soloist] & -hands[soloist]).bit_length() - 1))
seconds = float(sys.argv[1])
count = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    for deal, first in deals:
        playout.run(deal, first=first)
    count += len(deals)
print(count / (time.perf_counter() - start))
"""


def _measure(seconds: float, *, pure: bool, path: Path | None = None) -> float:
    env = {key: value for key, value in os.environ.items() if key != "BRANDELN_PURE_PYTHON"}
    if pure:
        env["BRANDELN_PURE_PYTHON"] = "1"
    if path is not None:  # another checkout first on the path: its engine and its bot
        env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(seconds)],
        cwd=path or ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120 + 10 * seconds,
    )
    return float(done.stdout.strip().splitlines()[-1])


def run_playout_bench(
    seconds: float = 1.0, rounds: int = 3, previous: Path | None = None
) -> dict[str, Any]:
    """Playouts/s of each contestant per round, their medians, and the per-round ratios."""
    sides: dict[str, dict[str, Any]] = {
        "installed": {"pure": False, "path": None},
        "pure_python": {"pure": True, "path": None},
    }
    if previous is not None:
        sides["previous"] = {"pure": False, "path": previous}
    runs: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(max(1, rounds)):
        for name, side in sides.items():
            runs[name].append(_measure(seconds, pure=side["pure"], path=side["path"]))
    figures: dict[str, Any] = {
        "seconds_per_run": seconds,
        "rounds": max(1, rounds),
        "playouts_per_second": {
            name: {"median": statistics.median(r), "min": min(r), "max": max(r), "runs": r}
            for name, r in runs.items()
        },
    }
    figures["ratios"] = {
        f"installed/{name}": statistics.median(
            a / b for a, b in zip(runs["installed"], runs[name], strict=True)
        )
        for name in sides
        if name != "installed"
    }
    return figures


_BOT = ("-m", "brandeln.cli", "bot", "run", "montecarlo")
# What the strength run's A was, by its figures' "baseline", in the words of every report.
BASELINES = {"pure_python": "its pure-Python reference", "previous": "the previous version"}


def baseline_command(previous: Path | None, args: Sequence[str] = _BOT) -> tuple[str, ...]:
    """The command of the strength run's A: this interpreter with ``args``, on the engine's
    pure-Python reference, or on the checkout ``previous`` (run from inside it: ``python -m``
    puts its working directory ahead of PYTHONPATH, so from here it would import this one)."""
    if previous is None:
        return ("env", "BRANDELN_PURE_PYTHON=1", sys.executable, *args)
    folder = str(previous.resolve())
    inner = shlex.join((sys.executable, *args))
    return (
        "sh",
        "-c",
        f"cd {shlex.quote(folder)} && PYTHONPATH={shlex.quote(folder)} exec {inner}",
    )


def run_strength_bench(
    deals: int, *, seed: int = 17, move_ms: int = 200, previous: Path | None = None
) -> dict[str, Any]:
    """B (the bot as installed) against A (its pure-Python reference, or ``previous``) through
    ``brandeln ab`` on an embedded referee: ``deals`` paired deals at ``move_ms`` each."""
    # A's engine is chosen by its own environment; B's is the installed one whatever the
    # caller's BRANDELN_PURE_PYTHON says, so the variable is taken out of the run's environment.
    env = {key: value for key, value in os.environ.items() if key != "BRANDELN_PURE_PYTHON"}
    baseline = shlex.join(baseline_command(previous))
    with tempfile.TemporaryDirectory(prefix="brandeln-strength-") as data:
        command = [
            sys.executable, "-m", "brandeln.cli", "ab",
            "--a", f"cmd:{baseline}", "--b", "montecarlo",
            "--deals", str(deals), "--seed", str(seed), "--move-ms", str(move_ms),
            "--json", "--data", data,
        ]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(  # a failure shows as no JSON, with its error on stderr
            command,
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600 + 30 * deals,
        )
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"brandeln ab failed (exit {done.returncode}): {tail[0]}") from None
    low, high = result["interval95"]
    return {
        "baseline": "previous" if previous is not None else "pure_python",
        "deals": result["deals"],
        "matches": result["matches"],
        "seed": seed,
        "move_ms": move_ms,
        "chips_per_deal": result["chips_per_deal"],
        "interval95": [low, high],
        "seconds": time.perf_counter() - started,
    }


def strength_report(figures: dict[str, Any]) -> str:
    """One line: B's chips a deal over A with its interval, and the run's size."""
    low, high = figures["interval95"]
    return (
        f"montecarlo as installed against {BASELINES[figures['baseline']]}, same time budget "
        f"(move_ms {figures['move_ms']}): {figures['chips_per_deal']:+.2f} chips/deal "
        f"(95% interval {low:+.2f} .. {high:+.2f}) over {figures['deals']} duplicate deals, "
        f"seed {figures['seed']} ({figures['seconds']:.0f} s)"
    )


def report(figures: dict[str, Any]) -> str:
    lines = [
        "montecarlo bot playouts/s (standard, brand, from the first lead; "
        f"medians of {figures['rounds']} rounds of {figures['seconds_per_run']:g} s)"
    ]
    labels = {
        "installed": "engine as installed",
        "pure_python": "engine's pure-Python reference",
        "previous": "previous version",
    }
    for name, spread in figures["playouts_per_second"].items():
        lines.append(f"  {labels[name]:<34}{spread['median']:>10,.0f}")
    lines.extend(f"  {key:<34}{ratio:>10.2f}x" for key, ratio in figures["ratios"].items())
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brandeln.bench.montecarlo", description=__doc__
    )
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--previous", type=Path, help="another checkout to compare with")
    parser.add_argument(
        "--strength-deals", type=int, default=0, help="also a duplicate run of this many deals"
    )
    parser.add_argument("--seed", type=int, default=17, help="the strength run's deals")
    parser.add_argument("--move-ms", type=int, default=200, help="the strength run's move time")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.strength_deals < 0:
        parser.error("--strength-deals: give 0 (no strength run) or more deals")
    figures = run_playout_bench(args.seconds, args.rounds, args.previous)
    print(report(figures))
    if args.strength_deals > 0:
        figures["strength"] = run_strength_bench(
            args.strength_deals, seed=args.seed, move_ms=args.move_ms, previous=args.previous
        )
        print(strength_report(figures["strength"]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

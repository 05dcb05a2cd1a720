"""Benchmark of the PettingZoo environment: ``python -m brandeln.bench.research_pettingzoo``.

Environment steps per second with random masked play, PettingZoo's own loop for every game
(``agent_iter``, ``last``, ``action_space(agent).sample(mask)``, ``step``), for Brandeln's AEC
environment (``brandeln.pettingzoo.env``, deal episodes) against PettingZoo's classic card
games where they can run here, and against the engine alone playing the same random deals (the
environment's own cost: the API, the observation tensors and the masks). A step is one action
of a live agent; the steps that remove finished agents are not counted. The classic card games
need packages of their own (``rlcard`` for the poker games, ``shimmy`` and OpenSpiel for
Hanabi, ``pygame`` for rendering imported by the poker games): a game that cannot be made says
why and is left out.

>>> figures = run_pettingzoo_bench(seconds=0.05, rounds=1)
>>> figures["games"]["brandeln_v0"]["steps_per_s"] > 0
True
"""

from __future__ import annotations

import importlib
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from brandeln.bench.timed_command import timed_bench_main
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState

__all__ = ["CLASSIC_CARD_GAMES", "main", "markdown", "run_pettingzoo_bench"]

CLASSIC_CARD_GAMES: Final = (
    "leduc_holdem_v4",
    "texas_holdem_v4",
    "texas_holdem_no_limit_v6",
    "hanabi_v5",
)
"""PettingZoo's classic card games (``pettingzoo.classic``), measured where they import."""
BRANDELN: Final = "brandeln_v0"
ENGINE_ALONE: Final = "engine_alone"
RULESET: Final = "standard"
SLICE_S: Final = 0.05  # the games take turns in slices this long, so outside load hits all
SEED: Final = 1


class _Meter:
    """One game's random masked play, run in slices; counts live steps and finished episodes."""

    def __init__(self, episode: Callable[[], int]) -> None:
        self.episode = episode
        self.elapsed = 0.0
        self.steps = 0
        self.episodes = 0

    def run(self, seconds: float) -> None:
        start = time.perf_counter()
        while True:
            self.steps += self.episode()
            self.episodes += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        self.elapsed += elapsed

    def take(self) -> dict[str, float]:
        figures = {
            "steps_per_s": self.steps / self.elapsed,
            "episodes_per_s": self.episodes / self.elapsed,
            "steps_per_episode": self.steps / max(1, self.episodes),
        }
        self.elapsed, self.steps, self.episodes = 0.0, 0, 0
        return figures


def _pettingzoo_episodes(game: Any) -> Callable[[], int]:
    """An episode of ``game`` (an AEC env) by PettingZoo's loop; returns its live steps."""
    seeds = iter(range(SEED, sys.maxsize))

    def episode() -> int:
        game.reset(seed=next(seeds))
        steps = 0
        for agent in game.agent_iter():
            observation, _, termination, truncation, info = game.last()
            if termination or truncation:
                game.step(None)
                continue
            if isinstance(observation, dict) and "action_mask" in observation:
                mask = observation["action_mask"]
            else:
                mask = info.get("action_mask")
            game.step(game.action_space(agent).sample(mask))
            steps += 1
        return steps

    return episode


def _engine_episodes() -> Callable[[], int]:
    """The same random deals on the engine alone: ``legal_actions`` and ``apply``."""
    ruleset = find_ruleset(RULESET)
    rng = random.Random(SEED)
    seeds = iter(range(SEED, sys.maxsize))

    def episode() -> int:
        seed = next(seeds)
        state = DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed))
        steps = 0
        while not state.is_over():
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
            steps += 1
        return steps

    return episode


def _classic_game(name: str) -> tuple[Any | None, str]:
    """PettingZoo's classic game ``name``, made and reset once, or why it cannot be."""
    try:
        module = importlib.import_module(f"pettingzoo.classic.{name}")
        game = module.env()
        game.reset(seed=SEED)
    except ImportError as error:  # a package the game needs is not installed
        return None, f"{type(error).__name__}: {error}".splitlines()[0]
    return game, ""


def run_pettingzoo_bench(seconds: float = 1.0, rounds: int = 3) -> dict[str, Any]:
    """Per game, the median over ``rounds`` of its steps/s (each round ``seconds`` a game, the
    games taking turns in slices), and which classic games could not be made, with why."""
    from brandeln.pettingzoo import env  # noqa: PLC0415 - the research extra, imported to run

    meters = {BRANDELN: _Meter(_pettingzoo_episodes(env(ruleset=RULESET)))}
    unavailable: dict[str, str] = {}
    for name in CLASSIC_CARD_GAMES:
        game, why = _classic_game(name)
        if game is None:
            unavailable[name] = why
        else:
            meters[name] = _Meter(_pettingzoo_episodes(game))
    meters[ENGINE_ALONE] = _Meter(_engine_episodes())
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in meters}
    slices = max(1, round(seconds / SLICE_S))
    for _ in range(rounds):
        for _ in range(slices):
            for meter in meters.values():
                meter.run(seconds / slices)
        for name, meter in meters.items():
            runs[name].append(meter.take())
    games = {
        name: {key: statistics.median(run[key] for run in done) for key in done[0]}
        for name, done in runs.items()
    }
    brandeln = games[BRANDELN]["steps_per_s"]
    ratios = {name: brandeln / figures["steps_per_s"] for name, figures in games.items()}
    return {
        "ruleset": RULESET,
        "seconds": seconds,
        "rounds": rounds,
        "games": games,
        "brandeln_per_other": ratios,
        "unavailable": unavailable,
    }


def markdown(figures: dict[str, Any]) -> list[str]:
    """The figures as a Markdown section (for ``brandeln bench all``'s report)."""
    lines = [
        "## PettingZoo environment (random masked play, PettingZoo's loop)",
        "",
        "| game | steps/s | steps an episode | brandeln_v0 / it |",
        "|---|---|---|---|",
    ]
    for name, game in figures["games"].items():
        ratio = "" if name == BRANDELN else f"{figures['brandeln_per_other'][name]:.2f}x"
        label = "the engine alone, same deals" if name == ENGINE_ALONE else f"`{name}`"
        lines.append(
            f"| {label} | {game['steps_per_s']:,.0f} | {game['steps_per_episode']:.1f} | {ratio} |"
        )
    for name, why in figures["unavailable"].items():
        lines.append(f"\n`{name}` not measured: {why}")
    lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures; optionally write them as JSON."""
    return timed_bench_main(
        "python -m brandeln.bench.research_pettingzoo",
        __doc__,
        run_pettingzoo_bench,
        markdown,
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())

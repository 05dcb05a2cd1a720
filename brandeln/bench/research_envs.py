"""Benchmark of the OpenSpiel game: ``python -m brandeln.bench.research_envs``.

Environment steps per second with random play through the pyspiel API (``is_terminal``,
``is_chance_node``, ``chance_outcomes``, ``legal_actions``, ``apply_action``), chance nodes
counted as steps, for the ``brandeln`` game (a Python game inside pyspiel, on the engine)
against OpenSpiel's C++ ``oh_hell`` with 4 players, 32 cards and 7 tricks, the same loop for
both; the goal is at least half of ``oh_hell``'s rate. Brandeln's random deals end early more
often than not (sudden death, R9.2), so the figure is also taken with ``early_stop=never``,
every deal to its last trick like ``oh_hell``'s. A third Python game that does no work at all
(``brandeln_bench_floor``: ``oh_hell``'s 63 steps, 28 of them chance nodes) measures what any
Python game pays per call inside pyspiel, the floor under Brandeln's figure. The games take
turns in short slices so that load from elsewhere on the machine falls on all of them alike;
each round's ratio is taken within the round and the report gives the medians.

>>> figures = run_research_bench(seconds=0.05, rounds=1)
>>> figures["games"]["brandeln"]["steps_per_s"] > 0
True
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any, Final

from brandeln import engine
from brandeln.bench.timed_command import timed_bench_main

__all__ = ["GAMES", "OH_HELL", "main", "markdown", "run_research_bench"]

OH_HELL: Final = "oh_hell(players=4,num_suits=4,num_cards_per_suit=8,num_tricks_fixed=7)"
FLOOR: Final = "brandeln_bench_floor"
GAMES: Final = {
    "brandeln": "brandeln",
    "brandeln_full_length": "brandeln(early_stop=never)",
    "python_floor": FLOOR,
    "oh_hell": OH_HELL,
}
"""The games measured, by name in the figures: OpenSpiel game strings."""
YARDSTICK: Final = "oh_hell"
GOAL: Final = 0.5  # of oh_hell's steps/s, through the same API
SLICE_S: Final = 0.05
SEED: Final = 1


# The floor game's shape: oh_hell's deal of 28 cards, then 35 moves of 3 legal actions each.
_FLOOR_CHANCE_NODES: Final = 28
_FLOOR_STEPS: Final = 63
_FLOOR_ACTIONS: Final = (0, 1, 2)
_FLOOR_PLAYERS: Final = 4


def _register_floor(pyspiel: Any) -> None:
    """Register ``brandeln_bench_floor``: a Python game with the API's shape and no work, the
    same Python fast paths as the ``brandeln`` game (``legal_actions``, ``is_chance_node``)."""
    if FLOOR in pyspiel.registered_names():
        return
    game_type = pyspiel.GameType(
        short_name=FLOOR,
        long_name="A Python game that does nothing (benchmark floor)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_FLOOR_PLAYERS,
        min_num_players=_FLOOR_PLAYERS,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification={},
    )
    info = pyspiel.GameInfo(
        num_distinct_actions=len(_FLOOR_ACTIONS),
        max_chance_outcomes=_FLOOR_CHANCE_NODES,
        num_players=_FLOOR_PLAYERS,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=_FLOOR_STEPS,
    )
    outcomes = [(card, 1.0 / _FLOOR_CHANCE_NODES) for card in range(_FLOOR_CHANCE_NODES)]

    class FloorState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type information
        def __init__(self, game: Any) -> None:
            super().__init__(game)
            self.steps = 0

        def current_player(self) -> int:
            if self.steps < _FLOOR_CHANCE_NODES:
                return int(pyspiel.PlayerId.CHANCE)
            if self.steps >= _FLOOR_STEPS:
                return int(pyspiel.PlayerId.TERMINAL)
            return self.steps % _FLOOR_PLAYERS

        def is_chance_node(self) -> bool:
            return self.steps < _FLOOR_CHANCE_NODES

        def is_terminal(self) -> bool:
            return self.steps >= _FLOOR_STEPS

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return list(outcomes)

        def legal_actions(self, player: int | None = None) -> list[int]:
            return list(_FLOOR_ACTIONS)

        def _legal_actions(self, player: int) -> list[int]:
            return list(_FLOOR_ACTIONS)

        def _apply_action(self, action: int) -> None:
            self.steps += 1

        def returns(self) -> list[float]:
            return [0.0] * _FLOOR_PLAYERS

        def __str__(self) -> str:
            return str(self.steps)

    class FloorGame(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, info, params or {})

        def new_initial_state(self) -> FloorState:
            return FloorState(self)

    pyspiel.register_game(game_type, FloorGame)


class _Meter:
    """Random play of one game through the pyspiel API, in slices; counts steps and games."""

    def __init__(self, game: Any, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.elapsed = 0.0
        self.steps = 0
        self.games = 0

    def run(self, seconds: float) -> None:
        new_state, randrange = self.game.new_initial_state, self.rng.randrange
        start = time.perf_counter()
        steps = games = 0
        while True:
            state = new_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[randrange(len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[randrange(len(legal))])
                steps += 1
            games += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        self.elapsed += elapsed
        self.steps += steps
        self.games += games

    def take(self) -> dict[str, float]:
        figures = {
            "steps_per_s": self.steps / self.elapsed,
            "games_per_s": self.games / self.elapsed,
            "steps_per_game": self.steps / max(1, self.games),
        }
        self.elapsed, self.steps, self.games = 0.0, 0, 0
        return figures


def run_research_bench(seconds: float = 1.0, rounds: int = 3) -> dict[str, Any]:
    """Per game, the medians over ``rounds`` (each ``seconds`` a game, the games taking turns
    in slices) of steps/s, games/s and steps a game, and each Brandeln game's ratio to
    ``oh_hell`` per round (steps/s and games/s)."""
    import pyspiel  # noqa: PLC0415 - the research extra, imported to run

    import brandeln.openspiel  # noqa: F401, PLC0415 - registers the game

    _register_floor(pyspiel)
    rng = random.Random(SEED)
    meters = {name: _Meter(pyspiel.load_game(string), rng) for name, string in GAMES.items()}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in meters}
    ratios: dict[str, dict[str, list[float]]] = {
        name: {"steps_per_s": [], "games_per_s": []} for name in meters if name != YARDSTICK
    }
    slices = max(1, round(seconds / SLICE_S))
    for _ in range(max(1, rounds)):
        for _ in range(slices):
            for meter in meters.values():
                meter.run(seconds / slices)
        this_round = {name: meter.take() for name, meter in meters.items()}
        for name, done in this_round.items():
            runs[name].append(done)
        for name, per_key in ratios.items():
            for key, values in per_key.items():
                values.append(this_round[name][key] / this_round[YARDSTICK][key])
    return {
        "seconds": seconds,
        "rounds": max(1, rounds),
        "goal": GOAL,
        # Which engine modules run compiled (setup.py); empty: pure Python.
        "compiled_modules": list(engine.compiled_modules()),
        "games": {
            name: {key: statistics.median(run[key] for run in done) for key in done[0]}
            for name, done in runs.items()
        },
        "ratios_to_oh_hell": {
            name: {
                key: {"median": statistics.median(v), "min": min(v), "max": max(v)}
                for key, v in per_key.items()
            }
            for name, per_key in ratios.items()
        },
    }


def markdown(figures: dict[str, Any]) -> list[str]:
    """The figures as a Markdown section (for ``brandeln bench all``'s report)."""
    compiled = figures["compiled_modules"]
    engine_kind = f"compiled ({len(compiled)} modules)" if compiled else "pure Python"
    lines = [
        "## OpenSpiel game (random play through the pyspiel API)",
        "",
        f"Engine {engine_kind}; medians of {figures['rounds']} rounds of "
        f"{figures['seconds']:g} s a game. Goal: brandeln at least {figures['goal']:g}x "
        "`oh_hell`'s steps/s.",
        "",
        "| game | steps/s | games/s | steps a game | steps/s vs oh_hell | games/s vs oh_hell |",
        "|---|---|---|---|---|---|",
    ]
    for name, game in figures["games"].items():
        ratio = figures["ratios_to_oh_hell"].get(name)
        steps = f"{ratio['steps_per_s']['median']:.2f}x" if ratio else ""
        games = f"{ratio['games_per_s']['median']:.2f}x" if ratio else ""
        lines.append(
            f"| `{GAMES[name]}` | {game['steps_per_s']:,.0f} | {game['games_per_s']:,.0f} | "
            f"{game['steps_per_game']:.1f} | {steps} | {games} |"
        )
    lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures; optionally write them as JSON."""
    return timed_bench_main(
        "python -m brandeln.bench.research_envs", __doc__, run_research_bench, markdown, argv
    )


if __name__ == "__main__":
    sys.exit(main())

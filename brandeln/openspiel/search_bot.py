"""OpenSpiel's searches seated at a referee: ``brandeln bot run openspiel:ismcts`` (and
``openspiel:mcts``), with the search's options after a second colon.

>>> spec = parse_search_spec("openspiel:ismcts:simulations=200,uct_c=1.5")
>>> spec.algorithm, spec.simulations, spec.uct_c, spec.rollouts
(<Algorithm.ISMCTS: 'ismcts'>, 200, 1.5, 1)

At each decision the bot builds the OpenSpiel state its seat may know
(:mod:`brandeln.openspiel.request_state`) and runs OpenSpiel's ``ISMCTSBot`` (an
information-set search: it re-deals the unseen cards at every simulation) or ``MCTSBot`` (a
perfect-information search of one sampled deal), each with a random-rollout evaluator. The
time control bounds the search: the bot measures its simulations' pace and runs as many as
:data:`TIME_SHARE` of the request's ``move_ms`` allows (never more than ``simulations``).
"""

from __future__ import annotations

import asyncio
import enum
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, Final

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from brandeln.engine.rulesets import find_ruleset
from brandeln.openspiel.request_state import state_for_request
from brandeln.sdk import Answer, Bot, SessionOptions, SessionStats, play
from brandeln.sdk.observation import legal_action_indices
from brandeln.v1 import bot_pb2

__all__ = [
    "PREFIX",
    "Algorithm",
    "SearchBot",
    "SearchSpec",
    "parse_search_spec",
    "run_search_bot",
]

PREFIX: Final = "openspiel:"
# The part of move_ms the search may use: the rest covers building the state, a pace that
# varies through the deal (early rollouts are longer), the thread and the network.
TIME_SHARE: Final = 0.4
# Simulations of the first search, before the pace is known.
PROBE_SIMULATIONS: Final = 8


class Algorithm(enum.Enum):
    ISMCTS = "ismcts"
    MCTS = "mcts"


@dataclass(frozen=True)
class SearchSpec:
    """The search and its sizes: at most ``simulations`` per decision, the UCT constant,
    random rollouts per leaf, and the seed of its random choices (None: fresh)."""

    algorithm: Algorithm
    simulations: int = 100
    uct_c: float = 2.0
    rollouts: int = 1
    seed: int | None = None


def parse_search_spec(text: str) -> SearchSpec:
    """``openspiel:ALGORITHM[:name=value,...]``; raises ValueError naming what is allowed."""
    if not text.startswith(PREFIX):
        raise ValueError(f"{text!r} is not an OpenSpiel bot: write {PREFIX}ismcts")
    name, _, options = text[len(PREFIX) :].partition(":")
    try:
        spec = SearchSpec(Algorithm(name))
    except ValueError:
        known = ", ".join(PREFIX + a.value for a in Algorithm)
        raise ValueError(f"unknown OpenSpiel bot {text!r}; known: {known}") from None
    types: dict[str, Callable[[str], Any]] = {
        "simulations": int,
        "uct_c": float,
        "rollouts": int,
        "seed": int,
    }
    names = [field.name for field in fields(SearchSpec) if field.name != "algorithm"]
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        if key not in names:
            raise ValueError(f"unknown option {key!r} in {text!r}; options: {', '.join(names)}")
        try:
            spec = replace(spec, **{key: types[key](value)})
        except ValueError:
            raise ValueError(f"{key}={value!r} in {text!r} is not a number") from None
    if spec.simulations < 1 or spec.rollouts < 1:
        raise ValueError(f"{text!r}: simulations and rollouts must be at least 1")
    return spec


class SearchBot(Bot):
    """OpenSpiel's ISMCTS or MCTS at a referee (see the module docstring)."""

    version = "0.1.0"
    decide_in_thread = True  # a search: the connection stays served meanwhile

    def __init__(self, spec: SearchSpec, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.spec = spec
        self.name = f"openspiel-{spec.algorithm.value}"
        self.clock = clock
        self.rng = random.Random(spec.seed)
        self.seconds_per_simulation: float | None = None

    def simulations_for(self, request: bot_pb2.DecisionRequest) -> int:
        """How many simulations fit this request's time (at least one)."""
        pace = self.seconds_per_simulation
        if pace is None:
            return min(self.spec.simulations, PROBE_SIMULATIONS)
        budget = request.move_ms / 1000 * TIME_SHARE
        return max(1, min(self.spec.simulations, int(budget / pace)))

    def _search(self, game: Any, simulations: int) -> Any:
        spec = self.spec
        random_state = np.random.RandomState(self.rng.randrange(2**31))
        evaluator = mcts.RandomRolloutEvaluator(spec.rollouts, random_state)
        if spec.algorithm is Algorithm.ISMCTS:
            return ismcts.ISMCTSBot(
                game, evaluator, spec.uct_c, simulations, random_state=random_state
            )
        return mcts.MCTSBot(
            game, spec.uct_c, simulations, evaluator, solve=False, random_state=random_state
        )

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        if self.match is None:
            raise RuntimeError("a request before MatchStarted: the SDK always sends it first")
        indices = legal_action_indices(request)
        if len(indices) == 1:
            return 0
        started = self.clock()
        state = state_for_request(request, find_ruleset(self.match.ruleset.id), self.rng)
        simulations = self.simulations_for(request)
        searched = self.clock()
        action = self._search(state.get_game(), simulations).step(state)
        # The slowest pace seen so far: the deal's first decisions have the longest rollouts.
        pace = (self.clock() - searched) / simulations
        self.seconds_per_simulation = max(pace, self.seconds_per_simulation or 0.0)
        self.log(
            f"{self.spec.algorithm.value}: {simulations} simulations "
            f"in {self.clock() - started:.3f} s"
        )
        return indices.index(int(action))


def run_search_bot(
    text: str, options: SessionOptions, tables: int = 1, display_name: str | None = None
) -> list[SessionStats]:
    """Play with the OpenSpiel bot ``text`` (``openspiel:ismcts:...``) until stopped."""
    spec = parse_search_spec(text)

    def factory() -> Bot:
        bot = SearchBot(spec)
        if display_name:
            bot.name = display_name
        return bot

    return asyncio.run(play(factory, options, tables))

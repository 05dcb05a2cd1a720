"""Brandeln as a single-agent Gymnasium environment: the learner holds one seat, sample bots the
others (registered as ``brandeln/Brandeln-v0`` by importing :mod:`brandeln.gymnasium_env`).

It wraps the PettingZoo environment (:mod:`brandeln.pettingzoo`): the same observations,
action space, rewards and episodes; the other seats' turns are played by
:class:`~brandeln.gymnasium_env.opponents.SeatedBots` between the learner's steps.

>>> import gymnasium
>>> import brandeln.gymnasium_env
>>> env = gymnasium.make("brandeln/Brandeln-v0", opponents=["random", "heuristic", "random"])
>>> observation, info = env.reset(seed=3)
>>> sorted(observation), info["seat"]
(['action_mask', 'observation'], 0)
>>> action = int(observation["action_mask"].argmax())
>>> observation, reward, terminated, truncated, info = env.step(action)
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np

from brandeln.engine.rulesets import Ruleset
from brandeln.gymnasium_env.opponents import DEFAULT_SAMPLES, SeatedBots
from brandeln.pettingzoo.aec import RENDER_MODES, BrandelnAEC, agent_name
from brandeln.pettingzoo.episode import DEAL_SEED_LIMIT, EpisodeKind
from brandeln.pettingzoo.render import table_text
from brandeln.sdk import Bot

__all__ = ["DEFAULT_OPPONENT", "BrandelnEnv", "IllegalPolicy"]

DEFAULT_OPPONENT: Final = "heuristic"
"""Who plays a seat the ``opponents`` option leaves out."""

Observation = dict[str, np.ndarray[Any, Any]]


class IllegalPolicy(StrEnum):
    """What an action outside the mask does."""

    FALLBACK = "fallback"  # the referee's: the first legal action (R12.3), flagged in the info
    RAISE = "raise"  # brandeln.engine.errors.IllegalActionError with the engine's reason


class BrandelnEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a Brandeln table; the other seats are sample bots.

    Options: ``opponents`` (registry names, ``random``, ``heuristic``, ``montecarlo``,
    ``expert``, or ``Bot`` objects, for the other seats clockwise from the learner's left; seats
    left out get ``heuristic``), ``ruleset``, ``seat`` (the learner's, default 0), ``episode``
    (``"deal"`` or ``"match"``), ``deals``, ``dealer``, ``render_mode`` (``"ansi"``,
    ``"human"``), ``illegal`` (see below), ``samples`` and ``level`` (the montecarlo bot's
    samples per option and the expert's level).

    The observation carries the action mask. An action outside it is played as the referee
    plays a timed-out seat's, the first legal action in canonical order, and the step's info
    says ``illegal_action``; with ``illegal="raise"`` it raises
    ``brandeln.engine.errors.IllegalActionError`` instead. (Gymnasium's ``check_env`` steps unmasked
    random actions, so the default must not raise.)
    """

    # Gymnasium reads it from the class (gymnasium.make, check_env): shared, never mutated.
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[str | Bot] = (),
        ruleset: str | Ruleset = "standard",
        seat: int = 0,
        episode: str = EpisodeKind.DEAL,
        *,
        deals: int | None = None,
        dealer: int | None = None,
        render_mode: str | None = None,
        illegal: str = IllegalPolicy.FALLBACK,
        samples: int = DEFAULT_SAMPLES,
        level: int | None = None,
    ) -> None:
        self.game = BrandelnAEC(ruleset, episode, deals=deals, dealer=dealer)
        players = self.game.ruleset.players
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of {self.game.ruleset.id!r}")
        if len(opponents) > players - 1:
            raise ValueError(
                f"{len(opponents)} opponents for the {players - 1} other seats of "
                f"{self.game.ruleset.id!r}"
            )
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")
        self.seat = seat
        self.agent = agent_name(seat)
        others = [(seat + step) % players for step in range(1, players)]
        chosen = list(opponents) + [DEFAULT_OPPONENT] * (players - 1 - len(opponents))
        self.opponents: dict[int, str | Bot] = dict(zip(others, chosen, strict=True))
        self.illegal = IllegalPolicy(illegal)
        self.samples = samples
        self.level = level
        self.render_mode = render_mode
        self.observation_space = self.game.observation_space(self.agent)
        self.action_space = self.game.action_space(self.agent)
        self._bots: SeatedBots | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new episode, the bots played up to the learner's first turn. The same ``seed``
        deals the same cards and seeds the bots alike: the same episode for the same actions."""
        super().reset(seed=seed)
        episode_seed = seed if seed is not None else int(self.np_random.integers(DEAL_SEED_LIMIT))
        self.game.reset(seed=episode_seed)
        self._bots = SeatedBots(
            self.opponents, episode_seed, samples=self.samples, level=self.level
        )
        self._play_bots()  # the episode never ends before the learner's turn: everyone bids
        return self._observe(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the bots' turns up to the learner's next turn or
        the episode's end; the reward is the learner's chips from the deals that ended."""
        if self._bots is None or self.game.terminations.get(self.agent, True):
            raise RuntimeError("the episode is over (or not begun): call reset()")
        info = self._info()
        legal = self.game.legal_actions()
        index = int(action)
        if index not in legal and self.illegal is IllegalPolicy.FALLBACK:
            info["illegal_action"] = index
            # Canonical order (R12.3) is the engine's order of legal actions.
            first = self.game.deal_state.legal_actions()[0]
            index = next(i for i, act in legal.items() if act == first)
        self.game.step(index)
        reward = self.game.rewards[self.agent]
        reward += self._play_bots()
        terminated = self.game.terminations[self.agent]
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, info

    def render(self) -> str | None:
        """The table as text, every hand shown: returned (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = table_text(self.game.episode)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _play_bots(self) -> float:
        """Let the bots act until it is the learner's turn or the episode is over; the
        learner's reward meanwhile."""
        assert self._bots is not None
        reward = 0.0
        episode = self.game.episode
        while not episode.is_over and episode.state.to_act != self.seat:
            action = self._bots.decide(episode)
            index = next(i for i, act in self.game.legal_actions().items() if act == action)
            self.game.step(index)
            reward += self.game.rewards[self.agent]
        return reward

    def _observe(self) -> Observation:
        return self.game.observe(self.agent)

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "deal_number": self.game.episode.deal_number}

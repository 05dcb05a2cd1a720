"""Brandeln as a PettingZoo AEC environment: every seat an agent, one acting at a time.

Agents are ``seat_0`` .. ``seat_{N-1}`` (the table's seats); the one to act is the engine's
``DealState.to_act``. An observation is ``{"observation": float32 vector, "action_mask": int8
vector}`` (the encoding of :mod:`brandeln.pettingzoo.spaces`), the action space one
``Discrete`` over every action of every phase: bids, naming trump and cards. Rewards are
chips, given to every seat when a deal ends; an episode is a deal or a whole match.

>>> from brandeln.pettingzoo import env
>>> game = env(ruleset="standard")
>>> game.reset(seed=1)
>>> for agent in game.agent_iter():
...     observation, reward, termination, truncation, info = game.last()
...     action = None if termination else int(observation["action_mask"].argmax())
...     game.step(action)
>>> game.close()
"""

from __future__ import annotations

from typing import Any, Final

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from brandeln.engine.actions import Action
from brandeln.engine.errors import IllegalActionError
from brandeln.engine.rulesets import Ruleset, find_ruleset
from brandeln.engine.state import DealState
from brandeln.pettingzoo import spaces
from brandeln.pettingzoo.episode import DealEnd, Episode, EpisodeKind
from brandeln.pettingzoo.render import table_text
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

__all__ = ["AGENT_PREFIX", "RENDER_MODES", "BrandelnAEC", "agent_name", "env", "raw_env"]

AGENT_PREFIX: Final = "seat_"
"""Agents are named after their seats, as PettingZoo's ``<descriptor>_<number>`` asks."""
RENDER_MODES: Final = ("ansi", "human")

Observation = dict[str, np.ndarray]


def agent_name(seat: int) -> str:
    """The agent of ``seat``: ``agent_name(2) == "seat_2"``."""
    return f"{AGENT_PREFIX}{seat}"


class BrandelnAEC(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """The raw environment (:func:`raw_env`); :func:`env` wraps it as PettingZoo's classic games
    are wrapped.

    Options: ``ruleset`` (an id of ``brandeln.engine.rulesets``, or a ``Ruleset`` with its switches
    set), ``episode`` (``"deal"``: one deal; ``"match"``: a match of ``deals`` deals, rewards at
    each deal's end), ``dealer`` (the first dealer; default drawn from the seed, so a seat sees
    every position), ``render_mode`` (``"ansi"``: ``render()`` returns the table as text;
    ``"human"``: it prints it after every step).

    An action whose ``action_mask`` entry is 0 raises ``brandeln.engine.errors.IllegalActionError``
    with the engine's reason: a policy samples from the mask (PettingZoo's
    ``TerminateIllegalWrapper`` turns it into a lost episode instead, for those who want that).
    """

    # PettingZoo reads it from the class (api_test, wrappers): shared, never mutated.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "brandeln_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        ruleset: str | Ruleset = "standard",
        episode: str = EpisodeKind.DEAL,
        *,
        deals: int | None = None,
        dealer: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.ruleset = find_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        self.episode_kind = EpisodeKind(episode)
        if self.episode_kind is EpisodeKind.DEAL and deals not in (None, 1):
            raise ValueError(f"a deal episode is one deal, not {deals}; use episode='match'")
        if dealer is not None and not 0 <= dealer < self.ruleset.players:
            raise ValueError(f"dealer {dealer} is not a seat of {self.ruleset.id!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")
        self.deals = deals
        self.dealer = dealer
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(self.ruleset.players)]
        self.agents: list[str] = []
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # One space object per agent, kept: seeding a space must seed what the agent samples.
        self.observation_spaces = {a: spaces.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: spaces.action_space() for a in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self._episode: Episode | None = None
        self._legal: dict[int, Action] = {}
        self.last_deal: DealEnd | None = None

    # --- PettingZoo's API ------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """``Dict(observation=Box(float32), action_mask=Box(int8))``, the same for every seat."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """``Discrete(N)`` over the encoding's fixed action space, the same for every seat."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode; with ``seed`` its deals (and dealer) are always the same ones.
        ``options`` is accepted for the API and ignored: options go to the constructor."""
        if seed is not None or self._episode is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self._episode = Episode.start(
            self.ruleset, self.episode_kind, self.np_random, dealer=self.dealer, deals=self.deals
        )
        self.last_deal = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select_next()

    def observe(self, agent: str) -> Observation:
        """What ``agent``'s seat may know (R12.1), encoded, with the mask of its legal actions
        (all zeros when it is not its turn)."""
        episode = self._current()
        seat = self._seat_of[agent]
        to_act = agent == self.agent_selection and not self.terminations.get(agent, True)
        return {
            "observation": spaces.observation_vector(episode.state, seat),
            "action_mask": spaces.action_mask(self._legal if to_act else {}),
        }

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` (an index of the action space) for the agent to act."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        engine_action = self._engine_action(action)
        episode = self._current()
        ended = episode.apply(engine_action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if ended is not None:
            self.last_deal = ended
            for seat, reward in enumerate(ended.rewards):
                self.rewards[agent_name(seat)] = float(reward)
        if episode.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self._legal = {}
        else:
            self._select_next()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text (:func:`brandeln.pettingzoo.render.table_text`): returned in
        ``ansi`` mode, printed in ``human`` mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; see env(render_mode=)")
            return None
        text = table_text(self._current())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no resources."""

    # --- beyond the API ---------------------------------------------------------------------
    @property
    def episode(self) -> Episode:
        """The episode in play: its ``state`` is the engine's ``DealState``, its ``match`` the
        ``MatchState`` (for the Gymnasium wrapper, and for tests holding the env to the engine).
        """
        return self._current()

    @property
    def deal_state(self) -> DealState:
        """The engine's state of the deal in play."""
        return self._current().state

    def legal_actions(self) -> dict[int, Action]:
        """The legal actions of the agent to act, by their index in the action space."""
        return dict(self._legal)

    def _current(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("call reset() before using the environment")
        return self._episode

    def _select_next(self) -> None:
        state = self._current().state
        assert state.to_act is not None  # an episode not over always has a seat to act
        self.agent_selection = agent_name(state.to_act)
        self._legal = spaces.legal_actions_by_index(state)

    def _engine_action(self, action: int | np.integer[Any] | None) -> Action:
        if action is None:
            raise ValueError(f"{self.agent_selection} is live: its action cannot be None")
        legal = self._legal.get(int(action))
        if legal is not None:
            return legal
        raise IllegalActionError(
            f"action {int(action)} ({spaces.describe(int(action))}) is not legal "
            f"for {self.agent_selection} now; legal: "
            + ", ".join(f"{index} ({act})" for index, act in sorted(self._legal.items()))
        )


def raw_env(**kwargs: Any) -> BrandelnAEC:
    """The environment without PettingZoo's wrappers (see :class:`BrandelnAEC` for the options)."""
    return BrandelnAEC(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment as PettingZoo's classic games come: out-of-bounds actions asserted, the
    order of reset/step/observe enforced. Options: see :class:`BrandelnAEC`.

    >>> game = env(ruleset="three-player", episode="match")
    >>> game.reset(seed=5)
    >>> game.agent_selection in game.possible_agents, len(game.possible_agents)
    (True, 3)
    """
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(wrapped)

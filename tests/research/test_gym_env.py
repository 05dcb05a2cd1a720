"""The Gymnasium single-seat environment: Gymnasium's checker, the learner's turns, the bots
asked through the referee's messages, reproducible episodes, illegal actions."""

from __future__ import annotations

import doctest
import importlib
import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="install the research extra: pip install -e '.[research]'")

import gymnasium
from gymnasium.utils.env_checker import check_env

from brandeln.engine.actions import PASS
from brandeln.engine.errors import IllegalActionError
from brandeln.gymnasium_env import ENV_ID, BrandelnEnv
from brandeln.pettingzoo import agent_name
from brandeln.sdk import Answer, FunctionBot
from brandeln.sdk.encoding import action_index, observation_tensor
from brandeln.sdk.observation import (
    legal_action_indices,
    observation_from_request,
)
from brandeln.v1 import bot_pb2

OPPONENTS = ["random", "heuristic", "random"]


def _unwrapped(**options: Any) -> BrandelnEnv:
    env = gymnasium.make(ENV_ID, **options).unwrapped
    assert isinstance(env, BrandelnEnv)
    return env


def test_passes_gymnasiums_check_env() -> None:
    check_env(gymnasium.make(ENV_ID, opponents=OPPONENTS).unwrapped)


def test_passes_gymnasiums_check_env_for_a_match_of_three_players() -> None:
    env = gymnasium.make(
        ENV_ID, opponents=["heuristic", "random"], ruleset="three-player", episode="match", deals=3
    )
    check_env(env.unwrapped, skip_render_check=True)


def _random_episode(env: BrandelnEnv, seed: int) -> list[tuple[float, bool, list[float]]]:
    """(reward, terminated, observation) of each step of one episode of random masked play."""
    rng = random.Random(seed)
    observation, _ = env.reset(seed=seed)
    steps = []
    terminated = False
    while not terminated:
        legal = [int(i) for i in observation["action_mask"].nonzero()[0]]
        observation, reward, terminated, truncated, _ = env.step(rng.choice(legal))
        assert not truncated
        steps.append((float(reward), terminated, observation["observation"].tolist()))
    return steps


@pytest.mark.parametrize("seat", [0, 2])
def test_the_learner_acts_only_on_its_seats_turns(seat: int) -> None:
    env = _unwrapped(opponents=OPPONENTS, seat=seat, episode="match", deals=2)
    rng = random.Random(seat)
    observation, _ = env.reset(seed=5)
    terminated = False
    while not terminated:
        assert env.game.deal_state.to_act == seat
        legal = [int(i) for i in observation["action_mask"].nonzero()[0]]
        observation, _, terminated, _, _ = env.step(rng.choice(legal))


def test_the_learners_rewards_add_up_to_its_final_balance() -> None:
    env = _unwrapped(opponents=OPPONENTS, seat=1, episode="match", deals=3)
    total = sum(reward for reward, _, _ in _random_episode(env, seed=9))
    assert total == env.game.episode.match.final_balances()[1]


def test_the_same_seed_plays_the_same_episode() -> None:
    env = _unwrapped(opponents=["heuristic", "random", "montecarlo"], samples=4)
    assert _random_episode(env, seed=17) == _random_episode(env, seed=17)


def test_the_bots_decide_on_the_referees_requests_which_read_as_the_envs_encoding() -> None:
    # A bot's request, read by the SDK, gives the observation and the legal indices the
    # environment gives that seat: a policy trained here sees the same in play, through the SDK.
    asked: list[int] = []
    env: BrandelnEnv

    def check_then_first_legal(request: bot_pb2.DecisionRequest) -> Answer:
        seat = request.view.seat
        asked.append(seat)
        match = env._bots.bots[seat].match if env._bots is not None else None
        assert match is not None
        observed = env.game.observe(agent_name(seat))
        facts = observation_from_request(request, match.ruleset)
        assert observation_tensor(facts) == observed["observation"].tolist()
        assert legal_action_indices(request) == sorted(env.game.legal_actions())
        return 0

    env = _unwrapped(opponents=[FunctionBot(check_then_first_legal)] * 3, episode="match")
    _random_episode(env, seed=2)
    assert set(asked) == {1, 2, 3}


def test_an_illegal_action_plays_the_referees_fallback_and_says_so() -> None:
    env = _unwrapped(opponents=OPPONENTS)
    observation, _ = env.reset(seed=3)
    card = action_index("HJ")  # a card in the auction
    assert observation["action_mask"][card] == 0
    _, _, _, _, info = env.step(card)
    assert info["illegal_action"] == card
    played = [made.bid for made in env.game.deal_state.auction if made.seat == env.seat]
    assert played[0] == PASS  # the first legal action in canonical order (R12.3)


def test_an_illegal_action_raises_when_asked_to() -> None:
    env = _unwrapped(opponents=OPPONENTS, illegal="raise")
    env.reset(seed=3)
    with pytest.raises(IllegalActionError, match=r"\(HJ\) is not legal"):
        env.step(action_index("HJ"))


def test_too_many_opponents_or_an_unknown_bot_are_refused() -> None:
    with pytest.raises(ValueError, match="3 opponents for the 2 other seats"):
        BrandelnEnv(opponents=OPPONENTS, ruleset="three-player")
    env = BrandelnEnv(opponents=["grandmaster"])
    with pytest.raises(ValueError, match="unknown bot 'grandmaster'"):
        env.reset(seed=1)


def test_ansi_render_shows_every_seat() -> None:
    env = _unwrapped(opponents=OPPONENTS, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str)
    assert all(f"seat {seat}: " in text for seat in range(4))


@pytest.mark.parametrize(
    "name",
    [
        "brandeln.gymnasium_env",
        "brandeln.gymnasium_env.opponents",
        "brandeln.gymnasium_env.single_seat",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

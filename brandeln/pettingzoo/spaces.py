"""The environments' spaces and arrays, from the one shared encoding (``brandeln.sdk.encoding``).

The encoding decides the action index and the observation tensor (so a bot on the SDK computes
what a policy was trained on); this module only turns them into Gymnasium spaces and numpy
arrays, and pairs the engine's legal actions with their indices. Legality is the engine's.

>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.state import DealState
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5))
>>> legal = legal_actions_by_index(state)
>>> [(index, str(action)) for index, action in legal.items()][:3]
[(0, 'pass'), (2, 'brandle'), (3, 'brand')]
>>> mask = action_mask(legal)
>>> mask.dtype, int(mask.sum()), observation_vector(state, seat=0).shape
(dtype('int8'), 6, (417,))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import gymnasium
import numpy as np

from brandeln.engine.actions import Action
from brandeln.engine.state import DealState
from brandeln.engine_encoding import observation_of_state
from brandeln.sdk.encoding import (
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    action_index,
    action_of,
    observation_ones,
)

__all__ = [
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "action_mask",
    "action_space",
    "describe",
    "legal_actions_by_index",
    "observation_space",
    "observation_vector",
]

OBSERVATION_DTYPE: Final = np.float32
MASK_DTYPE: Final = np.int8
# Every feature of the encoding is 0 or 1 (one-hot or a set of cards).
_LOW, _HIGH = 0, 1


def observation_space() -> gymnasium.spaces.Dict:
    """``Dict(observation=Box(0, 1, (OBSERVATION_SIZE,), float32), action_mask=Box(0, 1,
    (NUM_ACTIONS,), int8))``, as PettingZoo's card games shape theirs."""
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(
                _LOW, _HIGH, (OBSERVATION_SIZE,), OBSERVATION_DTYPE
            ),
            "action_mask": gymnasium.spaces.Box(_LOW, _HIGH, (NUM_ACTIONS,), MASK_DTYPE),
        }
    )


def action_space() -> gymnasium.spaces.Discrete:
    """``Discrete(NUM_ACTIONS)``: every action of every phase and ruleset, one index each."""
    return gymnasium.spaces.Discrete(NUM_ACTIONS)


def observation_vector(state: DealState, seat: int) -> np.ndarray[Any, Any]:
    """The encoding's observation tensor of what ``seat`` knows in ``state``, as float32."""
    vector = np.zeros(OBSERVATION_SIZE, OBSERVATION_DTYPE)
    vector[observation_ones(observation_of_state(state, seat))] = 1.0  # the same as the list
    return vector


def action_mask(legal: Mapping[int, Action]) -> np.ndarray[Any, Any]:
    """An int8 vector over the action space, 1 at each index of ``legal``."""
    mask = np.zeros(NUM_ACTIONS, MASK_DTYPE)
    mask[list(legal)] = 1
    return mask


def legal_actions_by_index(state: DealState) -> dict[int, Action]:
    """The engine's legal actions of the seat to act, by their index in the encoding, in the
    engine's (canonical, R12.3) order."""
    return {action_index(str(action)): action for action in state.legal_actions()}


def describe(index: int) -> str:
    """How an action index reads (``"pass"``, ``"H"``, ``"HJ"``), or why it is none."""
    try:
        return action_of(index)
    except ValueError as error:
        return str(error)

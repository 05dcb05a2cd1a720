"""The observer of the ``brandeln`` game, by OpenSpiel's convention (``make_py_observer``):
a flat ``tensor`` and its named pieces in ``dict``, filled by ``set_from(state, player)``, and
``string_from(state, player)``. The tensors and strings are the encoding's
(:mod:`brandeln.sdk.encoding`, whose docstring tables every slice), so a policy trained
here reads the same numbers a bot builds from a ``DecisionRequest``.

``perfect_recall=True`` gives the information state (OpenSpiel's ``information_state_tensor``),
``False`` the observation (``observation_tensor``). ``private_info=NONE`` leaves the
observer's own cards out (what every seat knows alike); ``ALL_PLAYERS`` is not offered: no seat
ever sees another's cards (R12.1).

>>> import pyspiel
>>> import brandeln.openspiel
>>> game = pyspiel.load_game("brandeln")
>>> observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
>>> list(observer.dict)[:4], observer.tensor.shape
(['ruleset', 'phase', 'position', 'hand'], (1669,))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pyspiel

from brandeln.sdk.encoding import (
    INFORMATION_STATE_LAYOUT,
    INFORMATION_STATE_SIZE,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    Observation,
    Slice,
    information_state_ones,
    information_state_string,
    observation_ones,
    observation_string,
)


class ObservedState(Protocol):
    """What the observer reads of a state: the encoding's facts for one player (the game's
    ``BrandelnState``; a protocol, so that the game imports the observer and not both ways)."""

    def observation_facts(self, player: int) -> Observation: ...


__all__ = ["BrandelnObserver"]


class BrandelnObserver:
    """Fills one tensor in place from a state, as seen by one player (seat)."""

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"the brandeln observer takes no parameters, got {dict(params)}")
        if not iig_obs_type.public_info:
            raise ValueError("the brandeln observer always shows the public record")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("no seat sees another's cards (R12.1): use SINGLE_PLAYER or NONE")
        self._private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        layout: Mapping[str, Slice]
        if iig_obs_type.perfect_recall:
            layout, size = INFORMATION_STATE_LAYOUT, INFORMATION_STATE_SIZE
            self._ones: Callable[[Observation], list[int]] = information_state_ones
            self._text: Callable[[Observation], str] = information_state_string
        else:
            layout, size = OBSERVATION_LAYOUT, OBSERVATION_SIZE
            self._ones, self._text = observation_ones, observation_string
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        # Named views into the one tensor (no copies), in layout order: OpenSpiel copies them
        # out one after another, so their order is the flat tensor's.
        self.dict: dict[str, npt.NDArray[np.float32]] = {
            name: self.tensor[part.offset : part.offset + part.length].reshape(part.shape)
            for name, part in layout.items()
        }

    def _facts(self, state: ObservedState, player: int) -> Observation:
        facts = state.observation_facts(player)
        return facts if self._private else dataclasses.replace(facts, hand=())

    def set_from(self, state: ObservedState, player: int) -> None:
        """Write what ``player`` knows in ``state`` into :attr:`tensor`."""
        self.tensor.fill(0)
        self.tensor[self._ones(self._facts(state, player))] = 1

    def string_from(self, state: ObservedState, player: int) -> str:
        """What ``player`` knows in ``state``, as text."""
        return self._text(self._facts(state, player))

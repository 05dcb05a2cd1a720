"""Brandeln as a PettingZoo AEC environment (``pip install -e '.[research]'``).

>>> from brandeln.pettingzoo import env
>>> game = env(ruleset="standard", render_mode=None)
>>> game.reset(seed=42)
>>> game.agent_selection
'seat_1'

``env(...)`` is the environment wrapped as PettingZoo's classic games are, ``raw_env(...)`` the
bare :class:`BrandelnAEC`. Options: ``ruleset``, ``episode`` (``"deal"`` or ``"match"``),
``deals``, ``dealer``, ``render_mode`` (``"ansi"``, ``"human"``). Modules: ``aec`` (the
environment), ``episode`` (deals and matches on the engine), ``spaces`` (observation and action
spaces from the shared encoding), ``render`` (the table as text).
"""

from __future__ import annotations

from brandeln.pettingzoo.aec import AGENT_PREFIX, BrandelnAEC, agent_name, env, raw_env
from brandeln.pettingzoo.episode import DealEnd, Episode, EpisodeKind

__all__ = [
    "AGENT_PREFIX",
    "BrandelnAEC",
    "DealEnd",
    "Episode",
    "EpisodeKind",
    "agent_name",
    "env",
    "raw_env",
]

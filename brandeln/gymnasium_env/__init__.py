"""Brandeln as a single-agent Gymnasium environment, registered on import as
``brandeln/Brandeln-v0`` (``pip install -e '.[research]'``).

>>> import gymnasium
>>> import brandeln.gymnasium_env
>>> env = gymnasium.make(
...     "brandeln/Brandeln-v0", opponents=["heuristic", "random", "heuristic"], seat=0
... )
>>> observation, info = env.reset(seed=7)
>>> env.action_space
Discrete(49)

Named ``gymnasium_env``, not ``gymnasium``, so that it never shadows the package it builds on.
Modules: ``single_seat`` (:class:`BrandelnEnv`), ``opponents`` (sample bots in-process).
"""

from __future__ import annotations

from typing import Final

import gymnasium

from brandeln.gymnasium_env.opponents import SeatedBots
from brandeln.gymnasium_env.single_seat import BrandelnEnv, IllegalPolicy

__all__ = ["ENV_ID", "BrandelnEnv", "IllegalPolicy", "SeatedBots"]

ENV_ID: Final = "brandeln/Brandeln-v0"
"""What ``gymnasium.make`` knows the environment by."""

if ENV_ID not in gymnasium.registry:  # imported again (a reload, a test): registered once
    gymnasium.register(id=ENV_ID, entry_point="brandeln.gymnasium_env.single_seat:BrandelnEnv")

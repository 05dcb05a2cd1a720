"""The sample bots by name, for ``brandeln bot run NAME`` and ``python -m sample_bots NAME``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sample_bots.heuristic import HeuristicBot
from sample_bots.montecarlo import MonteCarloBot
from sample_bots.random_bot import RandomBot
from sample_bots.sdk import Bot

_FACTORIES: Final[dict[str, Callable[[int | None], Bot]]] = {
    "random": lambda seed: RandomBot(seed=seed),
    "heuristic": lambda seed: HeuristicBot(),
    "montecarlo": lambda seed: MonteCarloBot(seed=seed),
}
BOT_NAMES: Final = tuple(_FACTORIES)


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A fresh bot called ``name``; ``seed`` makes its random choices reproducible."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; sample bots: {', '.join(BOT_NAMES)}")
    return factory(seed)

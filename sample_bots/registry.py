"""The sample bots by name, for ``brandeln bot run NAME`` and
``python -m brandeln.sample_bots NAME``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from brandeln.sample_bots.expert import DEFAULT_LEVEL, ExpertBot
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.sample_bots.random_bot import RandomBot
from brandeln.sdk import Bot

# (seed, level, samples) -> a bot.
_FACTORIES: Final[dict[str, Callable[[int | None, int, int], Bot]]] = {
    "random": lambda seed, level, samples: RandomBot(seed=seed),
    "heuristic": lambda seed, level, samples: HeuristicBot(),
    "montecarlo": lambda seed, level, samples: _exact(
        MonteCarloBot(seed=seed, max_samples=samples)
    ),
    "expert": lambda seed, level, samples: ExpertBot(seed=seed, level=level),
}
BOT_NAMES: Final = tuple(_FACTORIES)


def _exact(bot: MonteCarloBot) -> MonteCarloBot:
    """With a sample cap the bot stops at the cap, not at its time share: reproducible."""
    bot.exact_samples = bot.max_samples > 0
    return bot


def make_bot(
    name: str, seed: int | None = None, level: int | None = None, samples: int | None = None
) -> Bot:
    """A fresh bot called ``name``; ``seed`` makes its random choices reproducible; ``level``
    (1 to 5) is the expert bot's strength (the other bots have one level); ``samples`` caps
    the montecarlo bot's samples per option and lets the cap, not the clock, end its searches
    (with a seed: the same choices at any speed; the clock still guards against a timeout,
    at the move's time plus half the bank)."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; sample bots: {', '.join(BOT_NAMES)}")
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples}")
    return factory(seed, DEFAULT_LEVEL if level is None else level, samples or 0)

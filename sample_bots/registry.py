"""The sample bots by name, for ``brandeln bot run NAME`` and
``python -m brandeln.sample_bots NAME``.

Each bot's module is imported when that bot is made, not with this one: a bot process runs one
bot, and the searching bots' modules (montecarlo, expert, and the solver under them) cost a
random or heuristic bot's process about a sixth of its start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from brandeln.sample_bots.montecarlo import MonteCarloBot
    from brandeln.sdk import Bot

# PLC0415 below: the imports are the point of these functions (see the module's docstring).


def _random(seed: int | None, level: int | None, samples: int) -> Bot:
    from brandeln.sample_bots.random_bot import RandomBot  # noqa: PLC0415

    return RandomBot(seed=seed)


def _heuristic(seed: int | None, level: int | None, samples: int) -> Bot:
    from brandeln.sample_bots.heuristic import HeuristicBot  # noqa: PLC0415

    return HeuristicBot()


def _montecarlo(seed: int | None, level: int | None, samples: int) -> Bot:
    from brandeln.sample_bots.montecarlo import MonteCarloBot  # noqa: PLC0415

    return _exact(MonteCarloBot(seed=seed, max_samples=samples))


def _expert(seed: int | None, level: int | None, samples: int) -> Bot:
    from brandeln.sample_bots.expert import DEFAULT_LEVEL, ExpertBot  # noqa: PLC0415

    return ExpertBot(seed=seed, level=DEFAULT_LEVEL if level is None else level)


# (seed, level or None for the bot's default, samples) -> a bot.
_FACTORIES: Final[dict[str, Callable[[int | None, int | None, int], Bot]]] = {
    "random": _random,
    "heuristic": _heuristic,
    "montecarlo": _montecarlo,
    "expert": _expert,
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
    return factory(seed, level, samples or 0)

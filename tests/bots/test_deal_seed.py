"""Seeded sample bots choose the same in the same deal, whatever they played before: a
season's results do not depend on which table (or process, or node) a match lands on."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from brandeln.sample_bots.montecarlo import MonteCarloBot
from brandeln.sample_bots.random_bot import RandomBot
from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import Bot
from tests.bots.botkit_table import play_deal

MakeBot = Callable[[int], Bot]


def _choices(make: MakeBot, seed: int, warm_up: bool) -> list[str]:
    """The choices of four bots seeded ``seed`` in deal 7, after another deal or fresh."""
    bots = [make(seed) for _ in range(4)]
    if warm_up:
        play_deal(bots, seed=1234, dealer=2, deal_number=3)
    chosen: list[str] = []
    play_deal(bots, seed=7, dealer=1, deal_number=2, choices=chosen)
    return chosen


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda seed: RandomBot(seed=seed), id="random"),
        # A sample cap and a generous clock: the cap, not the time, ends each search.
        pytest.param(
            lambda seed: MonteCarloBot(seed=seed, think_ms=10_000, max_samples=4),
            id="montecarlo",
        ),
    ],
)
def test_a_seeded_bot_chooses_the_same_in_a_deal_whatever_it_played_before(
    make: MakeBot,
) -> None:
    assert _choices(make, 5, warm_up=True) == _choices(make, 5, warm_up=False)


def test_the_seed_still_matters() -> None:
    runs = {tuple(_choices(lambda s: RandomBot(seed=s), seed, warm_up=False)) for seed in range(4)}
    assert len(runs) > 1


def test_samples_caps_the_montecarlo_bot() -> None:
    bot = make_bot("montecarlo", seed=1, samples=3)
    assert isinstance(bot, MonteCarloBot)
    assert bot.max_samples == 3
    assert bot.exact_samples  # the cap ends its searches, not its time share
    uncapped = make_bot("montecarlo", seed=1)
    assert isinstance(uncapped, MonteCarloBot)
    assert not uncapped.exact_samples
    with pytest.raises(ValueError, match="at least 1"):
        make_bot("montecarlo", samples=0)

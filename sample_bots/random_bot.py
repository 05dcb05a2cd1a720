"""The `random` sample bot: a uniformly random legal choice, reproducible with a seed.

>>> bot = RandomBot(seed=7)
>>> bot.name
'random'
"""

from __future__ import annotations

import random

from brandeln.sample_bots.deal_seed import deal_seed
from brandeln.sdk import Answer, Bot
from brandeln.v1 import bot_pb2


class RandomBot(Bot):
    """Picks one of ``request.legal`` uniformly at random."""

    name = "random"
    version = "1.0"
    decide_in_thread = False  # nothing to compute

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.seed = seed
        self.rng = random.Random(seed)

    def on_deal_start(self, deal: bot_pb2.DealStarted) -> None:
        if self.seed is not None:  # reproducible whichever table the deal is at
            self.rng.seed(deal_seed(self.seed, deal))

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        return self.rng.randrange(len(request.legal))

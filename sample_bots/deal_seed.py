"""Seeding a sample bot's random choices per deal, so a seeded bot is reproducible.

A bot process serves several tables, and which match lands on which table (and in what order
the tables' decisions come) depends on timing. A single random stream per process or per table
would make a seeded bot's choices depend on that timing too. Re-seeding at every deal from the
bot's seed and what the deal shows this seat (its number, the dealer, the hand) makes each
choice a function of the seed and the game alone: the same season on one machine or on a
cluster plays the same cards.

>>> from brandeln.v1 import bot_pb2
>>> deal = bot_pb2.DealStarted(deal_number=1, dealer=2)
>>> deal_seed(7, deal) == deal_seed(7, deal), deal_seed(7, deal) == deal_seed(8, deal)
(True, False)
"""

from __future__ import annotations

from brandeln.v1 import bot_pb2

__all__ = ["deal_seed"]


def deal_seed(seed: int, deal: bot_pb2.DealStarted) -> str:
    """A seed for ``random.Random.seed`` (a str: hashed the same in every process, whatever
    PYTHONHASHSEED says) from the bot's ``seed`` and the deal as this seat sees it."""
    hand = ",".join(f"{card.suit}.{card.rank}" for card in deal.hand)
    return f"{seed}|{deal.deal_number}|{deal.dealer}|{deal.forehand}|{hand}"

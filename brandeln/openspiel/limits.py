"""What OpenSpiel's ``GameInfo`` asks of a ruleset: the utility bounds, whether every deal is
zero-sum, the longest auction and the longest game. Read off the engine's own settlement
(:func:`brandeln.engine.settlement.deal_outcome` over every way a deal can end), never recomputed.

>>> from brandeln.engine.rulesets import find_ruleset
>>> limits = game_limits(find_ruleset("standard"))
>>> limits.min_utility, limits.max_utility, limits.zero_sum, limits.max_game_length
(-54, 54, True, 53)
>>> game_limits(find_ruleset("haferl")).zero_sum  # a pass-out pays into the pool
False
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations_with_replacement

from brandeln.engine.auction import NO_BID, auction_result
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.settlement import deal_outcome

__all__ = ["GameLimits", "game_limits", "longest_auction"]

_ONE_TRUMP_NAMING = 1  # R7.1: the soloist names trump once, or not at all (R7.2)
_ANY_SEED = 0  # the bounds do not depend on the cards: any deal will do


@dataclass(frozen=True, slots=True)
class GameLimits:
    """The bounds of one deal under a ruleset (chips per seat; moves of the players)."""

    min_utility: int
    max_utility: int
    zero_sum: bool
    max_auction: int
    max_game_length: int


def longest_auction(ruleset: Ruleset) -> int:
    """The most actions an auction can take: each level is bid once and then, where holds are
    allowed, held by at most N - 1 more senior players (R5.3); each seat passes at most once
    (R5.2).

    >>> from brandeln.engine.rulesets import find_ruleset
    >>> longest_auction(find_ruleset("standard")), longest_auction(find_ruleset("russian"))
    (24, 11)
    """
    levels, players = len(ruleset.contracts), ruleset.players
    bids_per_level = players if ruleset.holds else 1
    return levels * bids_per_level + players


def _payments(ruleset: Ruleset, pool: int) -> Iterator[tuple[int, ...]]:
    """Each seat's chips at every way a deal can end: each contract with each trick count of
    the soloist, and the pass-out as the ruleset settles it (the free play with every sharing
    out of the tricks)."""
    players, tricks = ruleset.players, ruleset.tricks
    deal = deal_cards(ruleset, dealer=0, seed=_ANY_SEED)
    no_cards = (0,) * players
    for contract in ruleset.contracts:
        for taken in range(tricks + 1):
            won = (taken,) + (0,) * (players - 1)
            yield deal_outcome(
                ruleset,
                deal,
                pool,
                soloist=0,
                contract=contract,
                trump=None,
                passed_out=False,
                tricks_won=won,
                hands=no_cards,
            ).payments
    soloist, pass_out_contract, passed_out, leader = auction_result(ruleset, None, NO_BID, dealer=0)
    if pass_out_contract is not None:
        return  # the pass-out is a contract (Muss-Spiel): counted above
    shares = combinations_with_replacement(range(players), tricks if leader is not None else 0)
    for winners in shares:
        won = tuple(winners.count(seat) for seat in range(players))
        yield deal_outcome(
            ruleset,
            deal,
            pool,
            soloist=soloist,
            contract=None,
            trump=None,
            passed_out=passed_out,
            tricks_won=won,
            hands=no_cards,
        ).payments


def game_limits(ruleset: Ruleset, pool: int = 0) -> GameLimits:
    """The limits of a deal of ``ruleset`` started with the Haferl ``pool``."""
    endings = list(_payments(ruleset, pool))
    auction = longest_auction(ruleset)
    return GameLimits(
        min_utility=min(min(payments) for payments in endings),
        max_utility=max(max(payments) for payments in endings),
        zero_sum=all(sum(payments) == 0 for payments in endings),
        max_auction=auction,
        max_game_length=auction + _ONE_TRUMP_NAMING + ruleset.players * ruleset.tricks,
    )

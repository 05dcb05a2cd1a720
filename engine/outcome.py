"""The result of one deal: tricks, whether the contract was made, and the chips that move.

>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.state import DealState
>>> from brandeln.engine.actions import PASS
>>> state = DealState.new(find_ruleset("haferl"), deal_cards(find_ruleset("haferl"), 0, 1))
>>> for _ in range(4):
...     state = state.apply(PASS)
>>> outcome = state.outcome()
>>> outcome.passed_out, outcome.payments, outcome.pool_delta
(True, (-1, -1, -1, -1), 4)
"""

from __future__ import annotations

from dataclasses import dataclass

from brandeln.engine.cards import CardSet, Suit

__all__ = ["DealOutcome"]


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """How a deal ended (R9, R10, section 6).

    ``payments[seat]`` is each seat's chip change in this deal, including a Haferl pool taken;
    ``pool_delta`` is the change of the Haferl pool (``sum(payments) + pool_delta == 0`` in every
    zero-sum ruleset). ``made`` is ``None`` when there was no soloist. ``unplayed[seat]`` holds
    the cards a seat never had to play (sudden death, R9.2, or a deal without play);
    ``hands`` are the original hands and ``blind`` the ``three-player`` blind.
    """

    dealer: int
    soloist: int | None
    contract: str | None
    trump: Suit | None
    passed_out: bool
    tricks_won: tuple[int, ...]
    made: bool | None
    payments: tuple[int, ...]
    pool_delta: int
    unplayed: tuple[CardSet, ...]
    hands: tuple[CardSet, ...]
    blind: CardSet

    @property
    def tricks_played(self) -> int:
        """How many tricks were played before the deal ended."""
        return sum(self.tricks_won)

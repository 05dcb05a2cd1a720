"""One episode of the learning environments: a deal, or a match of deals, played on the engine.

The environments (:mod:`brandeln.pettingzoo`, :mod:`brandeln.gymnasium_env`) add an API around
this; the rules are the engine's: ``DealState`` decides what is legal and what an action does,
``MatchState`` strings deals together (the dealer passing left, the Haferl pool, the end of a
match). A deal episode is a match of one deal, so both kinds share one code path and a
passed-out Haferl deal gives its pool back at once, as a match gives back what is left at its end.

>>> import numpy as np
>>> from brandeln.engine.rulesets import find_ruleset
>>> episode = Episode.start(find_ruleset("standard"), EpisodeKind.DEAL, np.random.default_rng(7))
>>> while not episode.is_over:
...     ended = episode.apply(episode.state.legal_actions()[0])
>>> ended.rewards == ended.outcome.payments, sum(ended.rewards)
(True, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

import numpy as np

from brandeln.engine.actions import Action
from brandeln.engine.dealing import deal_cards
from brandeln.engine.match import MatchState
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState

__all__ = ["DEAL_SEED_LIMIT", "DealEnd", "Episode", "EpisodeKind"]

DEAL_SEED_LIMIT: Final = 2**63
"""Deal seeds are drawn below this: any int seeds ``random.Random``, this keeps them int64."""


class EpisodeKind(StrEnum):
    """What one episode is: a single deal, or a whole match (R11)."""

    DEAL = "deal"
    MATCH = "match"


@dataclass(frozen=True, slots=True)
class DealEnd:
    """A deal just ended: its outcome and each seat's reward for it, in chips.

    ``rewards`` are the deal's payments, plus, when the match ends with it, each seat's share
    of the Haferl pool given back (``MatchState.final_balances``): an episode's rewards add up
    to the match's final balances.
    """

    deal_number: int
    outcome: DealOutcome
    rewards: tuple[int, ...]


class Episode:
    """The deals of one episode and the one being played; :meth:`apply` moves it on.

    ``state`` is the deal in play (after the last deal: the finished one), ``match`` the match
    so far; deal seeds and, unless fixed, the first dealer are drawn from ``rng``.
    """

    __slots__ = ("kind", "match", "rng", "state")

    def __init__(
        self, kind: EpisodeKind, match: MatchState, state: DealState, rng: np.random.Generator
    ) -> None:
        self.kind = kind
        self.match = match
        self.state = state
        self.rng = rng

    @classmethod
    def start(
        cls,
        ruleset: Ruleset,
        kind: EpisodeKind,
        rng: np.random.Generator,
        *,
        dealer: int | None = None,
        deals: int | None = None,
    ) -> Episode:
        """A new episode: its first dealer is ``dealer`` or drawn from ``rng``; a match episode
        plays ``deals`` deals (default: the ruleset's, R11.1), a deal episode one."""
        if kind is EpisodeKind.DEAL and deals not in (None, 1):
            raise ValueError(f"a deal episode is one deal, not {deals}")
        first = int(rng.integers(ruleset.players)) if dealer is None else dealer
        match = MatchState.new(ruleset, 1 if kind is EpisodeKind.DEAL else deals, first)
        return cls(kind, match, _next_deal(match, rng), rng)

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset every deal of the episode is played by."""
        return self.match.ruleset

    @property
    def is_over(self) -> bool:
        """True once the last deal of the episode has ended."""
        return self.match.is_over

    @property
    def deal_number(self) -> int:
        """The number of the deal in play, from 1 (after the last deal: the last one's)."""
        return self.match.deal_number + (0 if self.is_over else 1)

    def apply(self, action: Action) -> DealEnd | None:
        """Play ``action`` for the seat to act (the engine raises ``IllegalActionError`` if it
        may not); when that ends the deal, record it, start the next one unless the episode is
        over, and say how the deal ended."""
        state = self.state.apply(action)
        outcome = state.outcome()
        if outcome is None:
            self.state = state
            return None
        before = self.match
        self.match = after = before.record(outcome)
        rewards = outcome.payments
        if after.is_over:  # what is left in the Haferl pool goes back in equal shares
            pool_back = (
                final - balance
                for final, balance in zip(after.final_balances(), after.balances, strict=True)
            )
            rewards = tuple(paid + back for paid, back in zip(rewards, pool_back, strict=True))
            self.state = state
        else:
            self.state = _next_deal(after, self.rng)
        return DealEnd(after.deal_number, outcome, rewards)


def _next_deal(match: MatchState, rng: np.random.Generator) -> DealState:
    """The match's next deal, shuffled with a seed drawn from ``rng`` (R3.1)."""
    seed = int(rng.integers(DEAL_SEED_LIMIT))
    return match.start_deal(deal_cards(match.ruleset, match.dealer_of_next_deal, seed))

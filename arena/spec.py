"""What defines a match before it starts (built from a RunMatchRequest by brandeln.arena.codec)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from brandeln.arena.timecontrol import TimeControlSettings
from brandeln.engine.dealing import Deal
from brandeln.engine.match import MatchState
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.rulesets import Ruleset

__all__ = ["MatchSpec", "deal_seed"]


@dataclass(frozen=True)
class MatchSpec:
    """Everything that defines a match before it starts."""

    match_id: str
    ruleset: Ruleset
    bot_ids: tuple[str, ...]
    deals: int
    seed: int
    first_dealer: int
    fixed_deals: tuple[Deal, ...]
    permutation: SuitPermutation
    time_control: TimeControlSettings

    def next_deal(self, match: MatchState) -> tuple[Deal, int | None]:
        """The match's next deal (suits permuted) and its seed (None for a fixed deal)."""
        if self.fixed_deals:
            deal = self.fixed_deals[match.deal_number]
            seed = None
        else:
            seed = deal_seed(self.seed, match.deal_number + 1)
            deal = match.deal_for_seed(seed)
        return self.permutation.apply_deal(deal), seed


def deal_seed(match_seed: int, deal_number: int) -> int:
    """The seed of one deal of a match: independent per deal, reproducible from the match seed."""
    digest = hashlib.sha256(f"brandeln/{match_seed}/{deal_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big")

"""What defines a match before it starts (built from a RunMatchRequest by arena.codec)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.timecontrol import TimeControlSettings
from engine.dealing import Deal
from engine.permutation import SuitPermutation
from engine.rulesets import Ruleset

__all__ = ["MatchSpec"]


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

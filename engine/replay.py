"""Replaying a recorded deal: fold ``apply`` over its actions.

>>> from brandeln.engine.actions import PASS
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> ruleset = find_ruleset("haferl")
>>> deal = deal_cards(ruleset, dealer=0, seed=11)
>>> replay(ruleset, deal, [PASS] * 4).outcome().pool_delta
4
>>> replay(ruleset, deal, [PASS] * 5)
Traceback (most recent call last):
...
brandeln.engine.errors.ReplayError: action 4 is illegal: the deal is over
"""

from __future__ import annotations

from collections.abc import Sequence

from brandeln.engine.actions import Action
from brandeln.engine.dealing import Deal
from brandeln.engine.errors import IllegalActionError, ReplayError
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.state import DealState

__all__ = ["ReplayError", "replay"]


def replay(ruleset: Ruleset, deal: Deal, actions: Sequence[Action], pool: int = 0) -> DealState:
    """The state after applying ``actions`` in order to a new deal; raises
    :class:`ReplayError` (with ``.index`` and ``.reason``) at the first illegal one."""
    state = DealState.new(ruleset, deal, pool)
    for index, action in enumerate(actions):
        try:
            state = state.apply(action)
        except IllegalActionError as error:
            raise ReplayError(index, str(error)) from error
    return state

"""Any policy at the table: a callable from observation and mask to an action index, as a bot.

A policy is what a learning environment trains: ``policy(observation, mask) -> index``, the
observation being the encoding's tensor (:func:`brandeln.sdk.encoding.observation_tensor`) and
the mask a 0/1 list over :data:`~brandeln.sdk.encoding.NUM_ACTIONS`. :class:`PolicyBot` builds
both from each ``DecisionRequest`` exactly as the environments build them from the engine
(:mod:`brandeln.sdk.observation`), so a policy plays at a referee as it played in training.
Seating one's own policy takes five lines::

    from brandeln.sdk import run
    from brandeln.sdk.policy import PolicyBot
    def policy(observation, mask):
        return mask.index(1)  # the first legal action; a trained network goes here
    run(PolicyBot(policy))

(``run`` reads the referee and the token from ``BRANDELN_SERVER`` and ``BRANDELN_TOKEN``
when no options are given, as ``brandeln match run ... -- python my_bot.py`` sets them.)

>>> from brandeln.v1 import bot_pb2, cards_pb2
>>> from brandeln.sdk.notation import bid_choice, parse_card
>>> bot = PolicyBot(lambda observation, mask: max(i for i, m in enumerate(mask) if m))
>>> bot.match = bot_pb2.MatchStarted(ruleset=cards_pb2.Ruleset(id="standard", players=4))
>>> view = cards_pb2.PlayerView(seat=1, dealer=0, forehand=1, tricks_won=[0, 0, 0, 0],
...     hand=[parse_card("HJ"), parse_card("CA")])
>>> request = bot_pb2.DecisionRequest(phase=cards_pb2.PHASE_BID, view=view,
...     legal=[bid_choice("pass"), bid_choice("brandle")])
>>> bot.decide(request)  # the index into request.legal of the policy's action
1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from brandeln.sdk.bot import Answer, Bot, InvalidAnswerError
from brandeln.sdk.encoding import action_of, legal_mask
from brandeln.sdk.observation import (
    legal_action_indices,
    observation_from_request,
    observation_tensor,
)
from brandeln.v1 import bot_pb2

__all__ = ["Policy", "PolicyBot"]

Policy: TypeAlias = Callable[[Sequence[float], Sequence[int]], int]
"""``policy(observation, mask) -> action index`` (the encoding's index of a legal action)."""


class PolicyBot(Bot):
    """A bot that answers each request with ``policy``'s action.

    An index outside the mask raises :class:`~brandeln.sdk.InvalidAnswerError` naming it and
    the legal ones; the SDK then answers the first legal choice and logs why, as it does for
    any ``decide`` that raises, so a policy's bug never costs a strike.
    """

    name = "policy"
    version = "0.1.0"
    # A policy is usually a few matrix products; a slow one may set this back to True.
    decide_in_thread = False

    def __init__(self, policy: Policy, name: str | None = None) -> None:
        super().__init__()
        self.policy = policy
        if name is not None:
            self.name = name

    def decide(self, request: bot_pb2.DecisionRequest) -> Answer:
        if self.match is None:
            raise RuntimeError("a request before MatchStarted: the SDK always sends it first")
        facts = observation_from_request(request, self.match.ruleset)
        indices = legal_action_indices(request)
        chosen = self.policy(observation_tensor(facts), legal_mask(indices))
        if chosen not in indices:
            legal = " ".join(action_of(index) for index in indices)
            raise InvalidAnswerError(
                f"the policy chose action {chosen!r}, which is outside the mask; "
                f"legal: {legal} (indices {indices})"
            )
        return indices.index(chosen)

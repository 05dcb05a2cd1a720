"""A ``DecisionRequest`` as the encoding's facts, so a bot feeds a trained policy what the
environment trained it on (:mod:`brandeln.sdk.encoding`; no numpy, no engine).

>>> from brandeln.v1 import bot_pb2, cards_pb2
>>> from brandeln.sdk.notation import bid_choice, parse_card
>>> ruleset = cards_pb2.Ruleset(id="standard", players=4)
>>> view = cards_pb2.PlayerView(seat=1, dealer=0, forehand=1, tricks_won=[0, 0, 0, 0],
...     hand=[parse_card("HJ"), parse_card("CA")])
>>> request = bot_pb2.DecisionRequest(phase=cards_pb2.PHASE_BID, view=view,
...     legal=[bid_choice("pass"), bid_choice("brandle")])
>>> facts = observation_from_request(request, ruleset)
>>> facts.position, facts.hand, legal_action_indices(request)
(0, (7, 20), [0, 2])
>>> len(observation_tensor(facts))
417
"""

from __future__ import annotations

from collections.abc import Iterable

from brandeln.sdk.encoding import (
    RANK_COUNT,
    SUIT_COUNT,
    EncodingError,
    Observation,
    Trick,
    action_index,
    information_state_tensor,
    observation_tensor,
)
from brandeln.sdk.notation import choice_text
from brandeln.v1 import bot_pb2, cards_pb2

__all__ = [
    "information_state_tensor",
    "legal_action_indices",
    "observation_from_request",
    "observation_tensor",
    "proto_card_index",
]

# A request's phase as the encoding names it; a request is never made in the deal or after it.
_PHASES: dict[int, str] = {
    cards_pb2.PHASE_BID: "auction",
    cards_pb2.PHASE_TRUMP: "trump",
    cards_pb2.PHASE_CARD: "play",
}


def proto_card_index(card: cards_pb2.Card) -> int:
    """The encoding's index of a protocol card (``suit * 8 + rank``; the protocol's enums
    start at 1, ``*_UNSPECIFIED`` being 0)."""
    suit, rank = card.suit - 1, card.rank - 1
    if not (0 <= suit < SUIT_COUNT and 0 <= rank < RANK_COUNT):
        raise EncodingError(f"suit {card.suit}, rank {card.rank} is not a card")
    return suit * RANK_COUNT + rank


def legal_action_indices(request: bot_pb2.DecisionRequest) -> list[int]:
    """The action index of each of ``request.legal``, in the request's order, so
    ``request.legal[k]`` is the choice of ``legal_action_indices(request)[k]``."""
    return [action_index(choice_text(choice)) for choice in request.legal]


def observation_from_request(
    request: bot_pb2.DecisionRequest, ruleset: cards_pb2.Ruleset
) -> Observation:
    """The facts of ``request``'s view; ``ruleset`` is the match's (``MatchStarted.ruleset``,
    kept by the SDK in ``Bot.match``), which names the ruleset and the number of seats."""
    view = request.view
    phase = _PHASES.get(request.phase)
    if phase is None:
        raise EncodingError(f"phase {request.phase} is not a decision's phase")
    players = ruleset.players or len(view.tricks_won)
    me = view.seat

    def relative(seat: int) -> int:
        return (seat - me) % players

    def cards(of: Iterable[cards_pb2.Card]) -> tuple[int, ...]:
        return tuple(proto_card_index(card) for card in of)

    won = list(view.tricks_won) or [0] * players
    return Observation(
        ruleset=ruleset.id,
        players=players,
        phase=phase,
        position=(me - view.forehand) % players,
        hand=tuple(sorted(cards(view.hand))),
        auction=tuple((relative(bid.seat), action_index(bid.bid.contract)) for bid in view.auction),
        contract=action_index(view.contract) if view.contract else None,
        soloist=relative(view.soloist) if view.HasField("soloist") else None,
        trump=view.trump - 1 if view.trump != cards_pb2.SUIT_UNSPECIFIED else None,
        tricks=tuple(
            Trick(relative(trick.leader), cards(trick.cards), relative(trick.winner))
            for trick in view.tricks
        ),
        # The protocol's leader is a plain number (0 outside the play); the facts set it in
        # the play only, as the engine's view does.
        trick_leader=relative(view.current_trick_leader) if phase == "play" else None,
        current_trick=cards(view.current_trick),
        tricks_won=tuple(won[(me + step) % players] for step in range(players)),
    )

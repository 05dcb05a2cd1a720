"""The OpenSpiel state a ``DecisionRequest`` stands for, as its seat may know it: its own hand
as dealt (the cards it holds and those it played), the others' cards played as they were, the
cards it has not seen dealt at random among the deals that fit the play
(:mod:`brandeln.openspiel.hidden_hands`), then the public actions replayed. An
information-set search (ISMCTS) re-deals the unseen cards itself at every simulation
(``resample_from_infostate``); a perfect-information one (MCTS) searches this one deal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Any

import pyspiel

from brandeln.engine.cards import Suit
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import seat_after
from brandeln.engine.trick_rules import duties_for
from brandeln.openspiel.chance_deal import BLIND, DealPlan
from brandeln.openspiel.hidden_hands import deal_uniformly, ruled_out_by_play
from brandeln.sdk.encoding import CARD_OFFSET, action_index, action_kind
from brandeln.sdk.notation import suit_letter
from brandeln.sdk.observation import legal_action_indices, proto_card_index
from brandeln.v1 import bot_pb2, cards_pb2

__all__ = ["RequestStateError", "game_for", "state_for_request"]


class RequestStateError(ValueError):
    """The request's view fits no deal of the game (a view this module cannot follow)."""


@cache
def game_for(ruleset_id: str, dealer: int) -> Any:
    """The ``brandeln`` game of a deal (OpenSpiel games are immutable: one per deal kind)."""
    return pyspiel.load_game("brandeln", {"ruleset": ruleset_id, "dealer": dealer})


def _bits(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _cards(mask: int) -> list[int]:
    return [card for card in range(mask.bit_length()) if mask >> card & 1]


def _public_actions(view: cards_pb2.PlayerView) -> tuple[list[int], int | None]:
    """The auction's actions in order, and the trump naming's (None if there was none)."""
    bids = [action_index(bid.bid.contract) for bid in view.auction]
    trump = None
    if view.trump != cards_pb2.SUIT_UNSPECIFIED:
        trump = action_index(suit_letter(view.trump))
    return bids, trump


def _tricks(view: cards_pb2.PlayerView) -> list[tuple[int, list[int]]]:
    """(leader, card indices in play order) of every trick so far, the current one last."""
    tricks = [(trick.leader, [proto_card_index(c) for c in trick.cards]) for trick in view.tricks]
    if view.current_trick:
        tricks.append(
            (view.current_trick_leader, [proto_card_index(c) for c in view.current_trick])
        )
    return tricks


def _rows(plan: DealPlan, hands: Sequence[int], blind: int) -> list[int]:
    return [blind if seat == BLIND else hands[seat] for seat in plan.seat_of_row]


def state_for_request(
    request: bot_pb2.DecisionRequest, ruleset: Ruleset, rng: random.Random
) -> Any:
    """A ``pyspiel.State`` of the ``brandeln`` game at ``request``'s decision (see the module
    docstring); raises :class:`RequestStateError` when the view fits no deal."""
    view = request.view
    players = ruleset.players
    me = view.seat
    tricks = _tricks(view)
    played = [0] * players
    for leader, cards in tricks:
        for place, card in enumerate(cards):
            played[seat_after(leader, place, players)] |= 1 << card
    mine = _bits([proto_card_index(card) for card in view.hand]) | played[me]
    unseen = ruleset.deck().mask & ~mine & ~_bits([c for _, cards in tricks for c in cards])
    holders = [seat for seat in range(players) if seat != me]
    room = [ruleset.hand_size - played[seat].bit_count() for seat in holders]
    if ruleset.blind:
        room.append(ruleset.hand_size)  # the blind is never played
    plan = DealPlan.of(ruleset, view.dealer)
    forbidden = [0] * len(room)
    if tricks:
        trump_suit = Suit(view.trump - 1) if view.trump != cards_pb2.SUIT_UNSPECIFIED else None
        out = ruled_out_by_play(ruleset, duties_for(ruleset, trump_suit), tricks)
        forbidden[: len(holders)] = [out[seat] for seat in holders]
    try:
        dealt = deal_uniformly(_cards(unseen), room, forbidden, rng.random)
    except ValueError as error:
        raise RequestStateError(f"seat {me}'s view fits no deal: {error}") from None
    hands = list(played)
    hands[me] = mine
    for holder, seat in enumerate(holders):
        hands[seat] |= dealt[holder]
    blind = dealt[-1] if ruleset.blind else 0
    state = game_for(ruleset.id, view.dealer).new_initial_state()
    for card in plan.order_of([_cards(row) for row in _rows(plan, hands, blind)]):
        state.apply_action(card)
    bids, trump = _public_actions(view)
    for index in bids:
        state.apply_action(index)
    if trump is not None and action_kind(state.legal_actions()[0]) == "trump":
        state.apply_action(trump)
    for _, cards in tricks:
        for card in cards:
            state.apply_action(CARD_OFFSET + card)
    legal = sorted(legal_action_indices(request))
    if state.current_player() != me or state.legal_actions() != legal:
        raise RequestStateError(
            f"the replayed deal has seat {state.current_player()} to act with "
            f"{state.legal_actions()}; the request is seat {me}'s with {legal}"
        )
    return state

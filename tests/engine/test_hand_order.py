"""A hand is listed the way legal lists are (R12.3): once trump is named, by trump strength."""

from __future__ import annotations

import random

import pytest

from brandeln.engine.actions import PlayCard
from brandeln.engine.cards import format_cards, parse_cards
from brandeln.engine.dealing import deal_cards, fixed_deal
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from tests.engine.scripting import run

# Seat 0 holds the hand of the issue: with spades trump SJ and S7 are its two highest trumps.
HANDS = (
    "C9 CA S7 S9 SJ HJ HQ",
    "C7 CT CJ CQ CK ST SQ",
    "SK SA H7 H9 HT HK HA",
    "D7 D9 DT DJ DQ DK DA",
)


def _spades_deal(ruleset_id: str = "standard") -> DealState:
    ruleset = find_ruleset(ruleset_id)
    deal = fixed_deal(ruleset, 3, [parse_cards(h) for h in HANDS])  # forehand: seat 0
    return DealState.new(ruleset, deal)


def test_a_hand_comes_in_plain_order_until_trump_is_named() -> None:
    state = _spades_deal()
    assert format_cards(state.view(0).hand_in_order()) == "C9 CA S7 S9 SJ HJ HQ"
    state = run(state, "brandle, pass, pass, pass")
    assert state.phase is Phase.TRUMP
    assert format_cards(state.view(0).hand_in_order()) == "C9 CA S7 S9 SJ HJ HQ"


def test_once_spades_are_trump_the_hand_is_sorted_like_its_legal_list() -> None:
    state = run(_spades_deal(), "brandle, pass, pass, pass, S")
    view = state.view(0)
    assert format_cards(view.hand_in_order()) == "C9 CA S9 S7 SJ HJ HQ"
    # Seat 0 leads: its legal list is its whole hand, in the same order.
    legal = [action.card for action in state.legal_actions() if isinstance(action, PlayCard)]
    assert legal == view.hand_in_order()


def test_the_russian_trump_suit_keeps_the_natural_order() -> None:
    state = run(_spades_deal("russian"), "three, pass, pass, pass, S")
    assert format_cards(state.view(0).hand_in_order()) == "C9 CA S7 S9 SJ HJ HQ"


def test_a_no_trump_contract_keeps_the_plain_order() -> None:
    state = run(_spades_deal(), "bettel, pass, pass, pass")
    assert state.phase is Phase.PLAY
    assert format_cards(state.view(0).hand_in_order()) == "C9 CA S7 S9 SJ HJ HQ"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_whenever_a_seat_leads_its_hand_and_its_legal_list_agree(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(ruleset_id)
    leads = 0
    for seed in range(20):
        state = DealState.new(
            ruleset, deal_cards(ruleset, dealer=seed % ruleset.players, seed=seed)
        )
        while not state.is_over():
            legal, seat = state.legal_actions(), state.to_act
            assert seat is not None
            if state.phase is Phase.PLAY and not state.view(seat).current_trick:
                hand = state.view(seat).hand_in_order()
                assert [a.card for a in legal if isinstance(a, PlayCard)] == hand
                leads += 1
            # Mostly passing: uniform bids climb to herrenmord (no trump) nearly every deal.
            passing = state.phase is Phase.AUCTION and rng.random() < 0.8
            state = state.apply(legal[0] if passing else rng.choice(legal))
    assert leads > 0

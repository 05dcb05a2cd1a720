"""The shared rules core: one reason for every illegal action, one trick tracker, one auction
result and one outcome for DealState and the fast path alike."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.engine.actions import PASS, PLAY_CARDS, Action, Bid, NameTrump, PlayCard
from brandeln.engine.auction import NO_BID, auction_result
from brandeln.engine.cards import CARD_COUNT, RANK_COUNT, Card, CardSet, Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.errors import IllegalActionError
from brandeln.engine.phase import Phase
from brandeln.engine.playout import playout_from
from brandeln.engine.rulesets import RULESET_IDS, PassOut, TrumpOrder, find_ruleset
from brandeln.engine.seats import forehand_of, seat_after
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import (
    duties_for,
    explain_illegal_card,
    legal_card_mask,
    trick_state,
    trick_winner,
)
from tests.engine.test_properties import every_action, seeds, switch_sets

ruleset_ids = st.sampled_from(RULESET_IDS)


def walk(state: DealState, rng: random.Random, steps: int) -> DealState:
    for _ in range(steps):
        if state.is_over():
            break
        legal = state.legal_actions()
        state = state.apply(legal[rng.randrange(len(legal))])
    return state


def apply_error(state: DealState, action: object) -> str | None:
    try:
        state.apply(action)  # type: ignore[arg-type]
    except IllegalActionError as error:
        return str(error)
    return None


@settings(max_examples=150, deadline=None)
@given(ruleset_ids, switch_sets, seeds, seeds)
def test_illegal_reason_is_the_reason_apply_raises_for_every_action(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = find_ruleset(ruleset_id, switches)
    state = DealState.new(ruleset, deal_cards(ruleset, deal_seed % ruleset.players, deal_seed))
    rng = random.Random(play_seed)
    junk: list[object] = [None, "pass", NameTrump("H"), PlayCard("HA")]  # type: ignore[arg-type]
    candidates = [*every_action(ruleset), *junk]
    while True:
        legal = set(state.legal_actions())
        for action in candidates:
            reason = state.illegal_reason(action)
            assert reason == apply_error(state, action), (state, action)
            assert (reason is None) == (action in legal) == state.is_legal(action)
        if state.is_over():
            break
        state = walk(state, rng, 1)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["standard", "classic-1860", "russian"]),
    switch_sets,
    st.integers(0, 2**32 - 1),
    st.sampled_from([None, *Suit]),
)
def test_explain_illegal_card_explains_exactly_the_cards_legal_card_mask_refuses(
    ruleset_id: str, switches: dict[str, str], seed: int, trump: Suit | None
) -> None:
    rng = random.Random(seed)
    ruleset = find_ruleset(ruleset_id, switches)
    duties = duties_for(ruleset, trump)
    cards = [card.index for card in ruleset.deck()]
    rng.shuffle(cards)
    trick, hand_cards = cards[: rng.randrange(1, ruleset.players)], cards[8:15]
    led, win, head, _ = trick_state(trick, duties)
    hand = sum(1 << index for index in hand_cards)
    legal = legal_card_mask(hand, led, win, head, duties)
    for index in hand_cards:
        if legal >> index & 1:
            with pytest.raises(ValueError, match="may be played here"):
                explain_illegal_card(hand, index, led=led, win=win, head=head, duties=duties)
            continue
        reason = explain_illegal_card(hand, index, led=led, win=win, head=head, duties=duties)
        assert reason.startswith("must "), reason


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, *Suit]), st.sampled_from(TrumpOrder))
def test_trick_state_wins_with_the_card_trick_winner_names(
    seed: int, trump: Suit | None, order: TrumpOrder
) -> None:
    rng = random.Random(seed)
    ruleset = find_ruleset("russian-32" if order is TrumpOrder.NATURAL else "standard")
    cards = rng.sample(range(CARD_COUNT), rng.randrange(1, 5))
    led, win, head, position = trick_state(cards, duties_for(ruleset, trump))
    assert position == trick_winner(tuple(Card.from_index(i) for i in cards), trump, order)
    assert win == cards[position]
    assert led == cards[0] // RANK_COUNT
    same_suit = [i for i in cards if i // RANK_COUNT == led]
    assert head in same_suit


def test_auction_result_follows_each_pass_out_policy() -> None:
    dealer = 1
    for ruleset_id in RULESET_IDS:
        ruleset = find_ruleset(ruleset_id)
        forehand = forehand_of(dealer, ruleset.players)
        soloist, contract, passed_out, leader = auction_result(ruleset, None, NO_BID, dealer)
        assert passed_out
        if ruleset.pass_out is PassOut.MUSS:  # R6.1: forehand plays the lowest contract
            assert (soloist, contract, leader) == (forehand, ruleset.contracts[0], forehand)
        elif ruleset.pass_out is PassOut.FREE_PLAY:  # no soloist; the dealer leads
            assert (soloist, contract, leader) == (None, None, dealer)
        else:  # no play at all
            assert (soloist, contract, leader) == (None, None, None)
        top = len(ruleset.contracts) - 1
        holder = seat_after(dealer, 2, ruleset.players)  # R5.5: the holder plays and leads
        assert auction_result(ruleset, holder, top, dealer) == (
            holder,
            ruleset.contracts[top],
            False,
            holder,
        )


def lowest_card(
    seat: int, legal: int, trick_size: int, win: int, win_seat: int, won: list[int]
) -> int:
    """A deterministic policy: the lowest card index of the legal mask."""
    return (legal & -legal).bit_length() - 1


@settings(max_examples=200, deadline=None)
@given(ruleset_ids, switch_sets, seeds, seeds, st.integers(0, 40), st.booleans())
def test_playout_from_a_mid_deal_position_agrees_with_deal_state(
    ruleset_id: str,
    switches: dict[str, str],
    deal_seed: int,
    play_seed: int,
    prefix: int,
    with_policy: bool,
) -> None:
    ruleset = find_ruleset(ruleset_id, switches)
    state = DealState.new(ruleset, deal_cards(ruleset, deal_seed % ruleset.players, deal_seed))
    state = walk(state, random.Random(deal_seed ^ play_seed), prefix)
    if state.phase is not Phase.PLAY:
        return
    leader = state.leader
    assert leader is not None
    hands = [hand.mask for hand in state.hands]
    won = list(state.tricks_won)
    played: list[Action] = []
    playout_from(
        ruleset,
        hands,
        won,
        leader=leader,
        trick=[card.index for _, card in state.current_trick],
        soloist=state.soloist,
        contract=state.contract,
        trump=state.trump,
        rng=random.Random(play_seed),
        policy=lowest_card if with_policy else None,
        record=played,
    )
    rng = random.Random(play_seed)
    slow: list[Action] = []
    while not state.is_over():
        legal = state.legal_actions()
        if with_policy:
            action: Action = PLAY_CARDS[lowest_card(0, state.legal_card_mask(), 0, 0, 0, [])]
        else:
            action = legal[rng.randrange(len(legal))]
        slow.append(action)
        state = state.apply(action)
    outcome = state.outcome()
    assert outcome is not None
    assert played == slow
    assert tuple(won) == outcome.tricks_won
    assert [CardSet.from_mask(mask) for mask in hands] == list(outcome.unplayed)


def test_deal_state_exposes_its_auction_as_a_value() -> None:
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=42))
    state = state.apply(Bid("brand")).apply(PASS)
    auction = state.auction_state
    assert (auction.holder, auction.level, auction.passed) == (0, 1, 0b10)
    assert auction.bids == state.auction

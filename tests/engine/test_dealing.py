"""Shuffle and deal (RULES.md R3), fixed deals and their validation."""

from __future__ import annotations

import random

import pytest

from brandeln.engine.cards import Card, CardSet, parse_cards
from brandeln.engine.dealing import Deal, deal_cards, fixed_deal
from brandeln.engine.errors import InvalidDealError
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from tests.engine.scripting import SEAT_HANDS


def shuffled(ruleset_id: str, seed: int) -> list[Card]:
    deck = list(find_ruleset(ruleset_id).deck())
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r3_2_packets_2_3_2_from_forehand(dealer: int) -> None:
    s = shuffled("standard", 99)
    deal = deal_cards(find_ruleset("standard"), dealer, 99)
    rows = {
        0: [0, 1, 8, 9, 10, 20, 21],
        1: [2, 3, 11, 12, 13, 22, 23],
        2: [4, 5, 14, 15, 16, 24, 25],
        3: [6, 7, 17, 18, 19, 26, 27],
    }
    for r, positions in rows.items():
        seat = (dealer + 1 + r) % 4
        assert deal.hands[seat] == CardSet(s[p] for p in positions), (r, seat)
    assert deal.blind == CardSet()
    assert deal.seed == 99
    assert deal.dealer == dealer


def test_three_player_rows_go_to_forehand_middlehand_dealer_and_blind() -> None:
    s = shuffled("three-player", 5)
    deal = deal_cards(find_ruleset("three-player"), 1, 5)
    assert deal.hands[2] == CardSet(s[p] for p in [0, 1, 8, 9, 10, 20, 21])  # forehand
    assert deal.hands[0] == CardSet(s[p] for p in [2, 3, 11, 12, 13, 22, 23])  # middlehand
    assert deal.hands[1] == CardSet(s[p] for p in [4, 5, 14, 15, 16, 24, 25])  # dealer
    assert deal.blind == CardSet(s[p] for p in [6, 7, 17, 18, 19, 26, 27])


def test_russian_32_deals_2_3_3() -> None:
    s = shuffled("russian-32", 8)
    deal = deal_cards(find_ruleset("russian-32"), 3, 8)
    assert deal.hands[0] == CardSet(s[p] for p in [0, 1, 8, 9, 10, 20, 21, 22])
    assert deal.hands[3] == CardSet(s[p] for p in [6, 7, 17, 18, 19, 29, 30, 31])
    assert all(len(h) == 8 for h in deal.hands)


def test_r3_1_same_seed_same_deal_and_whole_deck() -> None:
    ruleset = find_ruleset("standard")
    assert deal_cards(ruleset, 0, 12345) == deal_cards(ruleset, 0, 12345)
    assert deal_cards(ruleset, 0, 1) != deal_cards(ruleset, 0, 2)
    union = CardSet()
    for hand in deal_cards(ruleset, 2, 7).hands:
        union = union | hand
    assert union == ruleset.deck()


def test_r3_1_shuffle_is_roughly_uniform() -> None:
    # Where does the card CA land? Over many seeds every seat gets it about equally often.
    ruleset = find_ruleset("standard")
    counts = [0, 0, 0, 0]
    ace = Card.parse("CA")
    for seed in range(2000):
        deal = deal_cards(ruleset, 0, seed)
        counts[next(s for s in range(4) if ace in deal.hands[s])] += 1
    assert all(400 < c < 600 for c in counts), counts


def test_r3_3_fixed_deal_round_trip() -> None:
    ruleset = find_ruleset("standard")
    deal = fixed_deal(ruleset, 2, [parse_cards(h) for h in SEAT_HANDS])
    assert deal.hands[0] == CardSet(parse_cards(SEAT_HANDS[0]))
    assert deal.seed is None
    assert deal.dealer == 2


def test_fixed_deal_wrong_number_of_hands() -> None:
    with pytest.raises(InvalidDealError, match="deals 4 hands, got 3"):
        fixed_deal(find_ruleset("standard"), 0, [parse_cards(h) for h in SEAT_HANDS[:3]])


def test_fixed_deal_wrong_hand_size() -> None:
    hands = [parse_cards(h) for h in SEAT_HANDS]
    hands[1] = hands[1][:6]
    with pytest.raises(InvalidDealError, match="seat 1 has 6 cards; ruleset 'standard' gives it 7"):
        fixed_deal(find_ruleset("standard"), 0, hands)


def test_fixed_deal_duplicate_card_named_with_both_owners() -> None:
    hands = [parse_cards(h) for h in SEAT_HANDS]
    hands[2][0] = hands[0][0]
    with pytest.raises(InvalidDealError, match="HJ is dealt twice: to seat 0 and seat 2"):
        fixed_deal(find_ruleset("standard"), 0, hands)


def test_fixed_deal_card_not_in_deck() -> None:
    hands = [parse_cards(h) for h in SEAT_HANDS]
    hands[3][0] = Card.parse("S8")
    with pytest.raises(InvalidDealError, match="seat 3 holds S8, not in the 28-card deck"):
        fixed_deal(find_ruleset("standard"), 0, hands)


def test_fixed_deal_blind_only_in_three_player() -> None:
    hands = [parse_cards(h) for h in SEAT_HANDS]
    with pytest.raises(InvalidDealError, match="the blind has 1 cards; ruleset 'standard' gives"):
        fixed_deal(find_ruleset("standard"), 0, hands, blind=[Card.parse("S8")])
    with pytest.raises(InvalidDealError, match="the blind has 0 cards"):
        fixed_deal(find_ruleset("three-player"), 0, hands[:3])


def test_fixed_deal_bad_dealer() -> None:
    with pytest.raises(InvalidDealError, match="dealer 4 is not a seat"):
        fixed_deal(find_ruleset("standard"), 4, [parse_cards(h) for h in SEAT_HANDS])


def test_fixed_deal_rejects_non_cards() -> None:
    hands: list[list[object]] = [list(parse_cards(h)) for h in SEAT_HANDS]
    hands[0][0] = "HJ"
    with pytest.raises(InvalidDealError, match="not a Card"):
        fixed_deal(find_ruleset("standard"), 0, hands)  # type: ignore[arg-type]


def test_deal_value_is_frozen() -> None:
    deal = Deal(dealer=0, hands=())
    with pytest.raises(AttributeError):
        deal.dealer = 1  # type: ignore[misc]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_plan_positions_of_row_match_the_packets(ruleset_id: str) -> None:
    """deal_cards fills each row from its table of deck positions: together they are every
    position once, each row's those its packets give it (R3.2)."""
    from brandeln.engine.dealing import _PLANS, _deal_plan  # noqa: PLC0415 - the internal tables

    ruleset = find_ruleset(ruleset_id)
    plan = _PLANS.of(ruleset)
    _, row_of_position = _deal_plan(ruleset.ranks, ruleset.packets, ruleset.deal_rows)
    assert len(plan.positions_of_row) == ruleset.deal_rows
    seen = sorted(p for positions in plan.positions_of_row for p in positions)
    assert seen == list(range(len(row_of_position)))
    for row, positions in enumerate(plan.positions_of_row):
        assert all(row_of_position[p] == row for p in positions)
        assert list(positions) == sorted(positions)

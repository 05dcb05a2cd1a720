"""Card ranking, trick winners and the play duties (RULES.md R2, R8; section 5 T01-T26)."""

from __future__ import annotations

import pytest

from brandeln.engine.cards import RANKS_28, RANKS_32, Card, CardSet, Suit, parse_cards
from brandeln.engine.rulesets import RULESET_IDS, TrumpOrder, find_ruleset
from brandeln.engine.trick_rules import (
    NO_TRICK,
    beats,
    canonical_play_cards,
    duties_for,
    explain_illegal_card,
    legal_card_mask,
    rank_order,
    trick_winner,
)
from tests.engine.oracle import oracle_legal, oracle_strength

J7 = TrumpOrder.JACK_SEVEN_FIRST


def legal(
    hand: str,
    trick: str,
    trump: Suit | None = Suit.HEARTS,
    ruleset_id: str = "standard",
    **switches: str,
) -> str:
    """The legal cards, in canonical order, computed by the engine's rules core."""
    ruleset = find_ruleset(ruleset_id, switches)
    duties = duties_for(ruleset, trump)
    cards = parse_cards(trick)
    led, win, head = NO_TRICK, 0, 0
    if cards:
        led = cards[0].suit
        win = cards[trick_winner(tuple(cards), trump, ruleset.trump_order)].index
        same = [c for c in cards if c.suit == led]
        head = max(same, key=lambda c: oracle_strength(c, trump, ruleset.trump_order)).index
    mask = legal_card_mask(CardSet(parse_cards(hand)).mask, led, win, head, duties)
    result = " ".join(str(a) for a in canonical_play_cards(mask, duties))
    # Every case is also checked against the independent oracle.
    expected = oracle_legal(ruleset, trump, parse_cards(hand), cards)
    assert {a.card for a in canonical_play_cards(mask, duties)} == expected
    return result


def order_string(suit: Suit, trump: Suit | None, order: TrumpOrder = J7) -> str:
    return " ".join(suit.letter + r.letter for r in rank_order(suit, trump, order, RANKS_28))


def winner(trick: str, trump: Suit | None = Suit.HEARTS, order: TrumpOrder = J7) -> str:
    cards = tuple(parse_cards(trick))
    return str(cards[trick_winner(cards, trump, order)])


# ---------------------------------------------------------------------- R2 ranking, R8.4


def test_t01_r2_2_trump_order_jack_seven_ace() -> None:
    assert order_string(Suit.HEARTS, Suit.HEARTS) == "HJ H7 HA HK HQ HT H9"


def test_t02_r2_3_plain_suit_order_in_trump_game() -> None:
    assert order_string(Suit.CLUBS, Suit.HEARTS) == "CA CK CQ CJ CT C9 C7"


def test_t03_r2_3_hearts_natural_in_no_trump_contract() -> None:
    assert order_string(Suit.HEARTS, None) == "HA HK HQ HJ HT H9 H7"


def test_r2_3_russian_natural_order_also_in_trumps() -> None:
    order = TrumpOrder.NATURAL
    assert order_string(Suit.HEARTS, Suit.HEARTS, order) == "HA HK HQ HJ HT H9 H7"
    ranks = rank_order(Suit.SPADES, Suit.SPADES, order, RANKS_32)
    assert "".join(r.letter for r in ranks) == "AKQJT987"


def test_t04_r2_5_trump_nine_beats_plain_ace() -> None:
    assert winner("CA CK H9 CQ") == "H9"


def test_t05_r8_4_trump_jack_wins_trump_trick() -> None:
    assert winner("HA H7 HJ HK") == "HJ"


def test_t07_r2_4_off_suit_jacks_are_plain_cards() -> None:
    assert winner("C9 DJ SJ C7") == "C9"


def test_r2_5_card_neither_trump_nor_led_never_wins() -> None:
    assert winner("C7 DA SA HA", trump=None) == "C7"
    assert not beats(Card.parse("DA"), Card.parse("C7"), Suit.HEARTS, J7)


def test_r8_4_highest_of_several_trumps_wins() -> None:
    assert winner("CA H9 HA H7") == "H7"


def test_r2_2_trump_seven_beats_trump_ace_but_not_jack() -> None:
    seven, ace, jack = (Card.parse(t) for t in ("H7", "HA", "HJ"))
    assert beats(seven, ace, Suit.HEARTS, J7)
    assert not beats(seven, jack, Suit.HEARTS, J7)
    assert not beats(seven, ace, None, J7)  # no trump: the 7 is the lowest heart


# ------------------------------------------------------------------------- R8.2, R8.3


def test_t11_r8_2_leader_may_play_any_card() -> None:
    assert legal("CA C9 HJ SK", "") == "C9 CA SK HJ"


def test_t12_r8_3b_must_beat_when_following() -> None:
    assert legal("CA C9 C7 HJ SK", "CT") == "CA"


def test_t13_r8_3b_cannot_beat_any_card_of_suit() -> None:
    assert legal("CK C9 HJ", "CA") == "C9 CK"


def test_t14_r8_3b_trumped_trick_frees_the_led_suit() -> None:
    assert legal("CA C7 HJ", "CT H9") == "C7 CA"


def test_t14_head_rule_suit_must_beat_highest_led_card() -> None:
    assert legal("CA C7 HJ", "CT H9", head_rule="suit") == "CA"


def test_t15_r8_3a_follow_even_with_a_low_card() -> None:
    assert legal("C9 HJ", "CT") == "C9"


def test_t17_r8_3c_must_overtrump() -> None:
    assert legal("H9 HA SA", "CT HQ") == "HA"


def test_t18_r8_3c_must_undertrump_when_unable_to_overtrump() -> None:
    assert legal("H9 HA SA", "CT HJ") == "H9 HA"


def test_t18_undertrump_free_allows_any_card() -> None:
    assert legal("H9 HA SA", "CT HJ", undertrump="free") == "SA H9 HA"


def test_t20_r8_3b_trump_led_must_beat_with_trump() -> None:
    assert legal("HA H9 CA", "HK") == "HA"


def test_t22_r8_3a_follow_trumps_even_when_unable_to_beat() -> None:
    # Following HJ (the top trump): no trump beats it, so any trump will do.
    assert legal("H7 CA", "HJ") == "H7"


def test_t23_r2_4_led_jack_of_plain_suit_is_not_trump() -> None:
    assert legal("HJ C7 SA", "CJ") == "C7"


def test_t26_bettel_stichzwang_without_trump() -> None:
    assert legal("SA S9 HJ", "ST", trump=None) == "SA"


def test_r8_3c_void_must_trump_any_trump_into_plain_trick() -> None:
    assert legal("H9 HJ SA D7", "CA") == "H9 HJ"


def test_r8_3d_void_without_trump_plays_anything() -> None:
    assert legal("SA D7", "CA CK") == "SA D7"


def test_r8_3d_no_trump_contract_void_plays_anything() -> None:
    assert legal("SA HJ", "CA", trump=None) == "SA HJ"


def test_r8_3b_must_beat_the_winning_card_not_the_lead() -> None:
    # Lead CT, then CK wins: holding CQ and CA, only CA beats the winning card.
    assert legal("CQ CA H7", "CT CK") == "CA"


def test_r8_3c_overtrump_after_two_trumps() -> None:
    assert legal("HQ HA SA", "CT HK H9") == "HA"


def test_r8_3e_duties_bind_against_a_fellow_defender() -> None:
    # The same duty whoever is winning: the rules core has no notion of partnership.
    assert legal("CA C9", "C7 CT") == "CA"


def test_head_rule_suit_in_trump_led_trick_matches_trick_rule() -> None:
    assert legal("HA H9 CA", "HK", head_rule="suit") == legal("HA H9 CA", "HK")


def test_head_rule_suit_when_no_card_beats_highest_led() -> None:
    assert legal("C7 C9 HJ", "CT H9", head_rule="suit") == "C7 C9"


# ------------------------------------------------------------------ variant duties


def test_classic_1860_no_stichzwang_in_trump_contract() -> None:
    assert legal("CA C9 C7 HJ", "CT", ruleset_id="classic-1860") == "C7 C9 CA"


def test_classic_1860_stichzwang_in_no_trump_contract() -> None:
    assert legal("CA C9 C7 HJ", "CT", trump=None, ruleset_id="classic-1860") == "CA"


def test_classic_1860_void_must_trump_but_any_trump() -> None:
    assert legal("H9 HA SA", "CT HQ", ruleset_id="classic-1860") == "H9 HA"


def test_classic_1860_undertrump_free_when_unable_to_overtrump() -> None:
    hand, trick = "H9 HA SA", "CT HJ"
    assert legal(hand, trick, ruleset_id="classic-1860") == "H9 HA"
    assert legal(hand, trick, ruleset_id="classic-1860", undertrump="free") == "SA H9 HA"


def test_classic_1905_stichzwang_always_no_trumpfzwang() -> None:
    assert legal("CA C9 C7 HJ", "CT", ruleset_id="classic-1905") == "CA"
    assert legal("H9 HA SA", "CT HQ", ruleset_id="classic-1905") == "SA H9 HA"


def test_russian_follow_suit_no_stichzwang() -> None:
    assert legal("CA C9 C7 HJ", "CT", ruleset_id="russian") == "C7 C9 CA"


def test_russian_void_any_trump_no_overtrump_duty() -> None:
    assert legal("H9 HA SA", "CT HK", ruleset_id="russian") == "H9 HA"


def test_russian_canonical_order_is_natural_in_trumps() -> None:
    assert legal("HJ H7 HA", "", ruleset_id="russian") == "H7 HJ HA"


def test_r12_3_canonical_order_of_trump_suit_low_to_high() -> None:
    assert legal("HJ H7 HA HK HQ HT H9", "") == "H9 HT HQ HK HA H7 HJ"


def test_r12_3_canonical_order_suits_c_s_h_d() -> None:
    assert legal("DA HA SA CA", "", trump=Suit.DIAMONDS) == "CA SA HA DA"


# ------------------------------------------------------------------ error reasons


def _reason(hand: str, trick: str, card: str, **switches: str) -> str:
    ruleset = find_ruleset("standard", switches)
    duties = duties_for(ruleset, Suit.HEARTS)
    cards = parse_cards(trick)
    win = cards[trick_winner(tuple(cards), Suit.HEARTS, ruleset.trump_order)].index
    same = [c for c in cards if c.suit == cards[0].suit]
    head = max(same, key=lambda c: oracle_strength(c, Suit.HEARTS, ruleset.trump_order)).index
    return explain_illegal_card(
        CardSet(parse_cards(hand)).mask,
        Card.parse(card).index,
        led=cards[0].suit,
        win=win,
        head=head,
        duties=duties,
    )


def test_reason_must_follow() -> None:
    assert _reason("H9 CA", "C7", "H9") == "must follow clubs"


def test_reason_must_beat_the_winning_card() -> None:
    assert _reason("C9 CA", "CQ", "C9") == "must beat the winning card CQ"


def test_reason_must_beat_highest_led_card_under_head_rule_suit() -> None:
    reason = _reason("C7 CA", "CT H9", "C7", head_rule="suit")
    assert reason == "must beat the highest clubs card CT"


def test_reason_must_overtrump() -> None:
    assert _reason("H9 HA SA", "CT HQ", "H9") == "must overtrump HQ"


def test_reason_must_trump() -> None:
    assert _reason("H9 SA", "CT", "SA").startswith("must trump")


def test_reason_must_undertrump() -> None:
    assert _reason("H9 SA", "CT HJ", "SA").startswith("must play a trump")


def test_reason_not_your_hand() -> None:
    assert _reason("H9 SA", "CT", "DA") == "not your hand: DA"


@pytest.mark.parametrize("ruleset_id", ["standard", "russian-32"])
def test_duties_are_shared_objects(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    assert duties_for(ruleset, Suit.CLUBS) is duties_for(ruleset, Suit.CLUBS)
    assert duties_for(ruleset, Suit.CLUBS) is not duties_for(ruleset, Suit.SPADES)


def test_duties_follow_the_ruleset_not_its_identity() -> None:
    # duties_for caches by the ruleset's identity: an equal ruleset made afresh, and one whose
    # switches differ, each get the duties of their own rules, trump by trump.
    standard = find_ruleset("standard")
    for options in ({}, {"head_rule": "suit"}, {"undertrump": "free"}):
        ruleset = find_ruleset("standard", options)
        again = find_ruleset("standard", options)
        for trump in [*Suit, None]:
            duties = duties_for(ruleset, trump)
            assert duties is duties_for(again, trump)
            assert duties.trump == (4 if trump is None else trump)
            assert (duties == duties_for(standard, trump)) is (not options)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_flat_tables_agree_with_the_nested_ones(ruleset_id: str) -> None:
    """The play loops read PlayDuties' flat copies of takes, heads and suit_indices: they must
    hold the same entries at ``row << CARD_BITS | card`` and ``suit << RANK_COUNT | mask``."""
    from brandeln.engine.cards import CARD_COUNT, RANK_COUNT, SUIT_COUNT  # noqa: PLC0415
    from brandeln.engine.trick_rules import CARD_BITS, duties_for  # noqa: PLC0415

    ruleset = find_ruleset(ruleset_id)
    for trump in (None, *Suit):
        duties = duties_for(ruleset, trump)
        assert len(duties.takes_flat) == len(duties.heads_flat) == (CARD_COUNT + 1) * CARD_COUNT
        for row in range(CARD_COUNT + 1):
            for card in range(CARD_COUNT):
                assert duties.takes_flat[row << CARD_BITS | card] == duties.takes[row][card]
                assert duties.heads_flat[row << CARD_BITS | card] == duties.heads[row][card]
        for suit in range(SUIT_COUNT):
            for mask in range(1 << RANK_COUNT):
                flat = duties.suit_indices_flat[suit << RANK_COUNT | mask]
                assert flat == duties.suit_indices[suit][mask]

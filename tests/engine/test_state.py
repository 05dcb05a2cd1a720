"""DealState: the play, the end of a deal, settlement, events and views (R8-R10, R12)."""

from __future__ import annotations

import random

import pytest

from brandeln.engine.actions import PASS, Bid, NameTrump, PlayCard, parse_action
from brandeln.engine.cards import Card, CardSet, Suit, parse_cards
from brandeln.engine.dealing import Deal, deal_cards, fixed_deal
from brandeln.engine.errors import IllegalActionError, InvalidDealError
from brandeln.engine.events import (
    BidMade,
    CardPlayed,
    ContractSet,
    DealEnded,
    TrickTaken,
    TrumpNamed,
)
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.settlement import free_play_payments
from brandeln.engine.state import DealState
from tests.engine.scripting import cardset, run, sample_deal

# Seat 0 (forehand, dealer 3) plays brand in hearts and takes every trick.
BRAND_AUCTION = "brand, pass, pass, pass, H"
BRAND_PLAY = (
    "HJ, H9, C7, D7,  H7, HT, C9, D9,  HA, HQ, CT, DT,  HK, CK, CJ, DJ,"
    "CA, CQ, SQ, S7,  SA, SK, SJ, S9,  DA, DK, DQ, ST"
)


# The same deal in russian (natural order in trumps, no Stichzwang): seat 0 takes all 7.
RUSSIAN_PLAY = (
    "HA, HQ, C7, D7,  HK, HT, C9, D9,  HJ, H9, CT, DT,  H7, CK, CJ, DJ,"
    "CA, CQ, SQ, S7,  SA, SK, SJ, S9,  DA, DK, DQ, ST"
)


def new_state(ruleset_id: str = "standard", pool: int = 0, **switches: str) -> DealState:
    ruleset = find_ruleset(ruleset_id, switches)
    return DealState.new(ruleset, sample_deal(ruleset), pool=pool)


def test_r8_1_soloist_leads_and_winner_leads_next() -> None:
    state = run(new_state(), BRAND_AUCTION)
    assert state.phase is Phase.PLAY
    assert state.to_act == 0
    state = run(state, "HJ, H9, C7, D7")
    assert state.tricks[0] == TrickTaken(1, 0, tuple(parse_cards("HJ H9 C7 D7")), 0)
    assert state.to_act == 0
    assert state.leader == 0


def test_r8_1_play_goes_clockwise() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ")
    assert state.to_act == 1
    state = run(state, "H9")
    assert state.to_act == 2
    assert state.current_trick == ((0, Card.parse("HJ")), (1, Card.parse("H9")))


def test_r9_1_brand_played_to_trick_7_and_made() -> None:
    state = run(new_state(), BRAND_AUCTION + "," + BRAND_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert state.phase is Phase.DONE
    assert outcome.tricks_won == (7, 0, 0, 0)
    assert outcome.made is True
    assert outcome.payments == (12, -4, -4, -4)  # R10.2: each defender pays V = 4
    assert outcome.unplayed == (CardSet(),) * 4
    assert outcome.hands == state.deal.hands
    assert outcome.trump is Suit.HEARTS
    assert outcome.contract == "brand"


def test_r9_3_brand_not_stopped_when_result_settled() -> None:
    state = run(new_state(), BRAND_AUCTION + "," + BRAND_PLAY[: BRAND_PLAY.index("CA")])
    assert state.tricks_won == (4, 0, 0, 0)
    assert state.phase is Phase.PLAY


def test_early_stop_when_decided_ends_brand_after_fourth_trick() -> None:
    state = new_state(early_stop="when_decided")
    state = run(state, BRAND_AUCTION + "," + BRAND_PLAY[: BRAND_PLAY.index("CA")])
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.tricks_won == (4, 0, 0, 0)
    assert outcome.made is True
    assert outcome.unplayed[0] == cardset("CA SA DA")


def test_early_stop_when_decided_ends_failed_brand() -> None:
    # Seat 3 plays brand in spades with a weak hand; after four defender tricks it cannot make 4.
    state = new_state(early_stop="when_decided")
    state = run(state, "pass, pass, pass, brand, S")
    while not state.is_over():
        state = state.apply(state.legal_actions()[0])
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.made is False
    defenders = sum(outcome.tricks_won) - outcome.tricks_won[3]
    assert defenders == 4  # stopped exactly when the fourth defender trick made 4 impossible
    assert outcome.tricks_played < 7


def test_r10_3_overtricks_change_nothing() -> None:
    state = run(new_state(), "brandle, pass, pass, pass, H," + BRAND_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (9, -3, -3, -3)


def test_r9_2_bettel_ends_when_soloist_takes_a_trick() -> None:
    state = run(new_state(), "bettel, pass, pass, pass, DA, DK, DQ, D7")
    outcome = state.outcome()
    assert outcome is not None
    assert state.phase is Phase.DONE
    assert outcome.tricks_won == (1, 0, 0, 0)
    assert outcome.made is False
    assert outcome.payments == (-18, 6, 6, 6)
    assert all(len(hand) == 6 for hand in outcome.unplayed)


def test_early_stop_never_plays_bettel_to_the_end() -> None:
    state = run(new_state(early_stop="never"), "bettel, pass, pass, pass, DA, DK, DQ, D7")
    assert state.phase is Phase.PLAY
    while not state.is_over():
        state = state.apply(state.legal_actions()[0])
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.tricks_played == 7
    assert outcome.payments == (-18, 6, 6, 6)


def test_r9_2_bettel_made_by_dealer() -> None:
    # No trump: hearts rank naturally, so HQ must beat HJ (R2.3, R8.3b) in trick 4.
    script = (
        "pass, pass, pass, bettel,"
        "S7, SA, SK, SJ,  HA, H9, C7, S9,  HK, HT, C9, ST,  HJ, HQ, CT, DJ,"
        "CK, CJ, DT, CA,  H7, CQ, SQ, D9,  DA, DK, DQ, D7"
    )
    state = run(new_state(), script)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.made is True
    assert outcome.tricks_won == (6, 1, 0, 0)
    assert outcome.payments == (-6, -6, -6, 18)


def test_r9_2_mord_ends_when_a_defender_takes_a_trick() -> None:
    state = run(new_state(), "pass, mord, pass, pass, C, CK, C7, S7, CA")
    outcome = state.outcome()
    assert outcome is not None
    # Clubs trump: C7 outranks CK and CA (R2.2), so seat 2's C7 takes the trick.
    assert outcome.tricks_won == (0, 0, 1, 0)
    assert outcome.made is False
    assert outcome.payments == (12, -36, 12, 12)


def test_r10_1_mord_made_with_all_seven() -> None:
    state = run(new_state(), "mord, pass, pass, pass, H," + BRAND_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (36, -12, -12, -12)


def test_r10_4_zero_sum_every_deal() -> None:
    for script in ("bettel, pass, pass, pass, DA, DK, DQ, D7", BRAND_AUCTION + "," + BRAND_PLAY):
        outcome = run(new_state(), script).outcome()
        assert outcome is not None
        assert sum(outcome.payments) == 0


def test_three_player_soloist_moves_two_v() -> None:
    ruleset = find_ruleset("three-player")
    hands = [parse_cards(h) for h in ("HJ H7 HA HK CA SA DA", "HQ HT H9 CK CQ SK DK")]
    hands.append(parse_cards("CJ CT C9 C7 SQ SJ DQ"))
    deal = fixed_deal(ruleset, 2, hands, blind=parse_cards("ST S9 S7 DJ DT D9 D7"))
    state = run(DealState.new(ruleset, deal), "brand, pass, pass, H")
    state = run(state, "HJ, H9, C7,  H7, HT, C9,  HA, HQ, CT,  HK, CK, CJ")
    state = run(state, "CA, CQ, SQ,  SA, SK, SJ,  DA, DK, DQ")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (8, -4, -4)
    assert outcome.blind == cardset("ST S9 S7 DJ DT D9 D7")
    assert [len(t.cards) for t in state.tricks] == [3] * 7


def test_haferl_soloist_who_makes_takes_the_pool() -> None:
    state = run(new_state("haferl", pool=8), BRAND_AUCTION + "," + BRAND_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (20, -4, -4, -4)
    assert outcome.pool_delta == -8
    assert sum(outcome.payments) + outcome.pool_delta == 0


def test_haferl_failing_soloist_does_not_touch_the_pool() -> None:
    state = run(new_state("haferl", pool=8), "bettel, pass, pass, pass, DA, DK, DQ, D7")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (-18, 6, 6, 6)
    assert outcome.pool_delta == 0


def test_pool_outside_haferl_is_rejected() -> None:
    with pytest.raises(ValueError, match="pool"):
        new_state("standard", pool=4)


def test_russian_payment_follows_the_exact_count() -> None:
    # Seat 0 bids "four" (exactly 4 tricks) in hearts; made only with exactly 4 tricks.
    state = run(new_state("russian"), "four, pass, pass, pass, H")
    while not state.is_over():
        state = state.apply(state.legal_actions()[-1])
    outcome = state.outcome()
    assert outcome is not None
    won = outcome.tricks_won[0]
    assert outcome.made is (won == 4)
    expected = 2 if won == 4 else -2
    assert outcome.payments == (expected, 0, 0, 0)


def test_russian_exact_goal_fails_with_overtricks() -> None:
    state = run(new_state("russian"), "three, pass, pass, pass, H," + RUSSIAN_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.tricks_won == (7, 0, 0, 0)
    assert outcome.made is False
    assert outcome.payments == (-1, 0, 0, 0)


def test_russian_all_made() -> None:
    state = run(new_state("russian"), "all, pass, pass, pass, H," + RUSSIAN_PLAY)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (6, 0, 0, 0)


def test_russian_free_play_sweep_scores_minus_three() -> None:
    # All pass; the dealer (seat 3) leads the free play without trump; seat 0 takes every trick.
    script = (
        "pass, pass, pass, pass,"
        "S7, SA, SK, SJ,  HA, HQ, C7, D7,  HK, HT, C9, D9,  HJ, H9, CT, DT,"
        "H7, CK, CJ, DJ,  CA, CQ, SQ, S9,  DA, DK, DQ, ST"
    )
    state = run(new_state("russian"), script)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.soloist is None
    assert outcome.contract is None
    assert outcome.trump is None
    assert outcome.made is None
    assert outcome.tricks_won == (7, 0, 0, 0)
    assert outcome.payments == (-3, 0, 0, 0)


def test_russian_free_play_ties_for_most_tricks_all_score() -> None:
    assert free_play_payments((3, 3, 1, 0), 7) == (1, 1, 0, 0)
    assert free_play_payments((0, 7, 0, 0), 7) == (0, -3, 0, 0)
    assert free_play_payments((2, 2, 2, 2), 8) == (1, 1, 1, 1)


def test_step_events_of_a_whole_deal() -> None:
    state = new_state()
    events = []
    for text in (BRAND_AUCTION + "," + BRAND_PLAY).split(","):
        state, new_events = state.step(parse_action(text.strip(), state.phase))
        events.extend(new_events)
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("BidMade") == 4
    assert kinds.count("CardPlayed") == 28
    assert kinds.count("TrickTaken") == 7
    assert kinds[4:6] == ["ContractSet", "TrumpNamed"]
    assert kinds[-2:] == ["TrickTaken", "DealEnded"]
    assert events[0] == BidMade(0, Bid("brand"))
    assert events[4] == ContractSet(0, "brand", False)
    assert events[5] == TrumpNamed(Suit.HEARTS)
    assert events[6] == CardPlayed(0, Card.parse("HJ"))
    numbers = [e.trick_number for e in events if isinstance(e, TrickTaken)]
    assert numbers == [1, 2, 3, 4, 5, 6, 7]
    ended = events[-1]
    assert isinstance(ended, DealEnded)
    assert ended.payments == (12, -4, -4, -4)
    assert ended.hands == state.deal.hands
    outcome = state.outcome()
    assert outcome is not None
    assert DealEnded.of(outcome) == ended


def test_apply_and_step_agree() -> None:
    a = b = new_state()
    for text in (BRAND_AUCTION + "," + BRAND_PLAY).split(","):
        action = parse_action(text.strip(), a.phase)
        a = a.apply(action)
        b, _ = b.step(action)
        assert a == b
    assert a.outcome() == b.outcome()


def test_error_play_during_auction() -> None:
    with pytest.raises(IllegalActionError, match="it is the auction, not the play"):
        new_state().apply(PlayCard(Card.parse("HJ")))


def test_error_bid_during_play() -> None:
    state = run(new_state(), BRAND_AUCTION)
    with pytest.raises(IllegalActionError, match="it is the play, not the auction"):
        state.apply(Bid("mord"))


def test_error_trump_during_auction() -> None:
    with pytest.raises(IllegalActionError, match="it is the auction, not the naming of trump"):
        new_state().apply(NameTrump(Suit.CLUBS))


def test_error_not_your_hand() -> None:
    state = run(new_state(), BRAND_AUCTION)
    with pytest.raises(IllegalActionError, match="not your hand: SK"):
        state.apply(PlayCard(Card.parse("SK")))


def test_error_must_follow_through_deal_state() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ")
    with pytest.raises(IllegalActionError, match="must follow hearts"):
        state.apply(PlayCard(Card.parse("CK")))


def test_error_deal_over() -> None:
    state = run(new_state(), BRAND_AUCTION + "," + BRAND_PLAY)
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the deal is over"):
        state.apply(PlayCard(Card.parse("HJ")))


def test_error_not_an_action() -> None:
    with pytest.raises(IllegalActionError, match="not an action"):
        new_state().apply("pass")  # type: ignore[arg-type]
    assert not new_state().is_legal("pass")


def test_illegal_action_leaves_state_unchanged() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ")
    before = state.history
    with pytest.raises(IllegalActionError):
        state.apply(PlayCard(Card.parse("CK")))
    assert state.history == before
    assert state.to_act == 1


def test_r12_1_view_shows_own_hand_and_public_record_only() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ, H9, C7, D7, H7")
    view = state.view(2)
    assert view.seat == 2
    assert view.dealer == 3
    assert view.forehand == 0
    assert view.hand == cardset("CJ CT C9 SQ SJ DQ")
    assert [str(b.bid) for b in view.auction] == ["brand", "pass", "pass", "pass"]
    assert view.soloist == 0
    assert view.contract == "brand"
    assert view.trump is Suit.HEARTS
    assert view.tricks == state.tricks
    assert view.current_trick_leader == 0
    assert view.current_trick == (Card.parse("H7"),)
    assert view.tricks_won == (1, 0, 0, 0)
    assert view.deal_payments == ()
    others = CardSet()
    for seat in (0, 1, 3):
        others = others | state.hand(seat)
    assert view.hand.isdisjoint(others)


def test_view_after_the_deal_has_payments() -> None:
    state = run(new_state(), BRAND_AUCTION + "," + BRAND_PLAY)
    assert state.view(1).deal_payments == (12, -4, -4, -4)
    assert state.view(1).current_trick_leader is None


def test_view_rejects_unknown_seat() -> None:
    with pytest.raises(ValueError, match="seat 4"):
        new_state().view(4)


def test_history_records_seats_and_actions() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ")
    assert [(seat, str(action)) for seat, action in state.history] == [
        (0, "brand"),
        (1, "pass"),
        (2, "pass"),
        (3, "pass"),
        (0, "trump H"),
        (0, "HJ"),
    ]


def test_states_are_values() -> None:
    a = run(new_state(), BRAND_AUCTION)
    b = run(new_state(), BRAND_AUCTION)
    assert a == b
    assert hash(a) == hash(b)
    assert a != a.apply(PASS if a.phase is Phase.AUCTION else a.legal_actions()[0])


def test_invalid_deal_rejected_by_new() -> None:
    ruleset = find_ruleset("standard")
    good = sample_deal(ruleset)
    bad = Deal(dealer=0, hands=(good.hands[0], good.hands[0], good.hands[2], good.hands[3]))
    with pytest.raises(InvalidDealError, match="dealt to seat 1 and to another hand"):
        DealState.new(ruleset, bad)


def test_legal_card_mask_matches_legal_actions() -> None:
    state = run(new_state(), BRAND_AUCTION + ", HJ")
    mask = state.legal_card_mask()
    assert CardSet.from_mask(mask) == CardSet(a.card for a in state.legal_actions())  # type: ignore[union-attr]
    assert new_state().legal_card_mask() == 0


def test_repr_mentions_phase() -> None:
    assert "AUCTION" in repr(new_state())


def test_hands_property_lists_every_seat() -> None:
    state = new_state()
    assert state.hands == state.deal.hands
    assert isinstance(state.hands[0], CardSet)


def _bids_of(state: DealState) -> tuple[BidMade, ...]:
    return tuple(BidMade(seat, action) for seat, action in state.history if type(action) is Bid)


@pytest.mark.parametrize("seed", range(30))
def test_the_auction_record_is_right_whenever_it_is_first_asked_for(seed: int) -> None:
    # The auction's BidMade records are built when asked for and kept on a value the states of
    # one auction share, and a bid extends its parent's once built: asking at any point, or
    # never until the end, on one branch or its sibling, must give every state its own auction.
    ruleset = find_ruleset("standard")
    rng = random.Random(seed)
    state = DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed))
    while not state.is_over():
        legal = state.legal_actions()
        if rng.random() < 0.3:
            assert state.auction == _bids_of(state)
        if state.phase is Phase.AUCTION and len(legal) > 1:
            first, second = state.apply(legal[0]), state.apply(legal[-1])
            if rng.random() < 0.5:
                assert first.auction == _bids_of(first)
            assert second.auction == _bids_of(second)
            assert first.auction == _bids_of(first)
        state = state.apply(legal[rng.randrange(len(legal))])
    assert state.auction == _bids_of(state)
    assert state.auction_state.bids == state.auction


@pytest.mark.parametrize("ruleset_id", ["standard", "three-player", "russian"])
def test_the_history_holds_every_action_in_order_mid_trick_and_after(ruleset_id: str) -> None:
    # The play records no history node per card: ``history`` reads the cards from the tricks
    # and the trick in progress, which must give every action taken, by its seat, in order.
    ruleset = find_ruleset(ruleset_id)
    for seed in range(15):
        rng = random.Random(seed)
        state = DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed))
        taken: list[tuple[int, object]] = []
        while not state.is_over():
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            seat = state.to_act
            assert seat is not None
            if type(action) is PlayCard:  # an equal, not the same, action object
                action = PlayCard(action.card)
            state = state.apply(action)
            taken.append((seat, action))
            assert state.history == tuple(taken)
        assert state.actions == tuple(action for _, action in taken)


@pytest.mark.parametrize("ruleset_id", ["standard", "three-player", "russian-32"])
def test_tricks_won_table_agrees_with_the_tricks(ruleset_id: str) -> None:
    """A trick taken looks the tricks won up in the ruleset's shared table by their code: at
    every state they must be the count of the tricks each seat took, and every entry of the
    table must decode to its tuple."""
    from brandeln.engine.state import _FACTS, _WON_BITS  # noqa: PLC0415 - the internal table itself

    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(5)
    for seed in range(40):
        state = DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed))
        while not state.is_over():
            counts = [0] * ruleset.players
            for trick in state.tricks:
                counts[trick.winner] += 1
            assert state.tricks_won == tuple(counts)
            actions = state.legal_actions()
            state = state.apply(actions[rng.randrange(len(actions))])
        outcome = state.outcome()
        assert outcome is not None
        assert outcome.tricks_won == state.tricks_won
    table = _FACTS.of(ruleset).won_by_code
    assert len(table) > 1
    for code, won in table.items():
        unit = 1 << _WON_BITS
        assert won == tuple(code >> (_WON_BITS * seat) & unit - 1 for seat in range(len(won)))
        assert sum(won) <= ruleset.tricks

"""MatchState: dealers, balances, the Haferl pool, the russian target, ranks (R1.2, R11)."""

from __future__ import annotations

import random

import pytest

from brandeln.engine.actions import PASS
from brandeln.engine.dealing import deal_cards
from brandeln.engine.match import MatchState
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from tests.engine.scripting import run, sample_deal

BRAND_MADE = (
    "brand, pass, pass, pass, H,"
    "HJ, H9, C7, D7,  H7, HT, C9, D9,  HA, HQ, CT, DT,  HK, CK, CJ, DJ,"
    "CA, CQ, SQ, S7,  SA, SK, SJ, S9,  DA, DK, DQ, ST"
)


def passed_out(match: MatchState) -> DealOutcome:
    state = match.start_deal(deal_cards(match.ruleset, match.dealer_of_next_deal, 1))
    while not state.is_over():
        state = state.apply(PASS)
    outcome = state.outcome()
    assert outcome is not None
    return outcome


def random_outcome(match: MatchState, seed: int) -> DealOutcome:
    rng = random.Random(seed)
    state = match.start_deal(match.deal_for_seed(seed))
    while not state.is_over():
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])
    outcome = state.outcome()
    assert outcome is not None
    return outcome


def test_r1_2_dealer_passes_left_every_deal() -> None:
    match = MatchState.new(find_ruleset("standard"), deals=8, first_dealer=2)
    dealers = []
    for seed in range(8):
        dealers.append(match.dealer_of_next_deal)
        match = match.record(random_outcome(match, seed))
    assert dealers == [2, 3, 0, 1, 2, 3, 0, 1]
    assert match.is_over
    assert match.deal_number == 8


def test_r11_1_default_match_length_is_a_multiple_of_players() -> None:
    assert MatchState.new(find_ruleset("standard")).deals == 8
    assert MatchState.new(find_ruleset("three-player")).deals % 3 == 0


def test_r10_4_balances_sum_to_zero_after_every_deal() -> None:
    match = MatchState.new(find_ruleset("standard"), deals=8)
    for seed in range(8):
        match = match.record(random_outcome(match, seed))
        assert sum(match.balances) == 0


def test_record_rejects_deal_of_wrong_dealer_and_finished_match() -> None:
    match = MatchState.new(find_ruleset("standard"), deals=1)
    ruleset = find_ruleset("standard")
    wrong = DealState.new(ruleset, sample_deal(ruleset, dealer=3))
    outcome = run(wrong, BRAND_MADE).outcome()
    assert outcome is not None
    with pytest.raises(ValueError, match="dealt by seat 3"):
        match.record(outcome)
    with pytest.raises(ValueError, match="dealt by seat 0, not 3"):
        match.start_deal(sample_deal(ruleset, dealer=3))
    match = match.record(random_outcome(match, 1))
    with pytest.raises(ValueError, match="the match is over"):
        match.record(random_outcome(MatchState.new(ruleset, deals=1), 1))


def test_haferl_pool_grows_and_is_taken_by_a_made_contract() -> None:
    ruleset = find_ruleset("haferl")
    match = MatchState.new(ruleset, deals=8, first_dealer=1)
    match = match.record(passed_out(match))
    match = match.record(passed_out(match))
    assert match.pool == 8
    assert match.balances == (-2, -2, -2, -2)
    assert match.dealer_of_next_deal == 3
    state = match.start_deal(sample_deal(ruleset, dealer=3))
    assert state.pool == 8
    outcome = run(state, BRAND_MADE).outcome()
    assert outcome is not None
    match = match.record(outcome)
    assert match.pool == 0
    assert match.balances == (18, -6, -6, -6)
    assert sum(match.balances) + match.pool == 0


def test_haferl_outcome_that_ignored_the_pool_is_rejected() -> None:
    ruleset = find_ruleset("haferl")
    match = MatchState.new(ruleset, deals=8, first_dealer=3)
    match = match.record(passed_out(match))
    match = match.record(passed_out(match))
    match = match.record(passed_out(match))
    match = match.record(passed_out(match))
    assert match.dealer_of_next_deal == 3
    state = DealState.new(ruleset, sample_deal(ruleset, dealer=3))  # pool forgotten
    outcome = run(state, BRAND_MADE).outcome()
    assert outcome is not None
    with pytest.raises(ValueError, match="start_deal"):
        match.record(outcome)


def test_haferl_leftover_pool_returned_in_equal_shares() -> None:
    ruleset = find_ruleset("haferl")
    match = MatchState.new(ruleset, deals=2)
    match = match.record(passed_out(match))
    match = match.record(passed_out(match))
    assert match.is_over
    assert match.pool == 8
    assert match.final_balances() == (0, 0, 0, 0)
    assert match.ranks() == (1, 1, 1, 1)


def test_russian_match_ends_at_target_score() -> None:
    ruleset = find_ruleset("russian")
    match = MatchState.new(ruleset)
    assert match.deals == 120
    seed = 0
    while not match.is_over:
        match = match.record(random_outcome(match, seed))
        seed += 1
    assert max(match.balances) >= 21 or match.deal_number == 120
    if match.deal_number < 120:
        assert max(match.balances) >= 21
        previous = match.outcomes[:-1]
        totals = [sum(o.payments[s] for o in previous) for s in range(4)]
        assert max(totals) < 21  # it ended with the deal that reached the target


def test_ranks_share_equal_balances() -> None:
    match = MatchState.new(find_ruleset("standard"), deals=8)
    match = match.__class__(match.ruleset, 8, 0, 8, (9, 9, -3, -15), 0, ())
    assert match.ranks() == (1, 1, 3, 4)


def test_ranks_forfeited_seat_ranks_last_whatever_its_chips() -> None:
    match = MatchState.new(find_ruleset("standard"), deals=8)
    match = match.__class__(match.ruleset, 8, 0, 8, (30, 9, -3, -36), 0, ())
    assert match.ranks(forfeited=[0]) == (4, 1, 2, 3)
    assert match.ranks(forfeited=[0, 3]) == (3, 1, 2, 3)
    with pytest.raises(ValueError, match="outside"):
        match.ranks(forfeited=[4])


def test_match_new_validates() -> None:
    with pytest.raises(ValueError, match="at least one deal"):
        MatchState.new(find_ruleset("standard"), deals=0)
    with pytest.raises(ValueError, match="first dealer 4"):
        MatchState.new(find_ruleset("standard"), first_dealer=4)

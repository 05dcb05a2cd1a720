"""The auction and the pass-out (RULES.md R1.3, R5, R6, R7; section 5 T31-T40)."""

from __future__ import annotations

import pytest

from brandeln.engine.actions import PASS, Bid
from brandeln.engine.cards import parse_cards
from brandeln.engine.dealing import fixed_deal
from brandeln.engine.errors import IllegalActionError
from brandeln.engine.events import BidMade, ContractSet, DealEnded
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from tests.engine.scripting import sample_deal

DEALERS = [0, 1, 2, 3]


def new_state(ruleset_id: str = "standard", dealer: int = 3) -> DealState:
    ruleset = find_ruleset(ruleset_id)
    return DealState.new(ruleset, sample_deal(ruleset, dealer))


def seat_of(r: int, dealer: int, players: int = 4) -> int:
    """The seat at distance r from forehand."""
    return (dealer + 1 + r) % players


def bid_by_distance(state: DealState, script: str) -> DealState:
    """Apply ``r:bid`` steps, checking that seat r is the one to act each time."""
    for step in script.split():
        r, bid = step.split(":")
        assert state.to_act == seat_of(int(r), state.dealer, state.ruleset.players), step
        state = state.apply(Bid(bid))
    return state


def legal_bids(state: DealState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


@pytest.mark.parametrize("dealer", DEALERS)
def test_t31_r5_5_single_bid_then_passes(dealer: int) -> None:
    state = bid_by_distance(new_state(dealer=dealer), "0:brandle 1:pass 2:pass 3:pass")
    assert state.soloist == seat_of(0, dealer)
    assert state.contract is not None
    assert state.contract.id == "brandle"
    assert state.phase is Phase.TRUMP
    assert state.to_act == seat_of(0, dealer)


@pytest.mark.parametrize("dealer", DEALERS)
def test_t32_r5_3_senior_holds(dealer: int) -> None:
    state = bid_by_distance(
        new_state(dealer=dealer), "0:brandle 1:brand 2:pass 3:pass 0:brand 1:pass"
    )
    assert state.soloist == seat_of(0, dealer)
    assert state.contract is not None
    assert state.contract.id == "brand"
    assert not state.passed_out


@pytest.mark.parametrize("dealer", DEALERS)
def test_t33_r5_3_junior_may_not_match(dealer: int) -> None:
    state = bid_by_distance(new_state(dealer=dealer), "0:brandle")
    assert not state.is_legal(Bid("brandle"))
    with pytest.raises(IllegalActionError, match="a junior may not hold brandle"):
        state.apply(Bid("brandle"))


@pytest.mark.parametrize("dealer", DEALERS)
def test_t37_r5_3_junior_may_not_match_after_hold(dealer: int) -> None:
    state = bid_by_distance(new_state(dealer=dealer), "0:pass 1:pass 2:brandle 3:brand 2:brand")
    assert state.to_act == seat_of(3, dealer)
    with pytest.raises(IllegalActionError, match="junior"):
        state.apply(Bid("brand"))
    assert legal_bids(state) == ["pass", "bettel", "mord", "herrenmord"]


@pytest.mark.parametrize("dealer", DEALERS)
def test_t39_r6_1_muss_spiel_forehand_plays_brandle(dealer: int) -> None:
    state = new_state(dealer=dealer)
    events = []
    for _ in range(4):
        state, new_events = state.step(PASS)
        events.extend(new_events)
    forehand = seat_of(0, dealer)
    assert events[-1] == ContractSet(soloist=forehand, contract="brandle", passed_out=True)
    assert state.phase is Phase.TRUMP
    assert state.to_act == forehand
    assert state.passed_out


def test_t39_haferl_each_pays_one_into_the_pool() -> None:
    state = new_state("haferl")
    events = []
    for _ in range(4):
        state, new_events = state.step(PASS)
        events.extend(new_events)
    assert events[-2] == ContractSet(soloist=None, contract=None, passed_out=True)
    assert isinstance(events[-1], DealEnded)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.payments == (-1, -1, -1, -1)
    assert outcome.pool_delta == 4
    assert outcome.made is None
    assert state.phase is Phase.DONE
    assert state.to_act is None


@pytest.mark.parametrize("dealer", DEALERS)
def test_t40_r7_2_dealer_soloist_in_bettel_leads_without_trump(dealer: int) -> None:
    state = new_state(dealer=dealer)
    state, _ = state.step(PASS)
    state, _ = state.step(PASS)
    state, _ = state.step(PASS)
    state, events = state.step(Bid("bettel"))
    assert events == [
        BidMade(dealer, Bid("bettel")),
        ContractSet(soloist=dealer, contract="bettel", passed_out=False),
    ]
    assert state.soloist == dealer
    assert state.phase is Phase.PLAY
    assert state.trump is None
    assert state.to_act == dealer


def test_r5_1_forehand_speaks_first_then_clockwise() -> None:
    state = new_state(dealer=1)
    order = []
    for _ in range(4):
        order.append(state.to_act)
        state = state.apply(PASS)
    assert order == [2, 3, 0, 1]


def test_r5_2_passed_player_never_speaks_again() -> None:
    state = bid_by_distance(new_state(), "0:pass 1:brandle 2:brand 3:pass")
    # r0 has passed: r1 (senior to the holder r2) speaks next.
    assert state.to_act == 1
    state = state.apply(Bid("brand"))  # hold
    assert state.to_act == 2
    state = state.apply(Bid("bettel"))
    assert state.to_act == 1
    state = state.apply(PASS)
    assert state.soloist == 2


def test_r5_3_any_contract_opens_and_jump_bids_are_legal() -> None:
    state = new_state()
    assert legal_bids(state) == ["pass", "brandle", "brand", "bettel", "mord", "herrenmord"]
    state = state.apply(Bid("mord"))  # a jump
    assert legal_bids(state) == ["pass", "herrenmord"]


def test_r5_3_senior_may_hold_junior_must_raise() -> None:
    state = bid_by_distance(new_state(), "0:pass 1:pass 2:brand")
    assert legal_bids(state) == ["pass", "bettel", "mord", "herrenmord"]  # r3 is junior
    state = state.apply(Bid("mord"))
    assert legal_bids(state) == ["pass", "mord", "herrenmord"]  # r2 is senior to r3


def test_r5_3_lower_bid_is_illegal_with_reason() -> None:
    state = bid_by_distance(new_state(), "0:brand")
    with pytest.raises(IllegalActionError, match="brandle is lower than the contract already bid"):
        state.apply(Bid("brandle"))


def test_r5_4_turn_skips_the_holder() -> None:
    state = bid_by_distance(new_state(), "0:brandle 1:pass 2:pass 3:brand")
    assert state.to_act == 0  # seat 3 holds, so after 3 comes 0
    state = state.apply(Bid("brand"))  # r0 holds
    assert state.to_act == 3  # 1 and 2 passed, 0 holds


def test_r5_5_everyone_passes_after_a_bid_ends_at_once() -> None:
    state = bid_by_distance(new_state(), "0:pass 1:pass 2:pass 3:brandle")
    assert state.soloist == 3
    assert state.phase is Phase.TRUMP


def test_r5_unknown_contract_is_illegal() -> None:
    state = new_state()
    assert not state.is_legal(Bid("grand"))
    with pytest.raises(IllegalActionError, match="'grand' is not a bid in 'standard'"):
        state.apply(Bid("grand"))


def test_r5_5_auction_long_hold_war_terminates() -> None:
    state = bid_by_distance(
        new_state(),
        "0:brandle 1:brand 2:bettel 3:mord 0:mord 1:herrenmord 2:pass 3:pass 0:herrenmord 1:pass",
    )
    assert state.soloist == 0
    assert state.contract is not None
    assert state.contract.id == "herrenmord"
    assert state.phase is Phase.PLAY  # no trump to name


def test_russian_no_holds() -> None:
    state = bid_by_distance(new_state("russian"), "0:three 1:four 2:pass 3:pass")
    assert legal_bids(state) == ["pass", "five", "six", "null", "all", "all-no-trump"]
    with pytest.raises(IllegalActionError, match="no holds"):
        state.apply(Bid("four"))


def test_russian_pass_out_free_play_dealer_leads_no_trump() -> None:
    state = new_state("russian", dealer=2)
    events = []
    for _ in range(4):
        state, new_events = state.step(PASS)
        events.extend(new_events)
    assert events[-1] == ContractSet(soloist=None, contract=None, passed_out=True)
    assert state.phase is Phase.PLAY
    assert state.to_act == 2
    assert state.trump is None
    assert state.soloist is None


def test_classic_pass_out_is_thrown_in() -> None:
    for ruleset_id in ("classic-1860", "classic-1905"):
        state = new_state(ruleset_id)
        for _ in range(4):
            state = state.apply(PASS)
        outcome = state.outcome()
        assert outcome is not None
        assert outcome.payments == (0, 0, 0, 0)
        assert outcome.pool_delta == 0
        assert outcome.passed_out
        assert outcome.soloist is None
        assert outcome.unplayed == state.deal.hands


def test_r7_1_soloist_names_any_suit_even_one_not_held() -> None:
    state = bid_by_distance(new_state(), "0:pass 1:pass 2:pass 3:brand")
    assert [str(a) for a in state.legal_actions()] == [
        "trump C",
        "trump S",
        "trump H",
        "trump D",
    ]
    # Seat 3 holds no heart and no club; naming hearts is still legal.
    state = state.apply(state.legal_actions()[2])
    assert state.trump is not None
    assert state.trump.letter == "H"
    assert state.to_act == 3  # R8.1: the soloist leads


def test_r1_3_three_player_seniority_forehand_middlehand_dealer() -> None:
    ruleset = find_ruleset("three-player")
    hands = [parse_cards(h) for h in ("HJ H7 HA HK CA SA DA", "HQ HT H9 CK CQ SK DK")]
    hands.append(parse_cards("CJ CT C9 C7 SQ SJ DQ"))
    deal = fixed_deal(ruleset, 2, hands, blind=parse_cards("ST S9 S7 DJ DT D9 D7"))
    state = DealState.new(ruleset, deal)
    assert state.to_act == 0
    state = state.apply(Bid("brandle")).apply(Bid("brand"))
    assert state.to_act == 2  # the dealer, most junior
    state = state.apply(PASS)
    assert "brand" in legal_bids(state)  # forehand is senior: may hold

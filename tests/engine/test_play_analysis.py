"""brandeln.engine.play_analysis: every card of a played deal judged double dummy (R8, R9, R10).

The analysis must agree with the deal itself: the value of the position before each card is
the value after the card before it, the value after the last card is the deal's result, and so
the result is the value at the start of the play turned over once per error. Cards named as
better must be legal and keep the side's goal, by the solver asked afresh.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.engine.actions import PASS, Action, PlayCard
from brandeln.engine.dealing import deal_cards
from brandeln.engine.double_dummy import DoubleDummy
from brandeln.engine.errors import ReplayError
from brandeln.engine.phase import Phase
from brandeln.engine.play_analysis import analyse_play
from brandeln.engine.rulesets import RULESET_IDS, Ruleset, find_ruleset
from brandeln.engine.state import DealState


def played_deal(ruleset: Ruleset, seed: int) -> tuple[DealState, list[Action], DealState]:
    """A deal whose first bidder takes the lowest contract and everyone else passes (so a
    contract is played, not only overbid ones), then random legal play to the end: the state
    at the start, the actions, the state at the end."""
    rng = random.Random(seed)
    start = DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed), 0)
    state, actions = start, list[Action]()
    while state.to_act is not None:
        legal = state.legal_actions()
        if state.phase is Phase.AUCTION:
            action = legal[1] if not actions and len(legal) > 1 else legal[0]
        else:
            action = rng.choice(legal)
        actions.append(action)
        state = state.apply(action)
    return start, actions, state


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(RULESET_IDS),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["never", "when_decided"]),
)
def test_the_analysis_agrees_with_the_deal_card_by_card(
    ruleset_id: str, seed: int, early_stop: str
) -> None:
    ruleset = find_ruleset(ruleset_id, {"early_stop": early_stop})
    start, actions, end = played_deal(ruleset, seed)
    analysis = analyse_play(ruleset, start.deal, actions)
    outcome = end.outcome()
    assert outcome is not None
    cards = [action for action in actions if isinstance(action, PlayCard)]
    if end.soloist is None or end.contract is None:
        assert analysis.makes_at_start is None
        assert analysis.verdicts == ()
        return
    assert [verdict.card for verdict in analysis.verdicts] == [card.card for card in cards]
    value = analysis.makes_at_start
    for verdict in analysis.verdicts:
        assert verdict.seat is not None
        assert verdict.for_soloist == (verdict.seat == end.soloist)
        assert (verdict.could == verdict.for_soloist) == value  # the position's value
        assert verdict.error == (verdict.could and not verdict.kept)
        assert (verdict.better != ()) == verdict.error
        assert verdict.card not in verdict.better
        value = verdict.makes_after
    assert value == outcome.made
    flips = len(analysis.errors)
    assert (analysis.makes_at_start is True) ^ (flips % 2 == 1) == outcome.made


def test_the_better_cards_are_legal_and_keep_the_goal_by_the_solver_asked_afresh() -> None:
    ruleset = find_ruleset("standard", {"early_stop": "never"})
    checked = 0
    for seed in range(400):
        start, actions, _ = played_deal(ruleset, seed)
        analysis = analyse_play(ruleset, start.deal, actions)
        state = start
        errors = {(v.trick, v.seat): v for v in analysis.errors}
        for action in actions:
            verdict = errors.get((len(state.tricks) + 1, state.to_act or 0))
            if isinstance(action, PlayCard) and verdict is not None and verdict.card == action.card:
                legal = [a.card for a in state.legal_actions() if isinstance(a, PlayCard)]
                assert set(verdict.better) <= set(legal)
                soloist, contract = state.soloist, state.contract
                assert soloist is not None
                assert contract is not None
                solver = DoubleDummy(ruleset, contract, soloist, state.trump)
                for card in verdict.better:
                    after = state.apply(PlayCard(card))
                    result = after.outcome()
                    if result is not None:  # the card ended the deal
                        assert result.made == verdict.for_soloist
                        continue
                    assert after.leader is not None
                    hands = [hand.mask for hand in after.hands]
                    trick = [c.index for _, c in after.current_trick]
                    makes = solver.makes(hands, after.tricks_won, after.leader, trick)
                    assert makes == verdict.for_soloist
                checked += 1
            state = state.apply(action)
        if checked >= 20:
            break
    assert checked >= 20


def test_a_passed_out_deal_has_no_play_to_judge() -> None:
    ruleset = find_ruleset("standard")
    deal = deal_cards(ruleset, 0, 5)
    analysis = analyse_play(ruleset, deal, [PASS] * ruleset.players)
    assert analysis.makes_at_start is None
    assert analysis.verdicts == ()


def test_an_illegal_action_is_a_replay_error_at_its_index() -> None:
    ruleset = find_ruleset("standard")
    start, actions, _ = played_deal(ruleset, 3)
    first_card = next(i for i, a in enumerate(actions) if isinstance(a, PlayCard))
    state = start
    for action in actions[:first_card]:
        state = state.apply(action)
    assert state.to_act is not None
    # A card of the next seat's hand: never legal for the seat to act.
    wrong = next(iter(state.hand((state.to_act + 1) % ruleset.players)))
    bad = [*actions[:first_card], PlayCard(wrong)]
    with pytest.raises(ReplayError) as caught:
        analyse_play(ruleset, start.deal, bad)
    assert caught.value.index == first_card

"""A seat's choices read off its own view agree with the whole deal's state: the same legal
actions, and for each illegal one the very reason ``DealState.illegal_reason`` gives, in every
ruleset and switch set, at every decision of random deals."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.engine.actions import NAME_TRUMPS, PASS, Bid, PlayCard
from brandeln.engine.dealing import deal_cards
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.seat_choices import NOT_OFFERED, SeatChoice, seat_choices
from brandeln.engine.state import DealState
from tests.engine.test_properties import seeds, switch_sets


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(RULESET_IDS), switch_sets, seeds, seeds)
def test_a_seats_choices_are_the_states_legal_actions_and_reasons(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = find_ruleset(ruleset_id, switches)
    state = DealState.new(ruleset, deal_cards(ruleset, deal_seed % ruleset.players, deal_seed))
    rng = random.Random(play_seed)
    while not state.is_over():
        seat = state.to_act
        assert seat is not None
        legal = state.legal_actions()
        choices = seat_choices(ruleset, state.view(seat), state.phase, legal)
        for choice in choices:
            assert choice.reason == state.illegal_reason(choice.action), (state, choice)
        assert [c.action for c in choices if c.legal] == legal  # canonical order kept
        kinds = {
            Phase.AUCTION: [PASS, *(Bid(c) for c in ruleset.contract_ids())],
            Phase.TRUMP: list(NAME_TRUMPS),
            Phase.PLAY: [PlayCard(card) for card in state.view(seat).hand_in_order()],
        }
        assert [c.action for c in choices] == kinds[state.phase]
        state = state.apply(legal[rng.randrange(len(legal))])


def test_an_action_the_referee_did_not_offer_stays_disabled() -> None:
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, 3, 5))
    view = state.view(0)
    choices = seat_choices(ruleset, view, Phase.AUCTION, [PASS])  # a referee offering less
    assert choices[0] == SeatChoice(PASS, None)
    assert {c.reason for c in choices[1:]} == {NOT_OFFERED}
    assert seat_choices(ruleset, view, Phase.DONE, []) == []

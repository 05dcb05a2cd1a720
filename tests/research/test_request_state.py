"""The OpenSpiel state a DecisionRequest stands for: at every decision of random deals of every
ruleset, a state with the request's seat to act and its legal actions, the seat's own cards
as dealt, and the others' played cards where they were played."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel", reason="install the research extra: pip install -e '.[research]'")

from brandeln.arena import codec
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.openspiel.request_state import state_for_request

DEALS = 6


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_decision_replays_to_the_same_seat_and_legal_actions(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(3)
    decisions = 0
    for seed in range(DEALS):
        state = DealState.new(
            ruleset, deal_cards(ruleset, dealer=seed % ruleset.players, seed=seed)
        )
        while not state.is_over():
            seat = state.to_act
            assert seat is not None
            request = codec.decision_request(
                1, state.phase, state.legal_actions(), state.view(seat), 1000, 1000, 0, 0
            ).request
            # state_for_request checks the seat to act and the legal actions itself.
            spiel = state_for_request(request, ruleset, rng)
            facts = spiel.observation_facts(seat)
            assert facts.hand == tuple(card.index for card in state.hand(seat))
            assert spiel.information_state_string(seat) == spiel.resample_from_infostate(
                seat, rng.random
            ).information_state_string(seat)
            decisions += 1
            state = state.apply(rng.choice(state.legal_actions()))
    assert decisions > DEALS * ruleset.players

"""The fast playout path agrees with DealState, deal for deal and action for action."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.engine.actions import Action
from brandeln.engine.cards import Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.playout import playout_deal, random_playout
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState

switch_sets = st.fixed_dictionaries(
    {
        "head_rule": st.sampled_from(["trick", "suit"]),
        "undertrump": st.sampled_from(["forced", "free"]),
        "early_stop": st.sampled_from(["rules", "when_decided", "never"]),
    }
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def slow_playout(state: DealState, rng: random.Random) -> tuple[DealState, list[Action]]:
    actions: list[Action] = []
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        actions.append(action)
        state = state.apply(action)
    return state, actions


def test_fast_path_agrees_with_deal_state_on_many_deals() -> None:
    for ruleset_id in RULESET_IDS:
        for options in ({}, {"early_stop": "never"}, {"early_stop": "when_decided"}):
            ruleset = find_ruleset(ruleset_id, options)
            for seed in range(60):
                deal = deal_cards(ruleset, seed % ruleset.players, seed)
                slow, slow_actions = slow_playout(DealState.new(ruleset, deal), random.Random(seed))
                fast_actions: list[Action] = []
                fast = playout_deal(ruleset, deal, random.Random(seed), record=fast_actions)
                assert fast_actions == slow_actions, (ruleset_id, options, seed)
                assert fast == slow.outcome(), (ruleset_id, options, seed)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(RULESET_IDS), switch_sets, seeds, seeds, st.integers(0, 40))
def test_random_playout_from_any_state_agrees(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int, prefix: int
) -> None:
    ruleset = find_ruleset(ruleset_id, switches)
    state = DealState.new(ruleset, deal_cards(ruleset, deal_seed % ruleset.players, deal_seed))
    walk = random.Random(deal_seed ^ play_seed)
    for _ in range(prefix):  # walk into the deal: auction, trump or mid-trick
        if state.is_over():
            break
        legal = state.legal_actions()
        state = state.apply(legal[walk.randrange(len(legal))])
    slow, slow_actions = slow_playout(state, random.Random(play_seed))
    fast_actions: list[Action] = []
    fast = random_playout(state, random.Random(play_seed), record=fast_actions)
    assert fast_actions == slow_actions
    assert fast == slow.outcome()


def test_playout_with_haferl_pool_matches() -> None:
    ruleset = find_ruleset("haferl")
    for seed in range(200):
        deal = deal_cards(ruleset, seed % 4, seed)
        slow, _ = slow_playout(DealState.new(ruleset, deal, pool=8), random.Random(seed))
        assert playout_deal(ruleset, deal, random.Random(seed), pool=8) == slow.outcome()


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_playout_facts_agree_with_the_ruleset_and_the_rules_core(ruleset_id: str) -> None:
    """The fast path reads the ruleset's fields, the seats and the duties from one table."""
    from brandeln.engine.playout import _FACTS  # noqa: PLC0415 - the internal table itself
    from brandeln.engine.seats import left_of_each  # noqa: PLC0415
    from brandeln.engine.trick_rules import duties_for  # noqa: PLC0415

    ruleset = find_ruleset(ruleset_id)
    facts = _FACTS.of(ruleset)
    assert facts.ruleset is ruleset
    assert (facts.players, facts.tricks, facts.early_stop, facts.holds, facts.contracts) == (
        ruleset.players,
        ruleset.tricks,
        ruleset.early_stop,
        ruleset.holds,
        ruleset.contracts,
    )
    assert facts.left == left_of_each(ruleset.players)
    assert facts.duties == tuple(duties_for(ruleset, trump) for trump in (*Suit, None))
    # Each packed pick: the suit mask's card count, then its indices low to high, 5 bits each.
    for duties, picks in zip(facts.duties, facts.picks, strict=True):
        assert len(picks) == len(duties.suit_indices_flat)
        for entry, indices in zip(picks, duties.suit_indices_flat, strict=True):
            assert entry & 0xF == len(indices)
            assert [entry >> 4 + 5 * i & 0x1F for i in range(len(indices))] == list(indices)
            assert entry >> 4 + 5 * len(indices) == 0

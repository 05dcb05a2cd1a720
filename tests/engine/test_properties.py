"""Property tests (Hypothesis) of engine invariants over random seeds, rulesets and switches."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid, PlayCard
from brandeln.engine.cards import CardSet, Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.errors import IllegalActionError, ReplayError
from brandeln.engine.events import CardPlayed, DealEnded, TrickTaken
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.phase import Phase
from brandeln.engine.replay import replay
from brandeln.engine.rulesets import RULESET_IDS, Ruleset, Scoring, find_ruleset
from brandeln.engine.state import DealState
from tests.engine.oracle import oracle_legal_in

ruleset_ids = st.sampled_from(RULESET_IDS)
switch_sets = st.fixed_dictionaries(
    {
        "head_rule": st.sampled_from(["trick", "suit"]),
        "undertrump": st.sampled_from(["forced", "free"]),
        "early_stop": st.sampled_from(["rules", "when_decided", "never"]),
    }
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
FEW = settings(max_examples=100, deadline=None)
MANY = settings(max_examples=300, deadline=None)


def make_ruleset(ruleset_id: str, switches: dict[str, str]) -> Ruleset:
    return find_ruleset(ruleset_id, switches)


def random_deal_state(ruleset: Ruleset, seed: int) -> DealState:
    return DealState.new(ruleset, deal_cards(ruleset, seed % ruleset.players, seed))


def choose(state: DealState, rng: random.Random) -> Action:
    """A random legal action; in the auction, pass three times in four, so that many deals
    reach long plays instead of ending in a high contract's sudden death."""
    legal = state.legal_actions()
    if state.phase is Phase.AUCTION and rng.random() < 0.75:
        return PASS
    return legal[rng.randrange(len(legal))]


def play_randomly(state: DealState, rng: random.Random) -> tuple[DealState, list[Action]]:
    actions: list[Action] = []
    while not state.is_over():
        action = choose(state, rng)
        actions.append(action)
        state = state.apply(action)
    return state, actions


def every_action(ruleset: Ruleset) -> list[Action]:
    """Every action that could ever be offered, plus a bid of an unknown contract."""
    bids: list[Action] = [PASS, *(Bid(c.id) for c in ruleset.contracts), Bid("grand")]
    return [*bids, *NAME_TRUMPS, *PLAY_CARDS]


@MANY
@given(ruleset_ids, switch_sets, seeds, seeds)
def test_every_legal_action_applies_and_every_other_raises(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = make_ruleset(ruleset_id, switches)
    state = random_deal_state(ruleset, deal_seed)
    rng = random.Random(play_seed)
    candidates = every_action(ruleset)
    steps = 0
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, "a live deal always offers an action"
        assert len(set(legal)) == len(legal)
        legal_set = set(legal)
        for action in candidates:
            if action in legal_set:
                assert state.is_legal(action)
                state.apply(action)
            else:
                assert not state.is_legal(action)
                with pytest.raises(IllegalActionError):
                    state.apply(action)
        if state.phase is Phase.PLAY:
            assert {a.card for a in legal} == oracle_legal_in(state)  # type: ignore[union-attr]
        state = state.apply(choose(state, rng))
        steps += 1
        assert steps <= 4 * ruleset.players * len(ruleset.contracts) + 1 + len(ruleset.deck())
    assert state.legal_actions() == []
    assert state.to_act is None


@MANY
@given(ruleset_ids, switch_sets, seeds, seeds)
def test_random_playouts_end_and_settle(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = make_ruleset(ruleset_id, switches)
    state, _ = play_randomly(random_deal_state(ruleset, deal_seed), random.Random(play_seed))
    outcome = state.outcome()
    assert outcome is not None
    assert len(outcome.payments) == ruleset.players
    assert outcome.tricks_played <= ruleset.tricks
    assert outcome.tricks_played == len(state.tricks)
    if ruleset.zero_sum:
        assert sum(outcome.payments) + outcome.pool_delta == 0  # R10.4
    if ruleset.scoring is Scoring.SOLOIST_ONLY and outcome.soloist is not None:
        contract = ruleset.contract(outcome.contract or "")
        assert outcome.payments[outcome.soloist] == (
            contract.value if outcome.made else -contract.value
        )
        assert sum(1 for p in outcome.payments if p) == 1
    # Every card is either played (in a trick) or unplayed, exactly once.
    played = CardSet(card for trick in state.tricks for card in trick.cards)
    unplayed = CardSet()
    for hand in outcome.unplayed:
        assert hand.isdisjoint(unplayed)
        unplayed = unplayed | hand
    assert played.isdisjoint(unplayed)
    assert (played | unplayed | outcome.blind) == ruleset.deck()


@FEW
@given(ruleset_ids, seeds, seeds)
def test_view_never_holds_another_seats_cards(
    ruleset_id: str, deal_seed: int, play_seed: int
) -> None:
    ruleset = find_ruleset(ruleset_id)
    state = random_deal_state(ruleset, deal_seed)
    rng = random.Random(play_seed)
    while True:
        for seat in range(ruleset.players):
            view = state.view(seat)
            hidden = state.deal.blind
            for other in range(ruleset.players):
                if other != seat:
                    hidden = hidden | state.hand(other)
            shown = view.hand | CardSet(view.current_trick)
            for trick in view.tricks:
                shown = shown | CardSet(trick.cards)
            assert view.hand == state.hand(seat)
            assert shown.isdisjoint(hidden)
            assert not hasattr(view, "hands")
        if state.is_over():
            break
        state = state.apply(choose(state, rng))


@MANY
@given(ruleset_ids, switch_sets, seeds, seeds, st.permutations(list(Suit)))
def test_permuted_deal_gives_the_same_outcome(
    ruleset_id: str,
    switches: dict[str, str],
    deal_seed: int,
    play_seed: int,
    images: list[Suit],
) -> None:
    ruleset = make_ruleset(ruleset_id, switches)
    permutation = SuitPermutation(images)
    state = random_deal_state(ruleset, deal_seed)
    mapped = DealState.new(ruleset, permutation.apply_deal(state.deal))
    rng = random.Random(play_seed)
    while not state.is_over():
        action = choose(state, rng)
        image = permutation.apply_action(action)
        assert image in set(mapped.legal_actions())
        state = state.apply(action)
        mapped = mapped.apply(image)
    assert mapped.is_over()
    a, b = state.outcome(), mapped.outcome()
    assert a is not None
    assert b is not None
    assert (a.payments, a.tricks_won, a.made, a.soloist, a.contract) == (
        b.payments,
        b.tricks_won,
        b.made,
        b.soloist,
        b.contract,
    )
    assert (a.trump is None and b.trump is None) or (
        a.trump is not None and permutation.apply_suit(a.trump) == b.trump
    )


@FEW
@given(ruleset_ids, seeds, st.integers(min_value=0, max_value=3))
def test_same_seed_same_deal(ruleset_id: str, seed: int, dealer: int) -> None:
    ruleset = find_ruleset(ruleset_id)
    dealer %= ruleset.players
    assert deal_cards(ruleset, dealer, seed) == deal_cards(ruleset, dealer, seed)


@MANY
@given(ruleset_ids, switch_sets, seeds, seeds)
def test_replaying_recorded_actions_reproduces_the_outcome(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = make_ruleset(ruleset_id, switches)
    start = random_deal_state(ruleset, deal_seed)
    final, actions = play_randomly(start, random.Random(play_seed))
    again = replay(ruleset, start.deal, actions)
    assert again.outcome() == final.outcome()
    assert again == final
    assert again.actions == tuple(actions)


@MANY
@given(ruleset_ids, seeds, seeds, st.floats(min_value=0, max_value=1, exclude_max=True))
def test_replay_reports_index_of_an_illegal_action(
    ruleset_id: str, deal_seed: int, play_seed: int, where: float
) -> None:
    ruleset = find_ruleset(ruleset_id)
    start = random_deal_state(ruleset, deal_seed)
    _, actions = play_randomly(start, random.Random(play_seed))
    index = int(where * len(actions))
    state = replay(ruleset, start.deal, actions[:index])
    wrong = next(a for a in every_action(ruleset) if not state.is_legal(a))
    broken = [*actions[:index], wrong, *actions[index + 1 :]]
    with pytest.raises(ReplayError) as error:
        replay(ruleset, start.deal, broken)
    assert error.value.index == index
    with pytest.raises(IllegalActionError) as direct:
        state.apply(wrong)
    assert error.value.reason == str(direct.value)


@FEW
@given(ruleset_ids, seeds, seeds)
def test_step_events_match_the_state(ruleset_id: str, deal_seed: int, play_seed: int) -> None:
    ruleset = find_ruleset(ruleset_id)
    state = random_deal_state(ruleset, deal_seed)
    rng = random.Random(play_seed)
    tricks: list[TrickTaken] = []
    cards = 0
    ended: list[DealOutcome] = []
    while not state.is_over():
        action = choose(state, rng)
        seat = state.to_act
        state, events = state.step(action)
        if isinstance(action, PlayCard):
            assert events[0] == CardPlayed(seat or 0, action.card)
        tricks.extend(e for e in events if isinstance(e, TrickTaken))
        cards += sum(1 for e in events if isinstance(e, CardPlayed))
        ended.extend(e for e in events if isinstance(e, DealEnded))
    assert tuple(tricks) == state.tricks
    assert cards == sum(len(t.cards) for t in tricks)
    outcome = state.outcome()
    assert outcome is not None
    assert len(ended) == 1
    assert DealEnded.of(outcome) == ended[0]


@MANY
@given(ruleset_ids, seeds, seeds)
def test_early_stop_never_changes_the_result(
    ruleset_id: str, deal_seed: int, play_seed: int
) -> None:
    """R9.2/R9.3: stopping early (sudden death, or when decided) settles exactly as playing
    the same cards to the end would."""
    never = find_ruleset(ruleset_id, {"early_stop": "never"})
    start = random_deal_state(never, deal_seed)
    full, actions = play_randomly(start, random.Random(play_seed))
    full_outcome = full.outcome()
    assert full_outcome is not None
    for mode in ("rules", "when_decided"):
        ruleset = find_ruleset(ruleset_id, {"early_stop": mode})
        state = DealState.new(ruleset, start.deal)
        for action in actions:
            if state.is_over():
                break
            state = state.apply(action)
        outcome = state.outcome()
        assert outcome is not None, mode
        assert (outcome.payments, outcome.made, outcome.pool_delta) == (
            full_outcome.payments,
            full_outcome.made,
            full_outcome.pool_delta,
        )
        assert outcome.tricks_played <= full_outcome.tricks_played

"""The OpenSpiel game ``brandeln``: OpenSpiel's own checks, the parameters, the tensors, the
returns, serialization, ``resample_from_infostate`` and OpenSpiel's search bots."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice, product
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip(
    "pyspiel", reason="install the research extra: pip install -e '.[research]'"
)

from brandeln.engine.cards import SUIT_MASKS  # noqa: E402
from brandeln.engine.rulesets import RULESET_IDS, SWITCHES, find_ruleset  # noqa: E402
from brandeln.engine.seats import seat_after  # noqa: E402
from brandeln.engine.state import DealState  # noqa: E402
from brandeln.engine_encoding import observation_of_state  # noqa: E402
from brandeln.openspiel import GAME_NAME  # noqa: E402 - after the skip
from brandeln.openspiel.hidden_hands import count_deals, sample_hidden_hands  # noqa: E402
from brandeln.openspiel.limits import game_limits, longest_auction  # noqa: E402
from brandeln.sdk.encoding import (  # noqa: E402
    CARD_COUNT,
    INFORMATION_STATE_LAYOUT,
    INFORMATION_STATE_SIZE,
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    information_state_tensor,
    observation_tensor,
)

ZERO_SUM = {"standard", "three-player", "classic-1860", "classic-1905"}


def _load(ruleset: str = "standard", **params: Any) -> Any:
    settings = ",".join(f"{k}={v}" for k, v in {"ruleset": ruleset, **params}.items())
    return pyspiel.load_game(f"{GAME_NAME}({settings})")


def _walk(game: Any, seed: int) -> Iterator[Any]:
    """Every state of one random game, the initial one first (each a copy of its own)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    yield state.clone()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        yield state.clone()


def _state_in_play(moves: int, **params: Any) -> Any:
    """A player's node ``moves`` actions into a random game played to its last trick."""
    game = _load(**{"early_stop": "never", **params})
    for seed in range(100):
        for state in _walk(game, seed):
            if len(state.history()) == moves and not state.is_terminal():
                return state
    raise AssertionError(f"no random game reached {moves} actions")


def _deal(state: Any) -> DealState:
    deal = state._now.deal
    assert deal is not None
    return deal  # type: ignore[no-any-return]


def test_importing_the_package_registers_the_game() -> None:
    assert GAME_NAME in pyspiel.registered_names()
    assert str(pyspiel.load_game(GAME_NAME)).startswith("brandeln(")


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_random_games_pass_openspiels_own_checks(ruleset: str) -> None:
    # Legal actions sorted and masked, chance outcomes, clones, serialization, tensors'
    # sizes, returns within the bounds and summing as the utility type says.
    pyspiel.random_sim_test(_load(ruleset), num_sims=2, serialize=True, verbose=False)


def test_the_ruleset_and_every_switch_are_parameters_with_the_engines_defaults() -> None:
    game = _load("russian", undertrump="free", early_stop="never", head_rule="suit")
    assert game.table.ruleset == find_ruleset(
        "russian", {"undertrump": "free", "early_stop": "never", "head_rule": "suit"}
    )
    parameters = pyspiel.load_game(GAME_NAME).get_parameters()
    assert set(SWITCHES) | {"ruleset", "dealer", "pool"} == set(parameters)
    assert pyspiel.load_game(GAME_NAME).table.ruleset == find_ruleset("standard")


@pytest.mark.parametrize(
    "params",
    [{"ruleset": "whist"}, {"undertrump": "never"}, {"dealer": 4}, {"pool": 4}],
)
def test_a_parameter_the_engine_refuses_is_refused(params: dict[str, Any]) -> None:
    with pytest.raises(Exception, match=r"whist|never|dealer|pool"):
        _load(**{"ruleset": "standard", **params})


def test_the_dealers_left_bids_first_and_a_haferl_pool_raises_the_stakes() -> None:
    state = _load(dealer=2).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 3
    assert _load("haferl", pool=8).max_utility() == _load("haferl").max_utility() + 8


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_game_info_comes_from_the_encoding_and_the_engines_settlement(ruleset: str) -> None:
    game = _load(ruleset)
    limits = game_limits(find_ruleset(ruleset))
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == CARD_COUNT
    assert game.num_players() == find_ruleset(ruleset).players
    assert (game.min_utility(), game.max_utility()) == (limits.min_utility, limits.max_utility)
    assert game.max_game_length() == limits.max_game_length
    zero_sum = game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert zero_sum == (ruleset in ZERO_SUM)


def test_chance_deals_each_undealt_card_with_equal_probability() -> None:
    state = _load("three-player").new_initial_state()
    dealt = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert [card for card, _ in outcomes] == state.legal_actions()
        assert {p for _, p in outcomes} == {1 / (28 - dealt)}
        state.apply_action(outcomes[-1][0])
        dealt += 1
    assert dealt == 28  # the blind's seven cards too


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_returns_are_the_engines_payments_within_the_bounds(ruleset: str) -> None:
    game = _load(ruleset)
    for seed in range(12):
        *_, end = _walk(game, seed)
        outcome = _deal(end).outcome()
        assert outcome is not None
        assert end.returns() == [float(chips) for chips in outcome.payments]
        assert all(game.min_utility() <= r <= game.max_utility() for r in end.returns())
        if ruleset in ZERO_SUM:
            assert sum(end.returns()) == 0


def test_legal_actions_from_python_agree_with_openspiels_own_path() -> None:
    # Python callers reach the state's own legal_actions and is_chance_node; C++ callers the
    # base class, which asks _legal_actions and current_player.
    for state in _walk(_load(), seed=5):
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        for player in range(state.num_players()):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)


def test_an_illegal_action_is_refused_with_the_engines_reason() -> None:
    state = _load().new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(Exception, match="not a bid in 'standard'"):
        state.apply_action(1)  # "three": a russian contract


@pytest.mark.parametrize("ruleset", ["standard", "three-player", "russian-32"])
def test_tensors_are_the_encodings_of_the_engines_view(ruleset: str) -> None:
    game = _load(ruleset)
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    assert game.information_state_tensor_shape() == [INFORMATION_STATE_SIZE]
    for state in _walk(game, seed=2):
        if state.is_chance_node():
            continue
        for seat in range(game.num_players()):
            facts = observation_of_state(_deal(state), seat)
            assert state.observation_tensor(seat) == pytest.approx(observation_tensor(facts))
            assert state.information_state_tensor(seat) == pytest.approx(
                information_state_tensor(facts)
            )


def test_the_observers_named_pieces_follow_the_encodings_layout() -> None:
    game = _load()
    for perfect_recall, layout in ((False, OBSERVATION_LAYOUT), (True, INFORMATION_STATE_LAYOUT)):
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall))
        assert [(n, a.shape) for n, a in observer.dict.items()] == [
            (part.name, part.shape) for part in layout.values()
        ]


def test_during_the_deal_a_seat_sees_only_its_own_cards_so_far() -> None:
    game = _load()
    state = game.new_initial_state()
    for card in state.legal_actions()[:6]:  # rows 0 1 2 3 0 1: seat 1 (forehand) has two
        state.apply_action(card)
    text = state.information_state_string(1)
    hand = OBSERVATION_LAYOUT["hand"]
    tensor = np.array(state.observation_tensor(1))
    assert "deal" in text
    assert tensor[hand.offset : hand.offset + hand.length].sum() == 2


def test_without_private_information_the_hand_is_left_out() -> None:
    game = _load()
    public = game.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    state = next(islice(_walk(game, seed=4), 34, None))
    public.set_from(state, 0)
    assert not public.dict["hand"].any()
    with pytest.raises(ValueError, match=r"R12\.1"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            )
        )


@pytest.mark.parametrize("ruleset", ["standard", "three-player", "haferl"])
def test_serialization_round_trips_at_every_point_of_a_game(ruleset: str) -> None:
    game = _load(ruleset, pool=3) if ruleset == "haferl" else _load(ruleset)
    for state in _walk(game, seed=9):
        copy_game, copy = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state)
        )
        assert str(copy_game) == str(game)
        assert (str(copy), copy.history()) == (str(state), state.history())
        if not state.is_chance_node():
            assert copy.information_state_string(0) == state.information_state_string(0)
            assert copy.returns() == state.returns()


def _voids_shown(deal: DealState) -> dict[int, int]:
    """Per seat, the suits it failed to follow (a mask of their cards)."""
    players = deal.ruleset.players
    shown: dict[int, int] = {}
    for trick in deal.tricks:
        led = trick.cards[0].suit
        for place, card in enumerate(trick.cards[1:], start=1):
            if card.suit != led:
                seat = seat_after(trick.leader, place, players)
                shown[seat] = shown.get(seat, 0) | SUIT_MASKS[led]
    return shown


@settings(max_examples=25, deadline=None)
@given(ruleset=st.sampled_from(RULESET_IDS), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 80))
def test_a_resampled_state_looks_the_same_to_the_player_and_is_a_legal_deal(
    ruleset: str, seed: int, cut: int
) -> None:
    game = _load(ruleset, early_stop="never")  # deals played out: deeper positions
    states = list(_walk(game, seed))
    state = states[min(cut, len(states) - 1)]
    if state.is_terminal():
        state = states[-2]
    player = 0 if state.is_chance_node() else state.current_player()
    rng = random.Random(seed)
    dealt = state._now.dealt
    for _ in range(3):
        # Every action is replayed on the new cards through the engine, which would refuse
        # one that the new hands made illegal.
        other = state.resample_from_infostate(player, rng.random)
        assert other.history()[dealt:] == state.history()[dealt:]
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.information_state_tensor(player) == state.information_state_tensor(player)
        assert other.observation_tensor(player) == state.observation_tensor(player)
        if not state.is_chance_node():
            assert other.legal_actions() == state.legal_actions()
            for seat, suits in _voids_shown(_deal(state)).items():
                assert not _deal(other).hand(seat).mask & suits


def test_resampling_reaches_other_deals_and_keeps_the_public_record() -> None:
    state = _state_in_play(moves=40)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = [state.resample_from_infostate(player, sampler) for _ in range(8)]
    assert len({str(other) for other in others}) > 1
    played = len(state.history()) - 28
    assert all(other.history()[28:] == state.history()[28:] for other in others)
    assert played > 0


def _brute_force(cards: list[int], room: list[int], forbidden: list[int]) -> int:
    return sum(
        1
        for holders in product(range(len(room)), repeat=len(cards))
        if all(holders.count(h) == r for h, r in enumerate(room))
        and not any(forbidden[h] >> c & 1 for c, h in zip(cards, holders, strict=True))
    )


@settings(max_examples=40, deadline=None)
@given(
    room=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    forbidden=st.lists(st.integers(0, 2**7 - 1), min_size=3, max_size=3),
)
def test_counting_the_deals_that_fit_agrees_with_enumerating_them(
    room: list[int], forbidden: list[int]
) -> None:
    cards = list(range(sum(room)))
    assert count_deals(cards, room, forbidden[: len(room)]) == _brute_force(
        cards, room, forbidden[: len(room)]
    )


def test_sampling_the_hidden_hands_reaches_every_deal_that_fits() -> None:
    # Seat 0 observes; after a few random cards, the other hands are drawn many times: every
    # draw fits the play (seen by replaying it) and no consistent card is never given out.
    state = _state_in_play(moves=36)
    deal = _deal(state)
    rng = random.Random(1)
    seen: set[tuple[int, ...]] = set()
    for _ in range(200):
        hands = sample_hidden_hands(deal, 0, rng.random)
        assert hands[0] == deal.hand(0).mask
        assert sum(hand.bit_count() for hand in hands) == sum(len(h) for h in deal.hands)
        seen.add(tuple(hands))
    assert len(seen) > 100


def _play_with(bots: list[Any], game: Any, seed: int) -> Any:
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


@pytest.mark.parametrize("ruleset", ["standard", "three-player"])
def test_openspiels_ismcts_bot_plays_whole_games(ruleset: str) -> None:
    from open_spiel.python.algorithms import ismcts, mcts  # noqa: PLC0415 - after the skip

    game = _load(ruleset)
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
        for _ in range(game.num_players())
    ]
    end = _play_with(bots, game, seed=3)
    assert end.is_terminal()
    assert len(end.returns()) == game.num_players()


def test_openspiels_mcts_bot_plays_a_whole_game() -> None:
    from open_spiel.python.algorithms import mcts  # noqa: PLC0415 - after the skip

    game = _load("russian")
    rng = np.random.RandomState(4)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=rng) for _ in range(4)]
    assert _play_with(bots, game, seed=4).is_terminal()


def test_the_longest_auction_bound_holds_on_random_auctions() -> None:
    for ruleset in RULESET_IDS:
        bound = longest_auction(find_ruleset(ruleset))
        for seed in range(20):
            *_, end = _walk(_load(ruleset), seed)
            assert len(_deal(end).auction) <= bound

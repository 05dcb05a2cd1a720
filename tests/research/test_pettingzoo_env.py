"""The PettingZoo AEC environment: PettingZoo's own API and seed tests on every ruleset and both
episode kinds, and the environment held to the engine: its masks, its deals, its rewards."""

from __future__ import annotations

import doctest
import functools
import importlib
import random
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="install the research extra: pip install -e '.[research]'")

from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from brandeln.arena.codec.values import action_to_choice
from brandeln.engine.dealing import deal_cards
from brandeln.engine.errors import IllegalActionError
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine_encoding import observation_of_state
from brandeln.pettingzoo import BrandelnAEC, agent_name, env, raw_env
from brandeln.sdk.encoding import action_index, observation_tensor
from brandeln.sdk.notation import choice_text

# PettingZoo's tests iterate this many cycles (a cycle: one step per agent): enough for several
# deals, and for the whole of a short match.
API_CYCLES = 60
SEED_CYCLES = 40
# A short match, so a test sees its end (the russian rulesets' default is 120 deals).
MATCH_DEALS = 2
EPISODES = ("deal", "match")


def _options(ruleset_id: str, episode: str) -> dict[str, Any]:
    deals = MATCH_DEALS if episode == "match" else None
    return {"ruleset": ruleset_id, "episode": episode, "deals": deals}


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_passes_pettingzoos_api_test(ruleset_id: str, episode: str) -> None:
    with warnings.catch_warnings():
        # PettingZoo warns of a dict observation (and its space) for every game outside its
        # own list of card games; the dict is its card games' convention.
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        api_test(env(**_options(ruleset_id, episode)), num_cycles=API_CYCLES)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_passes_pettingzoos_seed_test(ruleset_id: str, episode: str) -> None:
    seed_test(functools.partial(env, **_options(ruleset_id, episode)), num_cycles=SEED_CYCLES)


def _play(game: BrandelnAEC, seed: int, rng: random.Random) -> Iterator[BrandelnAEC]:
    """Random masked play of one episode; yields the environment before every live step."""
    game.reset(seed=seed)
    for _agent in game.agent_iter():
        observation, _, termination, truncation, _ = game.last()
        if termination or truncation:
            game.step(None)
            continue
        yield game
        legal = [int(i) for i in observation["action_mask"].nonzero()[0]]
        game.step(rng.choice(legal))


rulesets = st.sampled_from(RULESET_IDS)
seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=15, deadline=None)
@given(ruleset_id=rulesets, seed=seeds)
def test_the_mask_is_the_engines_legal_actions_at_every_step(ruleset_id: str, seed: int) -> None:
    # The indices a bot reads off its request's legal choices (the SDK's path: choice text ->
    # index) are the ones the mask holds: a policy trained here reads masks in play alike.
    game = raw_env(ruleset=ruleset_id)
    for step in _play(game, seed, random.Random(seed)):
        state = step.deal_state
        expected = {action_index(choice_text(action_to_choice(a))) for a in state.legal_actions()}
        for seat, agent in enumerate(step.possible_agents):
            mask = step.observe(agent)["action_mask"]
            ones = {int(i) for i in mask.nonzero()[0]}
            assert ones == (expected if seat == state.to_act else set())


@settings(max_examples=10, deadline=None)
@given(ruleset_id=rulesets, seed=seeds)
def test_the_observation_is_the_encodings_tensor_of_the_seats_view(
    ruleset_id: str, seed: int
) -> None:
    game = raw_env(ruleset=ruleset_id)
    for step in _play(game, seed, random.Random(seed)):
        seat = step.deal_state.to_act
        assert seat is not None
        observed = step.observe(agent_name(seat))["observation"]
        assert observed.tolist() == observation_tensor(observation_of_state(step.deal_state, seat))


@settings(max_examples=15, deadline=None)
@given(ruleset_id=rulesets, seed=seeds)
def test_a_deal_is_the_engines_deal_played_with_the_same_actions(
    ruleset_id: str, seed: int
) -> None:
    game = raw_env(ruleset=ruleset_id)
    rng = random.Random(seed)
    game.reset(seed=seed)
    dealt = game.deal_state.deal
    ruleset = find_ruleset(ruleset_id)
    assert dealt.seed is not None
    assert dealt == deal_cards(ruleset, dealt.dealer, dealt.seed)  # R3.1: the seed deals it
    state = DealState.new(ruleset, dealt)
    for _ in range(len(ruleset.deck()) + ruleset.players * len(ruleset.contracts) * 2):
        if all(game.terminations.values()):
            break
        legal = game.legal_actions()
        index = rng.choice(sorted(legal))
        state = state.apply(legal[index])
        game.step(index)
    assert all(game.terminations.values()), "a deal episode ends when the deal does"
    assert game.last_deal is not None
    assert game.last_deal.outcome == state.outcome()
    assert [game._cumulative_rewards[agent_name(s)] for s in range(ruleset.players)] == list(
        game.last_deal.rewards
    )


@settings(max_examples=15, deadline=None)
@given(ruleset_id=rulesets, seed=seeds, deals=st.integers(min_value=1, max_value=4))
def test_rewards_are_each_deals_chips_and_add_up_to_the_final_balances(
    ruleset_id: str, seed: int, deals: int
) -> None:
    ruleset = find_ruleset(ruleset_id)
    totals = [0.0] * ruleset.players
    seen = None
    game = raw_env(ruleset=ruleset_id, episode="match", deals=deals)
    game.reset(seed=seed)
    rng = random.Random(seed)
    while not all(game.terminations.values()):
        game.step(rng.choice(sorted(game.legal_actions())))
        ended = game.last_deal
        if ended is not seen and ended is not None:
            seen = ended
            rewards = [game.rewards[agent_name(s)] for s in range(ruleset.players)]
            assert rewards == [float(r) for r in ended.rewards]
            if ruleset.zero_sum:  # R10.4, with the Haferl pool: what goes in comes back out
                pool_back = game.episode.match.pool if game.episode.is_over else 0
                assert sum(rewards) == -ended.outcome.pool_delta + pool_back
            else:
                assert ended.rewards == ended.outcome.payments  # russian: the soloist's score
        totals = [t + game.rewards[agent_name(s)] for s, t in enumerate(totals)]
    match = game.episode.match
    assert totals == [float(b) for b in match.final_balances()]
    if ruleset.zero_sum:
        assert sum(totals) == 0


def test_a_passed_out_haferl_deal_pays_into_the_pool_and_the_match_end_gives_it_back() -> None:
    game = raw_env(ruleset="haferl", episode="match", deals=2)
    game.reset(seed=11)
    players = game.ruleset.players
    for _ in range(players):  # everyone passes (index 0): each pays 1 into the pool
        game.step(0)
    assert game.last_deal is not None
    assert game.last_deal.rewards == (-1,) * players
    assert game.episode.match.pool == players
    for _ in range(players):
        game.step(0)
    assert game.last_deal.rewards == (-1 + 2,) * players  # the pool of 8 comes back in shares
    assert all(game.terminations.values())


@pytest.mark.parametrize(
    ("ruleset_id", "next_phase"),
    [
        ("standard", "trump"),  # R6.1 Muss-Spiel: forehand names trump for a brandle
        ("classic-1860", "over"),  # thrown in: nobody scores
        ("russian", "play"),  # free play: no trump, the dealer leads
    ],
)
def test_a_pass_out_goes_on_as_the_engine_says(ruleset_id: str, next_phase: str) -> None:
    game = raw_env(ruleset=ruleset_id, dealer=3)
    game.reset(seed=6)
    for _ in range(game.ruleset.players):
        game.step(action_index("pass"))
    state = game.deal_state
    if next_phase == "over":
        assert all(game.terminations.values())
        assert game.last_deal is not None
        assert game.last_deal.rewards == (0,) * game.ruleset.players
        return
    assert state.phase.value == next_phase
    leader = 0 if next_phase == "trump" else 3  # forehand of dealer 3, or the dealer
    assert game.agent_selection == agent_name(leader)
    legal = {str(action) for action in game.legal_actions().values()}
    if next_phase == "trump":
        assert legal == {"trump C", "trump S", "trump H", "trump D"}
    else:  # the leader may lead any card (R8.2)
        assert legal == {str(card) for card in state.hand(leader)}


def test_a_match_episode_plays_its_deals_the_dealer_passing_left() -> None:
    game = raw_env(ruleset="standard", episode="match", deals=3, dealer=2)
    game.reset(seed=4)
    dealers = [game.deal_state.dealer]
    rng = random.Random(4)
    while not all(game.terminations.values()):
        number = game.episode.deal_number
        game.step(rng.choice(sorted(game.legal_actions())))
        if game.episode.deal_number != number:
            dealers.append(game.deal_state.dealer)
    assert dealers == [2, 3, 0]  # R1.2
    assert game.episode.match.deal_number == 3


def test_the_same_seed_deals_the_same_cards_and_another_seed_others() -> None:
    game = raw_env(ruleset="standard")
    game.reset(seed=21)
    first = game.deal_state.deal
    game.reset(seed=21)
    assert game.deal_state.deal == first
    game.reset(seed=22)
    assert game.deal_state.deal != first
    game.reset()  # no seed: the next deal of the same stream
    assert game.deal_state.deal != first


def test_an_illegal_action_raises_the_engines_error_naming_the_legal_ones() -> None:
    game = raw_env(ruleset="standard")
    game.reset(seed=3)
    card = action_index("HJ")  # a card in the auction
    with pytest.raises(IllegalActionError, match=r"action \d+ \(HJ\) is not legal .*0 \(pass\)"):
        game.step(card)


def test_a_deal_episode_is_one_deal() -> None:
    with pytest.raises(ValueError, match="a deal episode is one deal"):
        raw_env(episode="deal", deals=3)


def test_ansi_render_shows_the_table_and_human_render_prints_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = raw_env(ruleset="three-player", render_mode="ansi")
    game.reset(seed=8)
    text = game.render()
    assert isinstance(text, str)
    for seat in range(3):
        assert f"seat {seat}: " in text
    shown = raw_env(ruleset="three-player", render_mode="human")
    shown.reset(seed=8)
    shown.step(0)
    assert "three-player, deal 1 of 1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name",
    [
        "brandeln.pettingzoo",
        "brandeln.pettingzoo.aec",
        "brandeln.pettingzoo.episode",
        "brandeln.pettingzoo.render",
        "brandeln.pettingzoo.spaces",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

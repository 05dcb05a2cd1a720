"""The one encoding: the action index, the observation facts from both sides, the tensors."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.arena.codec.snapshots import decision_request
from brandeln.arena.codec.values import action_to_choice, ruleset_to_pb
from brandeln.engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid
from brandeln.engine.cards import CARDS
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine_encoding import encoding_from_engine, observation_of_state
from brandeln.sdk import encoding, notation
from brandeln.sdk.encoding import (
    CARD_OFFSET,
    INFORMATION_STATE_LAYOUT,
    INFORMATION_STATE_SIZE,
    MAX_AUCTION,
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    PASS_INDEX,
    TRUMP_OFFSET,
    EncodingError,
    Observation,
    action_index,
    action_kind,
    action_of,
    card_index,
    information_state_ones,
    information_state_tensor,
    legal_mask,
    observation_ones,
    observation_tensor,
)
from brandeln.sdk.observation import legal_action_indices, observation_from_request
from tests.research.positions import random_positions

ROOT = Path(__file__).resolve().parents[2]


def test_the_rulesets_are_the_engines_in_its_order() -> None:
    assert encoding.RULESET_IDS == RULESET_IDS


def test_every_ladder_ascends_in_the_action_space() -> None:
    for ruleset_id in RULESET_IDS:
        indices = [action_index(c) for c in find_ruleset(ruleset_id).contract_ids()]
        assert indices == sorted(indices), ruleset_id
        assert all(action_kind(i) == "bid" and i != PASS_INDEX for i in indices)


def test_the_action_space_holds_every_action_once() -> None:
    texts = [action_of(i) for i in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    contracts = {c for r in RULESET_IDS for c in find_ruleset(r).contract_ids()}
    assert set(texts[:TRUMP_OFFSET]) == {"pass"} | contracts
    assert [action_index(t) for t in texts] == list(range(NUM_ACTIONS))


def test_engine_actions_and_protocol_choices_share_one_index() -> None:
    engine_actions: list[Action] = [PASS, *NAME_TRUMPS, *PLAY_CARDS]
    engine_actions += [Bid(c) for r in RULESET_IDS for c in find_ruleset(r).contract_ids()]
    for action in engine_actions:
        by_engine_text = action_index(str(action))  # "trump H" for naming trump
        by_choice_text = action_index(notation.choice_text(action_to_choice(action)))  # "H"
        assert by_engine_text == by_choice_text
        assert action_of(by_engine_text) == notation.choice_text(action_to_choice(action))


def test_cards_are_indexed_as_the_engine_indexes_them() -> None:
    for card in CARDS:
        assert card_index(str(card)) == card.index
        assert action_index(str(card)) == CARD_OFFSET + card.index
    assert (encoding.SUIT_LETTERS, encoding.RANK_LETTERS) == (
        notation.SUIT_LETTERS,
        notation.RANK_LETTERS,
    )


@pytest.mark.parametrize("text", ["", "trump", "trump X", "trump HJ", "HX", "grand", "pass pass"])
def test_a_text_outside_the_encoding_is_refused(text: str) -> None:
    with pytest.raises(EncodingError):
        action_index(text)


def test_texts_are_read_case_insensitively_where_notation_allows() -> None:
    assert action_index("PASS") == action_index("pass")
    assert action_index("hj") == action_index("HJ")
    assert action_index("Trump h") == action_index("H")


def test_legal_mask_marks_exactly_the_legal_indices() -> None:
    mask = legal_mask([0, 5, 48])
    assert len(mask) == NUM_ACTIONS
    assert [i for i, bit in enumerate(mask) if bit] == [0, 5, 48]
    with pytest.raises(EncodingError):
        legal_mask([NUM_ACTIONS])


def test_the_longest_auction_of_every_ruleset_fits() -> None:
    # R5.2/R5.3: each level bid once and held by at most N - 1 seniors; each seat passes once.
    for ruleset_id in RULESET_IDS:
        ruleset = find_ruleset(ruleset_id)
        levels, players = len(ruleset.contracts), ruleset.players
        longest = players * (levels + 1) if ruleset.holds else levels + players
        assert longest <= MAX_AUCTION, ruleset_id


def _request_facts(state: DealState, seat: int) -> Observation:
    """The SDK's facts for ``seat``, from the DecisionRequest the arena's codec would send."""
    message = decision_request(1, state.phase, state.legal_actions(), state.view(seat), 0, 0, 0, 0)
    return observation_from_request(message.request, ruleset_to_pb(state.ruleset))


@settings(max_examples=60, deadline=None)
@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=st.integers(0, 2**32 - 1))
def test_both_adapters_give_the_same_facts_at_every_decision(ruleset_id: str, seed: int) -> None:
    for state in random_positions(ruleset_id, seed):
        if state.is_over():
            break
        for seat in range(state.ruleset.players):
            engine_facts = observation_of_state(state, seat)
            assert _request_facts(state, seat) == engine_facts
            assert engine_facts.passed_out == state.passed_out
            assert len(engine_facts.auction) <= MAX_AUCTION
        assert state.to_act is not None
        message = decision_request(
            1, state.phase, state.legal_actions(), state.view(state.to_act), 0, 0, 0, 0
        )
        assert legal_action_indices(message.request) == [
            action_index(str(action)) for action in state.legal_actions()
        ]


def test_the_view_alone_tells_the_phase() -> None:
    for ruleset_id in RULESET_IDS:
        for state in random_positions(ruleset_id, seed=3):
            view = state.view(0)
            assert encoding_from_engine(view, state.ruleset).phase == state.phase.value


def test_the_hand_as_dealt_is_the_hand_and_the_cards_played() -> None:
    for ruleset_id in RULESET_IDS:
        for state in random_positions(ruleset_id, seed=11):
            for seat in range(state.ruleset.players):
                facts = observation_of_state(state, seat)
                assert facts.dealt() == tuple(card.index for card in state.deal.hands[seat])


def _one_hot_slices_hold_one_one(ones: list[int], layout: dict[str, encoding.Slice]) -> None:
    for name in ("ruleset", "phase", "position"):
        part = layout[name]
        assert sum(1 for i in ones if part.offset <= i < part.offset + part.length) == 1, name


@settings(max_examples=30, deadline=None)
@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=st.integers(0, 2**32 - 1))
def test_tensors_follow_their_layouts(ruleset_id: str, seed: int) -> None:
    for state in random_positions(ruleset_id, seed):
        facts = observation_of_state(state, 0)
        obs, info = observation_ones(facts), information_state_ones(facts)
        assert len(set(obs)) == len(obs)
        assert all(0 <= i < OBSERVATION_SIZE for i in obs)
        assert len(set(info)) == len(info)
        assert all(0 <= i < INFORMATION_STATE_SIZE for i in info)
        _one_hot_slices_hold_one_one(obs, dict(OBSERVATION_LAYOUT))
        _one_hot_slices_hold_one_one(info, dict(INFORMATION_STATE_LAYOUT))
        hand = OBSERVATION_LAYOUT["hand"]
        tensor = observation_tensor(facts)
        assert len(tensor) == OBSERVATION_SIZE
        assert sum(tensor[hand.offset : hand.offset + hand.length]) == len(state.hand(0))
        assert len(information_state_tensor(facts)) == INFORMATION_STATE_SIZE


def test_the_information_state_keeps_the_order_of_the_play() -> None:
    # Two tricks with the same cards led by different seats differ in the information state.
    first = Observation("standard", 4, "play", 0, (), (), trick_leader=0, current_trick=(1, 2))
    second = Observation("standard", 4, "play", 0, (), (), trick_leader=0, current_trick=(2, 1))
    assert information_state_ones(first) != information_state_ones(second)
    assert encoding.information_state_string(first) != encoding.information_state_string(second)


def _docstring_rows(title: str) -> list[tuple[str, int, int]]:
    doc = encoding.__doc__ or ""
    section = doc.split(title, 1)[1].split("\n\n", 2)[1]
    return [
        (name, int(offset), int(length))
        for name, offset, length in re.findall(r"^(\w+)\s+(\d+)\s+(\d+)\s", section, re.M)
    ]


@pytest.mark.parametrize(
    ("title", "layout"),
    [
        ("Observation tensor", OBSERVATION_LAYOUT),
        ("Information-state tensor", INFORMATION_STATE_LAYOUT),
    ],
)
def test_the_documented_layout_is_the_layout(title: str, layout: dict[str, encoding.Slice]) -> None:
    assert _docstring_rows(title) == [(s.name, s.offset, s.length) for s in layout.values()]


def _imported(path: Path) -> set[str]:
    """The full names of the modules ``path`` imports (``brandeln.engine.state``)."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


SDK = ROOT / "sdk" / "python" / "brandeln" / "sdk"


def test_the_encoding_imports_only_the_standard_library() -> None:
    imported = _imported(SDK / "encoding.py")
    assert imported
    assert {name.split(".")[0] for name in imported} <= set(sys.stdlib_module_names)


@pytest.mark.parametrize("module", ["observation.py", "policy.py"])
def test_the_sdk_adapters_import_only_the_sdk_and_the_standard_library(module: str) -> None:
    # A bot seating a policy installs brandeln-bot alone: no engine, no numpy, no arena.
    outside = {
        name
        for name in _imported(SDK / module)
        if name.split(".")[0] not in sys.stdlib_module_names
        and not name.startswith(("brandeln.sdk", "brandeln.v1"))
    }
    assert outside == set()

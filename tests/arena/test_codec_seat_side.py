"""What a seat receives reads back into the very engine values the referee wrote: the view, the
legal choices and the phase of every request of random deals, in every ruleset; and a request
that does not read is a CodecError, never a wrong value."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.arena.codec import decision_request, ruleset_to_pb
from brandeln.arena.codec.seat_side import (
    legal_from_pb,
    phase_from_pb,
    ruleset_from_pb,
    view_from_pb,
)
from brandeln.arena.codec.values import CodecError
from brandeln.engine.dealing import deal_cards
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.v1 import cards_pb2
from tests.engine.test_properties import seeds, switch_sets


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(RULESET_IDS), switch_sets, seeds, seeds)
def test_every_request_reads_back_as_the_values_it_was_written_from(
    ruleset_id: str, switches: dict[str, str], deal_seed: int, play_seed: int
) -> None:
    ruleset = find_ruleset(ruleset_id, switches)
    assert ruleset_from_pb(ruleset_to_pb(ruleset)) == ruleset
    state = DealState.new(ruleset, deal_cards(ruleset, deal_seed % ruleset.players, deal_seed))
    rng = random.Random(play_seed)
    while not state.is_over():
        seat = state.to_act
        assert seat is not None
        legal = state.legal_actions()
        view = state.view(seat)
        message = decision_request(7, state.phase, legal, view, 100, 200, 0, 0).request
        phase = phase_from_pb(message.phase)
        assert phase is state.phase
        assert legal_from_pb(message.legal, phase) == tuple(legal)
        assert view_from_pb(message.view, ruleset, phase) == view
        state = state.apply(legal[rng.randrange(len(legal))])


def test_what_does_not_read_is_a_codec_error() -> None:
    with pytest.raises(CodecError, match="phase 0"):
        phase_from_pb(cards_pb2.PHASE_UNSPECIFIED)
    with pytest.raises(CodecError, match="unknown ruleset"):
        ruleset_from_pb(cards_pb2.Ruleset(id="no-such-ruleset"))
    with pytest.raises(CodecError, match="asks for a card"):
        legal_from_pb([cards_pb2.Choice(trump=cards_pb2.SUIT_CLUBS)], Phase.PLAY)
    card = cards_pb2.Card(suit=cards_pb2.Suit.ValueType(9), rank=cards_pb2.RANK_ACE)
    bad_card = cards_pb2.PlayerView(hand=[card])
    with pytest.raises(CodecError, match="not a Suit"):
        view_from_pb(bad_card, find_ruleset("standard"), Phase.AUCTION)

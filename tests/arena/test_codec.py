"""The codec between protobuf messages and engine values (the arena/codec package)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brandeln.arena import codec
from brandeln.engine.actions import Bid, NameTrump, PlayCard
from brandeln.engine.cards import CARDS, Suit, parse_card
from brandeln.engine.dealing import deal_cards
from brandeln.engine.events import DealEnded
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.protocol.decode import event_from_pb
from brandeln.protocol.events import DealEndedRecord, EventRecord
from brandeln.v1 import bot_pb2, cards_pb2


def test_every_card_round_trips() -> None:
    for card in CARDS:
        assert codec.card_from_pb(codec.card_to_pb(card)) is card


def test_enum_values_are_offset_by_the_unspecified_zero() -> None:
    assert codec.card_to_pb(parse_card("C7")) == cards_pb2.Card(
        suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_SEVEN
    )
    assert codec.suit_to_pb(Suit.DIAMONDS) == cards_pb2.SUIT_DIAMONDS


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        (cards_pb2.Card(rank=cards_pb2.RANK_ACE), "suit is unset"),
        (cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS), "rank is unset"),
        (cards_pb2.Card(suit=9, rank=cards_pb2.RANK_ACE), "not a Suit"),  # type: ignore[arg-type]
        (cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=42), "not a Rank"),  # type: ignore[arg-type]
    ],
)
def test_malformed_cards_are_codec_errors(card: cards_pb2.Card, reason: str) -> None:
    with pytest.raises(codec.CodecError, match=reason):
        codec.card_from_pb(card)


def test_choices_decode_for_their_phase_only() -> None:
    bid = cards_pb2.Choice(bid=cards_pb2.Bid(contract="brand"))
    assert codec.choice_to_action(bid, Phase.AUCTION) == Bid("brand")
    trump = cards_pb2.Choice(trump=cards_pb2.SUIT_SPADES)
    assert codec.choice_to_action(trump, Phase.TRUMP) == NameTrump(Suit.SPADES)
    card = cards_pb2.Choice(card=codec.card_to_pb(parse_card("HJ")))
    assert codec.choice_to_action(card, Phase.PLAY) == PlayCard(parse_card("HJ"))
    with pytest.raises(codec.WrongPhaseError, match="asks for a card"):
        codec.choice_to_action(bid, Phase.PLAY)
    with pytest.raises(codec.CodecError, match="empty"):
        codec.choice_to_action(cards_pb2.Choice(), Phase.PLAY)
    with pytest.raises(codec.CodecError, match="contract is empty"):
        codec.choice_to_action(cards_pb2.Choice(bid=cards_pb2.Bid()), Phase.AUCTION)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_ruleset_describes_its_contracts_low_to_high(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    message = codec.ruleset_to_pb(ruleset)
    assert message.id == ruleset_id
    assert message.players == ruleset.players
    assert [c.id for c in message.contracts] == [c.id for c in ruleset.contracts]
    assert all(c.goal in {"at_least", "exact", "zero", "all"} for c in message.contracts)


def _random_states(seed: int, ruleset_id: str) -> list[DealState]:
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(seed)
    state = DealState.new(ruleset, deal_cards(ruleset, rng.randrange(ruleset.players), seed))
    states = [state]
    while not state.is_over():
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])
        states.append(state)
    return states


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), ruleset_id=st.sampled_from(RULESET_IDS))
def test_request_bytes_are_the_request_message_serialized(seed: int, ruleset_id: str) -> None:
    rng = random.Random(seed)
    for state in _random_states(seed, ruleset_id):
        seat = state.to_act
        if seat is None:
            continue
        view = state.view(seat)
        # Times and numbers of every size: a varint of one byte, of two, of more.
        args = (
            rng.choice([1, 7, 300, 70_000]),
            state.phase,
            state.legal_actions(),
            view,
            rng.choice([0, 100, 2000]),
            rng.choice([0, 2000, 200_000]),
            rng.randrange(3),
            rng.choice([0, 3, 5000]),
        )
        balances = tuple(rng.randrange(-100_000, 100_000) for _ in range(state.ruleset.players))
        deal_number = rng.choice([0, 2, 200])
        expected = codec.decision_request(*args, match_balances=balances, deal_number=deal_number)
        wire = codec.decision_request_bytes(*args, match_balances=balances, deal_number=deal_number)
        # Byte for byte what protobuf itself writes for the message (fields in number order).
        assert wire == expected.SerializeToString()
        assert bot_pb2.RefereeMessage.FromString(wire) == expected
        # A snapshot holds this seat's cards and the played ones, never another hand.
        own = set(state.hand(seat))
        for card in expected.request.view.hand:
            assert codec.card_from_pb(card) in own


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), ruleset_id=st.sampled_from(RULESET_IDS))
def test_event_bytes_are_the_event_message_serialized(seed: int, ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(seed)
    state = DealState.new(ruleset, deal_cards(ruleset, rng.randrange(ruleset.players), seed))
    seq = rng.choice([0, 100, 20_000])
    deal_number = rng.choice([0, 3, 200])
    # DealEnded's match fields: balances of every size and sign, an empty pool or a full one.
    balances = tuple(rng.randrange(-100_000, 100_000) for _ in range(ruleset.players))
    pool = rng.choice([0, 7, 300])
    while not state.is_over():
        actions = state.legal_actions()
        state, events = state.step(actions[rng.randrange(len(actions))])
        for event in events:
            seq += 1
            message = codec.event_to_pb(event, seq, deal_number, balances=balances, pool=pool)
            data = codec.event_bytes(event, seq, deal_number, balances=balances, pool=pool)
            assert data == message.SerializeToString()
            assert message.WhichOneof("kind") == codec.event_kind(event)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), ruleset_id=st.sampled_from(RULESET_IDS))
def test_deal_started_bytes_are_the_message_serialized(seed: int, ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    rng = random.Random(seed)
    deal = deal_cards(ruleset, rng.randrange(ruleset.players), seed)
    deal_number = rng.choice([0, 1, 200])
    for seat in range(ruleset.players):
        expected = codec.deal_started(deal_number, deal, seat, ruleset.players)
        data = codec.deal_started_bytes(deal_number, deal, seat, ruleset.players)
        assert data == expected.SerializeToString()
        # Its own hand only (R12.1).
        hand = [codec.card_from_pb(card) for card in expected.deal_started.hand]
        assert set(hand) == set(deal.hands[seat])


def _deal_ended(ruleset_id: str, *, everyone_passes: bool) -> DealEnded:
    """The DealEnded of a deal where every seat passes in the auction (the Muss-Spiel's
    forced soloist then plays), or where the first to speak bids and the others pass; the
    play by the first legal action."""
    ruleset = find_ruleset(ruleset_id)
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=5))
    bid = everyone_passes
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[0]
        if Bid("pass") in legal:
            bids = [a for a in legal if a != Bid("pass")]
            action = bids[0] if bids and not bid else Bid("pass")
            bid = True
        state, events = state.step(action)
        for event in events:
            if isinstance(event, DealEnded):
                return event
    raise AssertionError("the deal ended without a DealEnded")


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_passed_out_deal_ended_bytes_are_the_message_serialized_with_passed_out(
    ruleset_id: str,
) -> None:
    event = _deal_ended(ruleset_id, everyone_passes=True)
    assert event.passed_out
    players = find_ruleset(ruleset_id).players
    balances, pool = tuple(range(-1, players - 1)), 6
    message = codec.event_to_pb(event, 9, 2, balances=balances, pool=pool)
    assert message.deal_ended.passed_out is True
    data = codec.event_bytes(event, 9, 2, balances=balances, pool=pool)
    # Byte for byte what protobuf writes for the message, DealEnded.passed_out (11) included.
    assert data == message.SerializeToString()
    parsed = cards_pb2.GameEvent.FromString(data)
    assert parsed.deal_ended.passed_out is True
    assert parsed == message
    # Read back, the record says so as the log's would (the wire's field, not a guess from
    # a missing soloist: a Muss-Spiel's forced soloist plays a passed-out deal).
    record = event_from_pb(parsed)
    assert isinstance(record, EventRecord)
    assert isinstance(record.body, DealEndedRecord)
    assert record.body.passed_out is True
    assert record.body.soloist == event.soloist


def test_a_deal_ended_that_was_bid_carries_passed_out_false() -> None:
    event = _deal_ended("standard", everyone_passes=False)
    assert not event.passed_out
    data = codec.event_bytes(event, 9, 2, balances=(0, 0, 0, 0))
    assert data == codec.event_to_pb(event, 9, 2, balances=(0, 0, 0, 0)).SerializeToString()
    parsed = cards_pb2.GameEvent.FromString(data)
    assert parsed.deal_ended.passed_out is False
    record = event_from_pb(parsed)
    assert isinstance(record, EventRecord)
    assert isinstance(record.body, DealEndedRecord)
    assert record.body.passed_out is False


def test_event_message_bytes_wrap_the_event_in_a_referee_message() -> None:
    event = cards_pb2.GameEvent(seq=3, deal_number=1)
    event.card_played.seat = 2
    event.card_played.card.CopyFrom(codec.card_to_pb(parse_card("SA")))
    for given_as in (event, event.SerializeToString()):
        parsed = bot_pb2.RefereeMessage.FromString(codec.event_message_bytes(given_as))
        assert parsed == bot_pb2.RefereeMessage(event=event)


def test_the_match_fields_of_a_view_come_from_the_match_not_the_deal() -> None:
    # A deal's view does not know the match's balances or the deal's number: whoever sends it
    # passes them beside it, and the codec writes them into the message.
    ruleset = find_ruleset("standard")
    view = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5)).view(0)
    assert not hasattr(view, "match_balances")
    assert not hasattr(view, "deal_number")
    message = codec.view_to_pb(view, match_balances=(4, -4, 0, 0), deal_number=3)
    assert list(message.match_balances) == [4, -4, 0, 0]
    assert message.deal_number == 3
    assert message.seat == 0
    assert len(message.hand) == 7
    request = codec.decision_request(
        1, Phase.AUCTION, [Bid("pass")], view, 100, 0, 0, 0, match_balances=(1, 2, 3, -6)
    )
    assert list(request.request.view.match_balances) == [1, 2, 3, -6]


def test_request_bytes_follow_a_list_of_balances_changed_in_place() -> None:
    # Tuples' encodings are kept by identity; a list may change under the same identity.
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=3))
    seat = state.to_act
    assert seat is not None
    args = (1, state.phase, state.legal_actions(), state.view(seat), 100, 0, 0, 0)
    balances = [1, 2, 3, -6]
    first = codec.decision_request_bytes(*args, match_balances=balances, deal_number=1)
    balances[0] = 500
    second = codec.decision_request_bytes(*args, match_balances=balances, deal_number=1)
    parsed = bot_pb2.RefereeMessage.FromString(second)
    assert list(parsed.request.view.match_balances) == [500, 2, 3, -6]
    assert first != second

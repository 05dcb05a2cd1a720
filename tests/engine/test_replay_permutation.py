"""Replay of recorded actions, suit permutations, and action notation."""

from __future__ import annotations

import pytest

from brandeln.engine.actions import PASS, Bid, NameTrump, PlayCard, parse_action
from brandeln.engine.cards import Card, CardSet, Suit, parse_cards
from brandeln.engine.dealing import deal_cards
from brandeln.engine.errors import ActionParseError, ReplayError
from brandeln.engine.permutation import SuitPermutation
from brandeln.engine.phase import Phase
from brandeln.engine.replay import replay
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from tests.engine.scripting import actions_of, sample_deal

SCRIPT = "brand, pass, pass, pass, H, HJ, H9, C7, D7"


def test_replay_reproduces_the_state() -> None:
    ruleset = find_ruleset("standard")
    deal = sample_deal(ruleset)
    actions = actions_of(DealState.new(ruleset, deal), SCRIPT)
    state = replay(ruleset, deal, actions)
    assert state.actions == tuple(actions)
    assert state.tricks_won == (1, 0, 0, 0)


def test_replay_reports_index_and_reason_of_first_illegal_action() -> None:
    ruleset = find_ruleset("standard")
    deal = sample_deal(ruleset)
    actions = actions_of(DealState.new(ruleset, deal), SCRIPT)
    actions.insert(6, PlayCard(Card.parse("CA")))  # seat 1 does not hold CA
    with pytest.raises(ReplayError) as error:
        replay(ruleset, deal, actions)
    assert error.value.index == 6
    assert error.value.reason == "not your hand: CA"
    assert str(error.value) == "action 6 is illegal: not your hand: CA"


def test_replay_haferl_with_pool() -> None:
    ruleset = find_ruleset("haferl")
    state = replay(ruleset, sample_deal(ruleset), [PASS] * 4, pool=4)
    assert state.pool == 4


SWAP = SuitPermutation([Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES])


def test_permutation_maps_cards_sets_actions_and_deals() -> None:
    assert SWAP.apply_card(Card.parse("CJ")) is Card.parse("HJ")
    assert SWAP.apply_set(CardSet(parse_cards("CJ SA D7"))) == CardSet(parse_cards("HJ DA S7"))
    assert SWAP.apply_action(NameTrump(Suit.SPADES)) == NameTrump(Suit.DIAMONDS)
    assert SWAP.apply_action(PlayCard(Card.parse("HT"))) == PlayCard(Card.parse("CT"))
    assert SWAP.apply_action(Bid("brand")) == Bid("brand")
    deal = sample_deal()
    mapped = SWAP.apply_deal(deal)
    assert mapped.hands[0] == SWAP.apply_set(deal.hands[0])
    assert SWAP.inverse().apply_deal(mapped) == deal


def test_permutation_inverse_and_identity() -> None:
    assert SWAP.inverse().inverse() == SWAP
    for card in CardSet(parse_cards("C7 SA HJ DT")):
        assert SWAP.inverse().apply_card(SWAP.apply_card(card)) is card
    identity = SuitPermutation.identity()
    assert identity.apply_set(CardSet(parse_cards("C7 SA"))) == CardSet(parse_cards("C7 SA"))
    assert identity.images == tuple(Suit)
    assert hash(identity) == hash(SuitPermutation(list(Suit)))
    deal = sample_deal()
    assert identity.apply_deal(deal) == deal
    # The identity given as any list of the suits in order is the identity too.
    assert SuitPermutation(list(Suit)).apply_deal(deal) == deal
    assert "H D C S" in repr(SWAP)


def test_permutation_rejects_non_permutation() -> None:
    with pytest.raises(ValueError, match="not a permutation"):
        SuitPermutation([Suit.CLUBS, Suit.CLUBS, Suit.HEARTS, Suit.DIAMONDS])
    with pytest.raises(ValueError, match="not a permutation"):
        SuitPermutation([Suit.CLUBS, Suit.SPADES, Suit.HEARTS])


def test_permuted_deal_gives_same_outcome() -> None:
    ruleset = find_ruleset("standard")
    deal = deal_cards(ruleset, 1, 77)
    state = DealState.new(ruleset, deal)
    mapped = DealState.new(ruleset, SWAP.apply_deal(deal))
    while not state.is_over():
        action = state.legal_actions()[0]
        state = state.apply(action)
        mapped = mapped.apply(SWAP.apply_action(action))
    a, b = state.outcome(), mapped.outcome()
    assert a is not None
    assert b is not None
    assert (a.payments, a.tricks_won, a.made) == (b.payments, b.tricks_won, b.made)


def test_action_strings() -> None:
    assert [
        str(a) for a in (PASS, Bid("mord"), NameTrump(Suit.CLUBS), PlayCard(Card.parse("DA")))
    ] == [
        "pass",
        "mord",
        "trump C",
        "DA",
    ]
    assert PASS.is_pass
    assert not Bid("brand").is_pass


def test_parse_action_by_phase_and_by_shape() -> None:
    assert parse_action("pass") == PASS
    assert parse_action("PASS", Phase.AUCTION) == PASS
    assert parse_action("herrenmord") == Bid("herrenmord")
    assert parse_action("trump d") == NameTrump(Suit.DIAMONDS)
    assert parse_action("hearts", Phase.TRUMP) == NameTrump(Suit.HEARTS)
    assert parse_action("ct") == PlayCard(Card.parse("CT"))
    assert parse_action("CT", Phase.PLAY) == PlayCard(Card.parse("CT"))


@pytest.mark.parametrize(
    ("text", "phase", "message"),
    [
        ("", None, "empty"),
        ("trump", Phase.TRUMP, "not a suit"),
        ("trump X", None, "not a suit"),
        ("play HJ now", None, "expected one word"),
        ("Z9", Phase.PLAY, "'Z9' is not a card"),
        ("brand!", Phase.AUCTION, "not a bid"),
        ("pass", Phase.DONE, "not a bid"),
    ],
)
def test_parse_action_errors(text: str, phase: Phase | None, message: str) -> None:
    with pytest.raises(ActionParseError, match=message):
        parse_action(text, phase)

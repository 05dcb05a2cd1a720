"""The SDK's helpers without the engine: notation, trick winners, situations; doctests."""

from __future__ import annotations

import doctest
import importlib
import random

import pytest

from brandeln.arena import codec
from brandeln.engine.cards import FULL_DECK_32, Card, Suit
from brandeln.engine.rulesets import TrumpOrder
from brandeln.engine.trick_rules import canonical_cards
from brandeln.engine.trick_rules import trick_winner as engine_trick_winner
from brandeln.sdk import (
    NotationError,
    TrickRules,
    card_text,
    choice_text,
    parse_card,
    parse_choice,
    parse_suit,
    suit_letter,
    trick_winner,
)
from brandeln.v1 import cards_pb2


def test_every_card_round_trips_and_matches_the_engines_notation() -> None:
    for card in FULL_DECK_32:
        message = codec.card_to_pb(card)  # the referee's own conversion
        assert card_text(message) == str(card)
        assert parse_card(str(card)) == message
        assert parse_card(str(card).lower()) == message


def test_suits_are_offset_by_one_from_the_engine() -> None:
    for suit in Suit:
        assert parse_suit(suit.letter) == suit + 1
        assert suit_letter(cards_pb2.Suit.ValueType(suit + 1)) == suit.letter


@pytest.mark.parametrize(
    ("text", "kind"),
    [("HJ", "card"), ("ct", "card"), ("H", "trump"), ("pass", "bid"), ("brandle", "bid")],
)
def test_choices_are_written_as_the_one_thing_they_hold(text: str, kind: str) -> None:
    choice = parse_choice(text)
    assert choice.WhichOneof("kind") == kind
    assert choice_text(choice).lower() == text.lower()


@pytest.mark.parametrize("bad", ["", "X9", "H1", "HJJ"])
def test_bad_card_text_names_the_notation(bad: str) -> None:
    with pytest.raises(NotationError, match="suit letter"):
        parse_card(bad)


def test_an_empty_choice_or_unset_suit_is_an_error() -> None:
    with pytest.raises(NotationError):
        choice_text(cards_pb2.Choice())
    with pytest.raises(NotationError):
        suit_letter(cards_pb2.SUIT_UNSPECIFIED)


@pytest.mark.parametrize("natural", [False, True])
def test_trick_winners_agree_with_the_engine(natural: bool) -> None:
    rng = random.Random(5)
    deck = list(FULL_DECK_32)
    order = TrumpOrder.NATURAL if natural else TrumpOrder.JACK_SEVEN_FIRST
    for _ in range(3000):
        cards: list[Card] = rng.sample(deck, rng.randint(1, 4))
        trump = rng.choice([None, *Suit])
        rules = TrickRules(
            trump=cards_pb2.SUIT_UNSPECIFIED
            if trump is None
            else cards_pb2.Suit.ValueType(trump + 1),
            jack_seven_on_top=not natural,
        )
        expected = engine_trick_winner(tuple(cards), trump, order)
        assert trick_winner([codec.card_to_pb(c) for c in cards], rules) == expected, cards


def test_russian_rulesets_use_the_natural_trump_order() -> None:
    russian = cards_pb2.Ruleset(id="russian", options={"trump_order": "natural"})
    standard = cards_pb2.Ruleset(id="standard", options={"trump_order": "jack_seven_first"})
    assert not TrickRules.for_deal(russian, cards_pb2.SUIT_HEARTS).jack_seven_on_top
    assert TrickRules.for_deal(standard, cards_pb2.SUIT_HEARTS).jack_seven_on_top


@pytest.mark.parametrize("natural", [False, True])
def test_in_order_sorts_cards_as_the_referee_sorts_legal_lists_and_hands(natural: bool) -> None:
    rng = random.Random(11)
    order = TrumpOrder.NATURAL if natural else TrumpOrder.JACK_SEVEN_FIRST
    for _ in range(2000):
        cards: list[Card] = rng.sample(list(FULL_DECK_32), rng.randint(1, 8))
        trump = rng.choice([None, *Suit])
        rules = TrickRules(
            trump=cards_pb2.SUIT_UNSPECIFIED
            if trump is None
            else cards_pb2.Suit.ValueType(trump + 1),
            jack_seven_on_top=not natural,
        )
        shuffled = [codec.card_to_pb(c) for c in cards]
        expected = [codec.card_to_pb(c) for c in canonical_cards(cards, trump, order)]
        assert rules.in_order(shuffled) == expected, cards


def test_the_strength_table_numbers_each_suit_low_to_high_in_this_deal() -> None:
    pack = [parse_card(s + r) for s in "CSHD" for r in "79TJQKA"]
    hearts = TrickRules(trump=cards_pb2.SUIT_HEARTS).strength_table(pack)
    assert [c for c in sorted(hearts, key=hearts.__getitem__) if c[0] == "H"] == [
        "H9", "HT", "HQ", "HK", "HA", "H7", "HJ"
    ]  # fmt: skip
    assert [hearts["C" + r] for r in "79TJQKA"] == [1, 2, 3, 4, 5, 6, 7]
    natural = TrickRules(trump=cards_pb2.SUIT_HEARTS, jack_seven_on_top=False)
    assert natural.strength_table(pack)["HJ"] == 4
    before_trump = TrickRules().strength_table(pack)
    assert before_trump["HJ"] == 4
    assert before_trump["H7"] == 1


@pytest.mark.parametrize(
    "module",
    [
        "brandeln.sdk.notation",
        "brandeln.sdk.trick",
        "brandeln.sdk.situation",
        "brandeln.sdk.bot",
        "brandeln.sdk.bridge.format",
        "brandeln.sample_bots.random_bot",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0

"""Cards, notation and card sets (RULES.md preamble, R2.1)."""

from __future__ import annotations

import copy
import pickle

import pytest

from brandeln.engine.cards import (
    CARDS,
    DECK_28,
    FULL_DECK_32,
    Card,
    CardParseError,
    CardSet,
    Rank,
    Suit,
    deck_of,
    format_cards,
    parse_card,
    parse_cards,
)
from brandeln.engine.errors import EngineError


def test_suit_and_rank_numbering_and_letters() -> None:
    assert [int(s) for s in Suit] == [0, 1, 2, 3]
    assert "".join(s.letter for s in Suit) == "CSHD"
    assert [int(r) for r in Rank] == list(range(8))
    assert "".join(r.letter for r in Rank) == "789TJQKA"


def test_card_attributes_and_index() -> None:
    card = Card(Suit.HEARTS, Rank.JACK)
    assert (card.suit, card.rank, card.index) == (Suit.HEARTS, Rank.JACK, 2 * 8 + 4)
    assert [c.index for c in CARDS] == list(range(32))
    assert card.bit == 1 << card.index


def test_cards_are_interned() -> None:
    assert Card(Suit.HEARTS, Rank.JACK) is Card.parse("HJ") is parse_card("hj")
    assert pickle.loads(pickle.dumps(Card.parse("CA"))) is Card.parse("CA")
    assert copy.deepcopy(Card.parse("CA")) is Card.parse("CA")
    assert copy.copy(Card.parse("CA")) is Card.parse("CA")
    assert Card.from_index(31) is Card.parse("DA")


def test_card_is_immutable_and_hashable() -> None:
    card = Card.parse("CT")
    with pytest.raises(AttributeError):
        card.rank = Rank.ACE
    with pytest.raises(AttributeError):
        del card.suit
    assert len({card, Card.parse("CT"), Card.parse("CA")}) == 2


def test_card_has_no_ordering() -> None:
    with pytest.raises(TypeError):
        _ = Card.parse("CA") < Card.parse("CK")  # type: ignore[operator]


def test_card_str_and_repr() -> None:
    card = Card.parse("ct")
    assert str(card) == "CT"
    assert repr(card) == "Card.parse('CT')"
    assert eval(repr(card)) is card  # the repr is valid Python


def test_card_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match="no card"):
        Card(4, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no card"):
        Card(-1, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outside"):
        Card.from_index(32)


@pytest.mark.parametrize("text", ["X9", "H1", "HJJ", "", "10H", "H"])
def test_parse_card_errors_name_token_and_notation(text: str) -> None:
    with pytest.raises(CardParseError) as error:
        parse_card(text)
    message = str(error.value)
    assert repr(text) in message
    assert "suit letter (C S H D)" in message
    assert isinstance(error.value, ValueError)
    assert isinstance(error.value, EngineError)


def test_parse_cards_separators_and_order() -> None:
    assert format_cards(parse_cards("HJ H7 CA")) == "HJ H7 CA"
    assert format_cards(parse_cards(" hj,h7 ,\tCA\n")) == "HJ H7 CA"
    assert parse_cards("") == []
    with pytest.raises(CardParseError, match="'ZZ'"):
        parse_cards("HJ ZZ CA")


def test_suit_parse_letters_and_names() -> None:
    assert Suit.parse("d") is Suit.DIAMONDS
    assert Suit.parse("Spades") is Suit.SPADES
    with pytest.raises(CardParseError, match="not a suit"):
        Suit.parse("X")


def test_cardset_operations() -> None:
    a = CardSet(parse_cards("HJ CA SA"))
    b = CardSet(parse_cards("CA D7"))
    assert str(a | b) == "CA SA HJ D7"  # ascending index order
    assert str(a & b) == "CA"
    assert str(a - b) == "SA HJ"
    assert len(a) == 3
    assert Card.parse("HJ") in a
    assert Card.parse("D7") not in a
    assert "HJ" not in a  # only cards are members
    assert bool(a)
    assert not CardSet()
    assert a == CardSet(parse_cards("SA HJ CA"))
    assert hash(a) == hash(CardSet(parse_cards("SA HJ CA")))
    assert a != b
    assert a.of_suit(Suit.SPADES) == CardSet([Card.parse("SA")])
    assert a.issubset(a | b)
    assert not a.isdisjoint(b)


def test_cardset_mask_and_from_mask() -> None:
    cards = CardSet(parse_cards("C7 DA"))
    assert cards.mask == 1 | 1 << 31
    assert CardSet.from_mask(cards.mask) == cards
    with pytest.raises(ValueError, match="outside"):
        CardSet.from_mask(1 << 32)
    with pytest.raises(ValueError, match="outside"):
        CardSet.from_mask(-1)


def test_cardset_is_immutable_and_picklable() -> None:
    cards = CardSet(parse_cards("C7"))
    with pytest.raises(AttributeError):
        cards.mask = 0
    assert pickle.loads(pickle.dumps(cards)) == cards
    assert repr(cards) == "CardSet(parse_cards('C7'))"


def test_r2_1_decks() -> None:
    assert len(DECK_28) == 28
    assert all(card.rank is not Rank.EIGHT for card in DECK_28)
    assert len(FULL_DECK_32) == 32
    assert list(FULL_DECK_32) == list(CARDS)
    assert deck_of([Rank.ACE]) == CardSet(parse_cards("CA SA HA DA"))

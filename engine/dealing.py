"""Shuffling and dealing (docs/RULES.md R3), and explicit (fixed) deals.

A deal is a pure function of ``(ruleset, dealer, seed)``: the seed drives a uniform shuffle
(``random.Random(seed).shuffle``) and the cards go out in the packets of R3.2.

>>> from brandeln.engine.rulesets import find_ruleset
>>> deal = deal_cards(find_ruleset("standard"), dealer=0, seed=7)
>>> [len(hand) for hand in deal.hands], deal == deal_cards(find_ruleset("standard"), 0, 7)
([7, 7, 7, 7], True)
>>> fixed = fixed_deal(find_ruleset("standard"), 0, [h for h in deal.hands])
>>> fixed.hands == deal.hands
True
"""

from __future__ import annotations

import random
from _random import Random as _SeededGenerator  # random.Random's C base: same stream, no frame
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Final, NoReturn

from brandeln.engine.cards import Card, CardSet, Rank, deck_of
from brandeln.engine.errors import InvalidDealError
from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import seat_at_distance

__all__ = [
    "Deal",
    "InvalidDealError",
    "deal_cards",
    "fixed_deal",
    "trusted_card_set",
    "validate_deal",
]


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one deal: ``hands[seat]`` for each seat, the ``blind`` (``three-player``
    only, else empty), and the ``seed`` it was shuffled with (``None`` for a fixed deal)."""

    dealer: int
    hands: tuple[CardSet, ...]
    blind: CardSet = field(default_factory=CardSet)
    seed: int | None = None


def deal_cards(ruleset: Ruleset, dealer: int, seed: int) -> Deal:
    """Shuffle the ruleset's deck with ``random.Random(seed)`` and deal it (R3.1, R3.2).

    Packets go clockwise from forehand: row ``r`` (distance ``r`` from forehand) receives its
    packets in turn; in ``three-player`` row 3 is the blind (section 6).

    >>> from brandeln.engine.rulesets import find_ruleset
    >>> deal = deal_cards(find_ruleset("three-player"), dealer=2, seed=1)
    >>> [len(hand) for hand in deal.hands], len(deal.blind)
    ([7, 7, 7], 7)
    """
    plan = _PLANS.of(ruleset)
    players = plan.players
    if not 0 <= dealer < players:
        _check_dealer(ruleset, dealer)
    if plan.shuffles_fast and type(seed) is int:
        row0, row1, row2, row3 = _shuffled_rows(plan.order, plan.row_of_position, seed)
        rows: tuple[CardSet, ...] = (
            trusted_card_set(row0),
            trusted_card_set(row1),
            trusted_card_set(row2),
            trusted_card_set(row3),
        )
    else:  # more rows than the named rulesets deal, or a seed Random.seed converts
        rows = tuple(trusted_card_set(mask) for mask in _rows_of_random_shuffle(plan, seed))
    hands = [_NO_CARDS] * players
    for distance in range(players):
        hands[seat_at_distance(dealer, distance, players)] = rows[distance]
    blind = rows[players] if plan.blind else _NO_CARDS
    # Deal's own __init__, field for field (a test holds the two together): compiled (setup.py),
    # the frozen dataclass's constructor still runs its generated __init__, an interpreted frame
    # setting each field through object.__setattr__; here each field is one C call.
    deal = _new_deal(Deal)
    object.__setattr__(deal, "dealer", dealer)
    object.__setattr__(deal, "hands", tuple(hands))
    object.__setattr__(deal, "blind", blind)
    object.__setattr__(deal, "seed", seed)
    return deal


# Deal.__new__, not object.__new__: compiled by mypyc, Deal is a native class, and only its own
# __new__ allocates its layout (in pure Python the two are the same function).
_new_deal: Final = Deal.__new__


class _Plan:
    """How one ruleset deals: the deck, the row of each deck position, the seats and rows.
    Read from native fields at every deal, where the ruleset's are attribute lookups on an
    interpreted class (``deal_rows`` a property's frame)."""

    __slots__ = (
        "blind",
        "deck",
        "hand_size",
        "order",
        "players",
        "positions_of_row",
        "row_of_position",
        "rows",
        "ruleset",
        "shuffles_fast",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = ruleset.players
        self.hand_size = ruleset.hand_size
        self.deck = _deck_mask(ruleset.ranks)
        self.rows = ruleset.deal_rows
        self.blind = ruleset.blind
        self.order, self.row_of_position = _deal_plan(ruleset.ranks, ruleset.packets, self.rows)
        row_of_position = self.row_of_position
        # _shuffled_rows fills four rows, reads a byte of each draw (so n.bit_length() <= 8:
        # decks below 256 cards) and puts the last card left, position 0, in row 0.
        self.shuffles_fast = (
            self.rows <= _FAST_ROWS
            and len(self.order) < _BYTE_VALUES
            and (not row_of_position or row_of_position[0] == 0)
        )
        # The deck positions each row receives (R3.2), in order.
        self.positions_of_row = tuple(
            tuple(p for p, r in enumerate(row_of_position) if r == row) for row in range(self.rows)
        )


_PLANS: Final[PerRuleset[_Plan]] = PerRuleset(_Plan)


# CardSet.__new__ (object's) bound once: compiled, ``object.__new__(CardSet)`` looks up
# ``object`` in the builtins module and ``__new__`` on it at every call.
_new_card_set: Final = CardSet.__new__
_NO_CARDS: Final = CardSet()  # sets are immutable: one empty one serves every deal


def trusted_card_set(mask: int) -> CardSet:
    """``CardSet.from_mask(mask)`` without its range check, for masks the engine made from a
    deck: compiled (setup.py), two C calls where the classmethod runs a Python frame.

    >>> trusted_card_set(0b101) == CardSet.from_mask(0b101)
    True
    """
    cards = _new_card_set(CardSet)
    object.__setattr__(cards, "mask", mask)  # CardSet's own __setattr__ refuses: immutable
    return cards


def _shuffled_rows(
    order: tuple[int, ...], row_of_position: tuple[int, ...], seed: int
) -> tuple[int, int, int, int]:
    """The masks of rows 0 to 3 (R3.2) once the deck ``order`` is shuffled as
    ``random.Random(seed).shuffle`` would (a test holds the two together), ``row_of_position``
    giving each deck position's row; a row past the last is 0. Decks hold at most 32 cards.

    Without the Python frames of ``Random.seed``, ``shuffle`` and ``_randbelow`` around each
    draw: the same Mersenne Twister seeded the same way, the same rejection sampling on
    ``getrandbits``. Fisher-Yates fixes the card at position ``i`` at step ``i`` (later steps
    swap below it), so that card goes straight into its row's mask, a native local where a
    list of rows would box every card.
    """
    cards = list(order)
    # getrandbits(k) for k <= 32 is the top k bits of the generator's next 32-bit word, and
    # getrandbits(32 * m) is its next m words, the first lowest: the generator is this deal's
    # own, so it may draw words in a batch that runs past the last one used. A deck of at most
    # 32 cards draws k <= 6 bits, all in the top byte of a word: byte 3 of each 4 (little end
    # first) is the only one read.
    getrandbits = _SeededGenerator(seed).getrandbits
    words = b""
    at = 3
    row0 = row1 = row2 = row3 = 0
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        shift = _BYTE_BITS - n.bit_length()
        while True:
            if at >= len(words):
                words = getrandbits(_WORD_BITS * _BATCH).to_bytes(_BATCH * 4, "little")
                at = 3
            j = words[at] >> shift
            at += 4
            if j < n:  # Random._randbelow's rejection sampling
                break
        card = cards[j]
        cards[j] = cards[i]  # cards[i] is never read again: no need to write it
        row = row_of_position[i]
        if row == 0:
            row0 |= 1 << card
        elif row == 1:
            row1 |= 1 << card
        elif row == 2:
            row2 |= 1 << card
        elif row == 3:
            row3 |= 1 << card
    if cards:
        row0 |= 1 << cards[0]  # position 0 is dealt first, to row 0
    return row0, row1, row2, row3


def _rows_of_random_shuffle(plan: _Plan, seed: int) -> list[int]:
    """The mask of each row, the reference way: ``random.Random(seed).shuffle`` of the deck,
    then each row's deck positions (R3.1, R3.2). For seeds of any type and any number of rows."""
    cards = list(plan.order)
    random.Random(seed).shuffle(cards)
    masks = []
    for positions in plan.positions_of_row:
        mask = 0
        for position in positions:
            mask |= 1 << cards[position]
        masks.append(mask)
    return masks


_FAST_ROWS: Final = 4  # _shuffled_rows fills four rows: the most any named ruleset deals
_WORD_BITS: Final = 32
_BYTE_BITS: Final = 8
_BYTE_VALUES: Final = 1 << _BYTE_BITS
_BATCH: Final = 48  # words per draw: a 28-card shuffle uses about 40 (more than 48 one time in 14)


@cache
def _deal_plan(
    ranks: tuple[Rank, ...], packets: tuple[int, ...], rows: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The deck (card indices, ascending) and, for each deck position, the row it goes to:
    packets go round the rows in turn (R3.2)."""
    row_of_position = []
    for packet in packets:
        for row in range(rows):
            row_of_position.extend([row] * packet)
    return tuple(card.index for card in deck_of(ranks)), tuple(row_of_position)


def fixed_deal(
    ruleset: Ruleset,
    dealer: int,
    hands: Sequence[Iterable[Card]],
    blind: Iterable[Card] = (),
) -> Deal:
    """A deal with explicit hands (R3.3), indexed by seat; raises :class:`InvalidDealError`.

    >>> from brandeln.engine.cards import parse_cards
    >>> from brandeln.engine.rulesets import find_ruleset
    >>> fixed_deal(find_ruleset("standard"), 0, [parse_cards("CA")])
    Traceback (most recent call last):
    ...
    brandeln.engine.errors.InvalidDealError: ruleset 'standard' deals 4 hands, got 1
    """
    _check_dealer(ruleset, dealer)
    hand_lists = [list(hand) for hand in hands]
    blind_list = list(blind)
    if len(hand_lists) != ruleset.players:
        raise InvalidDealError(
            f"ruleset {ruleset.id!r} deals {ruleset.players} hands, got {len(hand_lists)}"
        )
    owners: dict[Card, str] = {}
    named = [(f"seat {seat}", cards) for seat, cards in enumerate(hand_lists)]
    if blind_list or ruleset.blind:
        named.append(("the blind", blind_list))
    for owner, cards in named:
        for card in cards:
            if not isinstance(card, Card):
                raise InvalidDealError(f"{owner} holds {card!r}, which is not a Card")
            if card in owners:
                raise InvalidDealError(f"{card} is dealt twice: to {owners[card]} and {owner}")
            owners[card] = owner
    deal = Deal(
        dealer=dealer,
        hands=tuple(CardSet(cards) for cards in hand_lists),
        blind=CardSet(blind_list),
    )
    validate_deal(ruleset, deal)
    return deal


def validate_deal(ruleset: Ruleset, deal: Deal) -> None:
    """Raise :class:`InvalidDealError` unless ``deal`` is a complete deal of ``ruleset``."""
    plan = _PLANS.of(ruleset)
    players = plan.players
    if not 0 <= deal.dealer < players:
        _check_dealer(ruleset, deal.dealer)
    hands = deal.hands
    if len(hands) != players:
        raise InvalidDealError(f"ruleset {ruleset.id!r} deals {players} hands, got {len(hands)}")
    # The common case in a few mask operations: right sizes and together exactly the deck.
    size = plan.hand_size
    union = deal.blind.mask
    if _card_count(union) != (size if plan.blind else 0):
        _explain_invalid(ruleset, deal)
    for hand in hands:
        mask = hand.mask
        if _card_count(mask) != size:
            _explain_invalid(ruleset, deal)
        union |= mask
    if union != plan.deck:
        _explain_invalid(ruleset, deal)


# How many cards each 8-bit piece of a mask holds: compiled (setup.py), four lookups in a tuple
# cost less than int.bit_count(), a method call on a boxed int.
_BITS_IN: Final = tuple(bin(bits).count("1") for bits in range(256))


def _card_count(mask: int) -> int:
    """The cards in a mask of the deck (32 bits)."""
    return (
        _BITS_IN[mask & 0xFF]
        + _BITS_IN[mask >> 8 & 0xFF]
        + _BITS_IN[mask >> 16 & 0xFF]
        + _BITS_IN[mask >> 24 & 0xFF]
    )


def _explain_invalid(ruleset: Ruleset, deal: Deal) -> NoReturn:
    deck = ruleset.deck()
    seen = CardSet()
    parts = [(f"seat {seat}", hand) for seat, hand in enumerate(deal.hands)]
    parts.append(("the blind", deal.blind))
    for owner, cards in parts:
        expected = ruleset.hand_size if owner != "the blind" or ruleset.blind else 0
        if len(cards) != expected:
            raise InvalidDealError(
                f"{owner} has {len(cards)} cards; ruleset {ruleset.id!r} gives it {expected}"
            )
        foreign = cards - deck
        if foreign:
            raise InvalidDealError(
                f"{owner} holds {foreign}, not in the {len(deck)}-card deck of {ruleset.id!r}"
            )
        twice = cards & seen
        if twice:
            raise InvalidDealError(f"{twice} dealt to {owner} and to another hand")
        seen = seen | cards
    raise InvalidDealError("the hands do not make up the deck")  # unreachable: sizes add up


@cache
def _deck_mask(ranks: tuple[Rank, ...]) -> int:
    return deck_of(ranks).mask


def _check_dealer(ruleset: Ruleset, dealer: int) -> None:
    if not 0 <= dealer < ruleset.players:
        raise InvalidDealError(
            f"dealer {dealer} is not a seat of {ruleset.id!r} (seats 0..{ruleset.players - 1})"
        )

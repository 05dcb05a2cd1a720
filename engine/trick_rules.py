"""The rules core of the play (docs/RULES.md R2, R8): card strength, who beats whom, legal cards.

Everything here works on card *indices* and *masks* (see :mod:`brandeln.engine.cards`), so that the
public :class:`brandeln.engine.state.DealState` and the fast random playouts of
:mod:`brandeln.engine.playout` share one implementation of the duties of R8.3.

A trick in progress is described by three numbers: ``led`` (the suit of its first card, or
``NO_TRICK`` before the lead), ``win`` (the index of the card now winning it) and ``head`` (the
index of the highest card of the led suit in it, for the switch ``head_rule = suit``); before
the lead ``win`` and ``head`` are ``NO_CARD``. :func:`add_to_trick` moves a trick on by one card
(R8.4) through two tables of :class:`PlayDuties`, which the play loops of ``DealState`` and of
the fast playouts read directly: two lookups cost less than the rule's comparisons, or a call.

>>> from brandeln.engine.cards import Card, CardSet, Suit, parse_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> duties = duties_for(find_ruleset("standard"), Suit.HEARTS)
>>> hand = CardSet(parse_cards("H9 HA SA")).mask
>>> ct, hq = Card.parse("CT").index, Card.parse("HQ").index
>>> str(CardSet.from_mask(legal_card_mask(hand, Suit.CLUBS, hq, ct, duties)))  # T17
'HA'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from brandeln.engine.actions import PLAY_CARDS, PlayCard
from brandeln.engine.cards import (
    CARD_COUNT,
    CARDS,
    RANK_COUNT,
    RANKS_32,
    SUIT_COUNT,
    SUIT_MASKS,
    Card,
    Rank,
    Suit,
)
from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.rulesets import (
    HeadRule,
    Ruleset,
    Stichzwang,
    Trumpfzwang,
    TrumpOrder,
    Undertrump,
)

__all__ = [
    "CARD_BITS",
    "NO_CARD",
    "NO_TRICK",
    "NO_TRUMP",
    "RANK_BITS",
    "PlayDuties",
    "add_to_trick",
    "beats",
    "canonical_card_indices",
    "canonical_cards",
    "canonical_indices",
    "canonical_play_cards",
    "duties_for",
    "explain_illegal_card",
    "legal_card_mask",
    "rank_order",
    "trick_state",
    "trick_winner",
]

CARD_BITS: Final = 5
"""Bits of a card index: ``1 << CARD_BITS == CARD_COUNT``, the row length of the flat tables."""
RANK_BITS: Final = 3
"""Bits of a rank: ``index >> RANK_BITS`` is a card's suit (``1 << RANK_BITS == RANK_COUNT``)."""
assert 1 << CARD_BITS == CARD_COUNT
assert 1 << RANK_BITS == RANK_COUNT

NO_TRICK: Final = -1
"""``led`` before the first card of a trick: the leader may play any card (R8.2)."""
NO_CARD: Final = CARD_COUNT
"""``win`` and ``head`` before the first card of a trick (the row of the tables it leads)."""
NO_TRUMP: Final = SUIT_COUNT
"""The trump slot of a contract without trump (bettel, herrenmord, free play)."""

_SUIT_SIZE: Final = 1 << RANK_COUNT  # the number of distinct masks of one suit
# Compiled (setup.py), a Final of this module is a C static; the imported name is a lookup in
# the module's dict at every legal-card test.
_SUIT_MASKS: Final = SUIT_MASKS

# R2.2: inside the trump suit the J and the 7 rank above the ace: J 7 A K Q T 9 (8 is never
# dealt with this order, but keeps its natural place so the table is total).
_JACK_SEVEN_STRENGTH: Final = {Rank.SEVEN: Rank.ACE + 1, Rank.JACK: Rank.ACE + 2}


def _strength(rank: int, is_trump: bool, order: TrumpOrder) -> int:
    if is_trump and order is TrumpOrder.JACK_SEVEN_FIRST:
        return _JACK_SEVEN_STRENGTH.get(Rank(rank), rank)
    return rank  # R2.3: the natural order, A high, which is Rank's numbering


def _beats(a: int, w: int, trump: int, order: TrumpOrder) -> bool:
    """docs/RULES.md R8.4's ``beats(a, w)``, on indices."""
    a_suit, w_suit = a // RANK_COUNT, w // RANK_COUNT
    if a_suit == trump and w_suit != trump:
        return True
    if a_suit != w_suit:  # covers "w is trump and a is not" (R2.5)
        return False
    is_trump = a_suit == trump
    a_rank, w_rank = a % RANK_COUNT, w % RANK_COUNT
    return _strength(a_rank, is_trump, order) > _strength(w_rank, is_trump, order)


def _beats_table(trump: int, order: TrumpOrder) -> tuple[int, ...]:
    """For every card ``w``, the mask of the cards that beat it."""
    return tuple(
        sum(1 << a for a in range(CARD_COUNT) if _beats(a, w, trump, order))
        for w in range(CARD_COUNT)
    )


def _takes_table(beats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``takes[win][card]``: the card winning a trick once ``card`` is played to it, ``win``
    being the card winning it before (R8.4); the first card of a trick (``NO_CARD``) wins it."""
    return tuple(
        tuple(
            card if win == NO_CARD or beats[win] >> card & 1 else win for card in range(CARD_COUNT)
        )
        for win in range(CARD_COUNT + 1)
    )


def _heads_table(beats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``heads[head][card]``: the highest card of the led suit once ``card`` is played, ``head``
    being the highest one before (``NO_CARD``: the first card leads its suit)."""
    return tuple(
        tuple(
            card
            if head == NO_CARD
            or (card // RANK_COUNT == head // RANK_COUNT and beats[head] >> card & 1)
            else head
            for card in range(CARD_COUNT)
        )
        for head in range(CARD_COUNT + 1)
    )


def _suit_orders(is_trump: bool, order: TrumpOrder) -> tuple[tuple[int, ...], ...]:
    """For each 8-bit suit mask, its ranks from low to high (R12.3)."""
    return tuple(
        tuple(
            sorted(
                (r for r in range(RANK_COUNT) if m >> r & 1),
                key=lambda r: _strength(r, is_trump, order),
            )
        )
        for m in range(_SUIT_SIZE)
    )


_BEATS: Final = {
    (order, trump): _beats_table(trump, order)
    for order in TrumpOrder
    for trump in range(SUIT_COUNT + 1)
}
_TAKES: Final = {key: _takes_table(table) for key, table in _BEATS.items()}
_HEADS: Final = {key: _heads_table(table) for key, table in _BEATS.items()}
_RANKS_LOW_TO_HIGH: Final = {
    (order, is_trump): _suit_orders(is_trump, order)
    for order in TrumpOrder
    for is_trump in (False, True)
}
# The same orders, as card indices and as PlayCard actions, for each suit.
_INDEX_ORDERS: Final = {
    (order, is_trump, suit): tuple(
        tuple(suit * RANK_COUNT + r for r in ranks) for ranks in _RANKS_LOW_TO_HIGH[order, is_trump]
    )
    for order in TrumpOrder
    for is_trump in (False, True)
    for suit in range(SUIT_COUNT)
}
_ACTION_ORDERS: Final = {
    key: tuple(tuple(PLAY_CARDS[i] for i in indices) for indices in table)
    for key, table in _INDEX_ORDERS.items()
}


def beats(card: Card, winning: Card, trump: Suit | None, order: TrumpOrder) -> bool:
    """Whether ``card`` beats ``winning``, the card now winning a trick (R8.4).

    >>> from brandeln.engine.cards import Card, Suit
    >>> beats(Card.parse("H9"), Card.parse("CA"), Suit.HEARTS, TrumpOrder.JACK_SEVEN_FIRST)
    True
    >>> beats(Card.parse("DJ"), Card.parse("C9"), Suit.HEARTS, TrumpOrder.JACK_SEVEN_FIRST)
    False
    """
    trump_slot = NO_TRUMP if trump is None else int(trump)
    return bool(_BEATS[order, trump_slot][winning.index] >> card.index & 1)


def rank_order(
    suit: Suit, trump: Suit | None, order: TrumpOrder, ranks: Iterable[Rank] = RANKS_32
) -> tuple[Rank, ...]:
    """The ``ranks`` of ``suit`` from high to low in a deal with ``trump`` (R2.2, R2.3).

    >>> from brandeln.engine.cards import RANKS_28, Suit
    >>> order = TrumpOrder.JACK_SEVEN_FIRST
    >>> "".join(r.letter for r in rank_order(Suit.HEARTS, Suit.HEARTS, order, RANKS_28))
    'J7AKQT9'
    >>> "".join(r.letter for r in rank_order(Suit.CLUBS, Suit.HEARTS, order, RANKS_28))
    'AKQJT97'
    """
    wanted = sum(1 << rank for rank in ranks)
    low_to_high = _RANKS_LOW_TO_HIGH[order, suit == trump][wanted]
    return tuple(Rank(r) for r in reversed(low_to_high))


def trick_winner(cards: tuple[Card, ...], trump: Suit | None, order: TrumpOrder) -> int:
    """The position (0-based, in play order) of the card that wins the trick ``cards`` (R8.4).

    >>> from brandeln.engine.cards import Suit, parse_cards
    >>> trick_winner(tuple(parse_cards("CA CK H9 CQ")), Suit.HEARTS, TrumpOrder.JACK_SEVEN_FIRST)
    2
    """
    takes = _TAKES[order, NO_TRUMP if trump is None else int(trump)]
    win, best = NO_CARD, 0
    for position, card in enumerate(cards):
        win = takes[win][card.index]
        if win == card.index:
            best = position
    return best


# The three strengths of Trumpfzwang, as small ints for the hot path.
_TRUMPF_NONE: Final = 0
_TRUMPF_ANY: Final = 1
_TRUMPF_OVER: Final = 2


@dataclass(frozen=True, slots=True)
class PlayDuties:
    """The play duties of one deal: its trump, its rank order and the R8.3 switches in force.

    Build it with :func:`duties_for`; it is the same object for every deal with the same rules.
    """

    trump: int  # a suit, or NO_TRUMP
    beats: tuple[int, ...]  # beats[w] = mask of the cards that beat card w
    takes: tuple[tuple[int, ...], ...]  # takes[win][card]: the winning card after card (R8.4)
    heads: tuple[tuple[int, ...], ...]  # heads[head][card]: the highest led-suit card after it
    stichzwang: bool  # R8.3b applies in this contract
    head_suit: bool  # head_rule = suit: beat the highest led-suit card, not the winning card
    trumpfzwang: int  # _TRUMPF_NONE / _TRUMPF_ANY / _TRUMPF_OVER (R8.3c)
    undertrump_free: bool  # void, holding trumps that cannot beat W: any card
    suit_indices: tuple[tuple[tuple[int, ...], ...], ...]  # per suit, per 8-bit mask: low->high
    suit_actions: tuple[tuple[tuple[PlayCard, ...], ...], ...]  # the same as PlayCard actions
    # The play loops' flat copies of takes, heads and suit_indices (one lookup, not two):
    # takes_flat[win << CARD_BITS | card], heads_flat[head << CARD_BITS | card] and
    # suit_indices_flat[suit << RANK_COUNT | mask]; a test holds them to the nested tables.
    takes_flat: tuple[int, ...]
    heads_flat: tuple[int, ...]
    suit_indices_flat: tuple[tuple[int, ...], ...]


def duties_for(ruleset: Ruleset, trump: Suit | None) -> PlayDuties:
    """The duties for a deal of ``ruleset`` with ``trump`` (``None`` in a no-trump contract)."""
    # Every deal asks: by the ruleset's identity (brandeln.engine.per_ruleset), where the cache of
    # _duties hashes five enum switches (and reads them off the interpreted Ruleset).
    return _DUTIES_OF.of(ruleset)[NO_TRUMP if trump is None else int(trump)]


def _all_duties(ruleset: Ruleset) -> tuple[PlayDuties, ...]:
    """The duties of ``ruleset`` by trump: the four suits, then NO_TRUMP."""
    return tuple(
        _duties(
            ruleset.trump_order,
            ruleset.stichzwang,
            ruleset.trumpfzwang,
            ruleset.head_rule,
            ruleset.undertrump,
            slot,
        )
        for slot in range(SUIT_COUNT + 1)
    )


_DUTIES_OF: Final[PerRuleset[tuple[PlayDuties, ...]]] = PerRuleset(_all_duties)


@cache
def _duties(
    order: TrumpOrder,
    stichzwang: Stichzwang,
    trumpfzwang: Trumpfzwang,
    head_rule: HeadRule,
    undertrump: Undertrump,
    trump: int,
) -> PlayDuties:
    has_trump = trump != NO_TRUMP
    takes = _TAKES[order, trump]
    heads = _HEADS[order, trump]
    suit_indices = tuple(_INDEX_ORDERS[order, s == trump, s] for s in range(SUIT_COUNT))
    return PlayDuties(
        trump=trump,
        beats=_BEATS[order, trump],
        takes=takes,
        heads=heads,
        stichzwang=stichzwang is Stichzwang.ALWAYS
        or (stichzwang is Stichzwang.NO_TRUMP_ONLY and not has_trump),
        head_suit=head_rule is HeadRule.SUIT,
        trumpfzwang={
            Trumpfzwang.NONE: _TRUMPF_NONE,
            Trumpfzwang.ANY_TRUMP: _TRUMPF_ANY,
            Trumpfzwang.OVERTRUMP: _TRUMPF_OVER,
        }[trumpfzwang]
        if has_trump
        else _TRUMPF_NONE,
        undertrump_free=undertrump is Undertrump.FREE,
        suit_indices=suit_indices,
        suit_actions=tuple(_ACTION_ORDERS[order, s == trump, s] for s in range(SUIT_COUNT)),
        takes_flat=_flat(takes),
        heads_flat=_flat(heads),
        suit_indices_flat=tuple(table for by_mask in suit_indices for table in by_mask),
    )


def _flat(table: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """``table[row][card]`` at ``row << CARD_BITS | card``: every row is CARD_COUNT long."""
    assert all(len(row) == CARD_COUNT for row in table)
    return tuple(value for row in table for value in row)


def legal_card_mask(hand: int, led: int, win: int, head: int, duties: PlayDuties) -> int:
    """The mask of the cards of ``hand`` that may be played to the trick (R8.2, R8.3).

    ``led`` is ``NO_TRICK`` when the trick is empty; ``win`` and ``head`` are then ignored.
    """
    if led == NO_TRICK:
        return hand  # R8.2
    follow = hand & _SUIT_MASKS[led]
    if follow:  # R8.3a: Farbzwang comes first
        if duties.stichzwang:  # R8.3b
            better = follow & duties.beats[head if duties.head_suit else win]
            if better:
                return better
        return follow
    trump = duties.trump
    if duties.trumpfzwang == _TRUMPF_NONE:  # no-trump contract, or classic-1905
        return hand  # R8.3d
    trumps = hand & _SUIT_MASKS[trump]
    if not trumps:
        return hand  # R8.3d
    if win // RANK_COUNT != trump:
        return trumps  # R8.3c: must trump
    over = trumps & duties.beats[win]
    if over:  # R8.3c: must overtrump (classic-1860: any trump will do)
        return over if duties.trumpfzwang == _TRUMPF_OVER else trumps
    return hand if duties.undertrump_free else trumps  # R8.3c: still a trump (undertrump)


def add_to_trick(win: int, head: int, index: int, duties: PlayDuties) -> tuple[int, int, int]:
    """``(led, win, head)`` once card ``index`` is played to a trick whose winning card is
    ``win`` and whose highest card of the led suit is ``head`` (both ``NO_CARD`` before the
    lead). The card now wins the trick exactly when the new ``win`` is ``index`` (R8.4).

    >>> from brandeln.engine.cards import Card, Suit
    >>> from brandeln.engine.rulesets import find_ruleset
    >>> duties = duties_for(find_ruleset("standard"), Suit.HEARTS)
    >>> ca, h9 = Card.parse("CA").index, Card.parse("H9").index
    >>> led, win, head = add_to_trick(NO_CARD, NO_CARD, ca, duties)
    >>> add_to_trick(win, head, h9, duties) == (Suit.CLUBS, h9, ca)  # trumped; CA heads clubs
    True
    """
    head = duties.heads[head][index]
    return head // RANK_COUNT, duties.takes[win][index], head


def trick_state(cards: Sequence[int], duties: PlayDuties) -> tuple[int, int, int, int]:
    """``(led, win, head, win_position)`` of a trick whose card indices so far are ``cards``,
    in play order (see :func:`add_to_trick`); ``win_position`` is the winning card's place in
    ``cards``. An empty trick gives ``(NO_TRICK, NO_CARD, NO_CARD, 0)``.

    >>> from brandeln.engine.cards import Card, Suit
    >>> from brandeln.engine.rulesets import find_ruleset
    >>> duties = duties_for(find_ruleset("standard"), Suit.HEARTS)
    >>> trick_state([Card.parse(c).index for c in ("CA", "CK", "H9")], duties)[3]
    2
    """
    led, win, head = NO_TRICK, NO_CARD, NO_CARD
    win_position = 0
    for position, index in enumerate(cards):
        led, win, head = add_to_trick(win, head, index, duties)
        if win == index:
            win_position = position
    return led, win, head, win_position


# Where each suit's eight bits start in a mask (clubs at bit 0).
_SPADES_AT: Final = Suit.SPADES * RANK_COUNT
_HEARTS_AT: Final = Suit.HEARTS * RANK_COUNT
_DIAMONDS_AT: Final = Suit.DIAMONDS * RANK_COUNT
_ONE_SUIT: Final = _SUIT_SIZE - 1


def canonical_card_indices(mask: int, duties: PlayDuties) -> list[int]:
    """The cards of ``mask`` as indices in canonical order (R12.3): by suit C S H D, then low
    to high by the order that applies in the deal."""
    return _in_canonical_order(mask, duties.suit_indices)


# Per (order, trump slot): the four suits' low-to-high index tables, as in PlayDuties.
_SUIT_INDEX_TABLES: Final = {
    (order, trump): tuple(_INDEX_ORDERS[order, s == trump, s] for s in range(SUIT_COUNT))
    for order in TrumpOrder
    for trump in range(SUIT_COUNT + 1)
}


def canonical_indices(mask: int, trump: Suit | None, order: TrumpOrder) -> list[int]:
    """The cards of ``mask`` as indices in canonical order (R12.3) for a deal with ``trump``
    (``None`` before it is named and in no-trump contracts: the natural order everywhere)."""
    slot = NO_TRUMP if trump is None else int(trump)
    return _in_canonical_order(mask, _SUIT_INDEX_TABLES[order, slot])


def canonical_cards(cards: Iterable[Card], trump: Suit | None, order: TrumpOrder) -> list[Card]:
    """``cards`` sorted as legal lists are (R12.3): by suit C S H D, then low to high.

    Low to high means by strength in this deal: with hearts trump under the standard order the
    hearts go 9 T Q K A 7 J (the jack is the highest trump), the other suits 7 9 T J Q K A.

    >>> from brandeln.engine.cards import Suit, parse_cards, format_cards
    >>> hand = parse_cards("C9 CA S7 S9 SJ HJ HQ")
    >>> format_cards(canonical_cards(hand, Suit.SPADES, TrumpOrder.JACK_SEVEN_FIRST))
    'C9 CA S9 S7 SJ HJ HQ'
    >>> format_cards(canonical_cards(hand, None, TrumpOrder.JACK_SEVEN_FIRST))
    'C9 CA S7 S9 SJ HJ HQ'
    """
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return [CARDS[i] for i in canonical_indices(mask, trump, order)]


def _in_canonical_order(mask: int, tables: tuple[tuple[tuple[int, ...], ...], ...]) -> list[int]:
    clubs, spades, hearts, diamonds = tables
    return [
        *clubs[mask & _ONE_SUIT],
        *spades[mask >> _SPADES_AT & _ONE_SUIT],
        *hearts[mask >> _HEARTS_AT & _ONE_SUIT],
        *diamonds[mask >> _DIAMONDS_AT & _ONE_SUIT],
    ]


def canonical_play_cards(mask: int, duties: PlayDuties) -> list[PlayCard]:
    """The cards of ``mask`` as :class:`PlayCard` actions in canonical order (R12.3)."""
    clubs, spades, hearts, diamonds = duties.suit_actions
    # Appended one by one: compiled (setup.py), a native loop over a few items costs about half
    # of what unpacking four tuples into a list does (each unpacking is a list-slice call).
    cards: list[PlayCard] = []
    for action in clubs[mask & _ONE_SUIT]:
        cards.append(action)
    for action in spades[mask >> _SPADES_AT & _ONE_SUIT]:
        cards.append(action)
    for action in hearts[mask >> _HEARTS_AT & _ONE_SUIT]:
        cards.append(action)
    for action in diamonds[mask >> _DIAMONDS_AT & _ONE_SUIT]:
        cards.append(action)
    return cards


_SUIT_NAMES: Final = ("clubs", "spades", "hearts", "diamonds")


def explain_illegal_card(
    hand: int, index: int, *, led: int, win: int, head: int, duties: PlayDuties
) -> str:
    """Why playing card ``index`` is illegal here, for error messages: it names the duty that
    :func:`legal_card_mask` applied, read off the legal cards rather than decided again.
    Raises ``ValueError`` when the card is legal."""
    card = CARDS[index]
    if not hand >> index & 1:
        return f"not your hand: {card}"
    legal = legal_card_mask(hand, led, win, head, duties)
    if legal >> index & 1:
        raise ValueError(f"{card} may be played here")
    if not legal & ~SUIT_MASKS[led]:  # every legal card follows suit
        if index // RANK_COUNT != led:
            return f"must follow {_SUIT_NAMES[led]}"  # R8.3a
        if duties.head_suit and head != win:  # R8.3b
            return f"must beat the highest {_SUIT_NAMES[led]} card {CARDS[head]}"
        return f"must beat the winning card {CARDS[win]}"
    # Void in the led suit, every legal card a trump (R8.3c).
    trump = _SUIT_NAMES[duties.trump]
    if index // RANK_COUNT == duties.trump:
        return f"must overtrump {CARDS[win]}"
    if win // RANK_COUNT == duties.trump:
        return f"must play a trump ({trump}), even under {CARDS[win]}"
    return f"must trump: you hold {trump} and no {_SUIT_NAMES[led]}"

"""An independent oracle of the play rules, for the engine tests.

A naive, direct transcription of RULES.md R2 and R8 (and the duty switches of section 6) on
``Card`` objects and lists. It shares no code with ``brandeln.engine.trick_rules``, so comparing the
two catches a wrong table or a wrong shortcut in the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from brandeln.engine.cards import Card, Rank, Suit
from brandeln.engine.rulesets import (
    HeadRule,
    Ruleset,
    Stichzwang,
    Trumpfzwang,
    TrumpOrder,
    Undertrump,
)
from brandeln.engine.state import DealState

_NATURAL = [Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE]
_JACK_SEVEN_TRUMPS = [Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.QUEEN, Rank.KING, Rank.ACE]
_JACK_SEVEN_TRUMPS += [Rank.SEVEN, Rank.JACK]


def oracle_strength(card: Card, trump: Suit | None, order: TrumpOrder) -> int:
    """Position of the card's rank in its suit's order, low = 0 (R2.2, R2.3)."""
    if card.suit == trump and order is TrumpOrder.JACK_SEVEN_FIRST:
        return _JACK_SEVEN_TRUMPS.index(card.rank)
    return _NATURAL.index(card.rank)


def oracle_beats(a: Card, w: Card, trump: Suit | None, order: TrumpOrder) -> bool:
    """RULES.md R8.4's ``beats``, verbatim."""
    if a.suit == trump and w.suit != trump:
        return True
    if w.suit == trump and a.suit != trump:
        return False
    if a.suit != w.suit:
        return False
    return oracle_strength(a, trump, order) > oracle_strength(w, trump, order)


def oracle_winner(trick: Sequence[Card], trump: Suit | None, order: TrumpOrder) -> int:
    """Position of the winning card: highest trump, else highest card of the led suit."""
    trumps = [c for c in trick if c.suit == trump]
    pool = trumps if trumps else [c for c in trick if c.suit == trick[0].suit]
    best = max(pool, key=lambda c: oracle_strength(c, trump, order))
    return list(trick).index(best)


def oracle_legal(
    ruleset: Ruleset, trump: Suit | None, hand: Sequence[Card], trick: Sequence[Card]
) -> set[Card]:
    """The legal cards by RULES.md R8.3 and section 6, written the long way."""
    order = ruleset.trump_order
    if not trick:
        return set(hand)
    led = trick[0].suit
    winning = trick[oracle_winner(trick, trump, order)]
    follow = [c for c in hand if c.suit == led]
    if follow:
        stich = ruleset.stichzwang is Stichzwang.ALWAYS or (
            ruleset.stichzwang is Stichzwang.NO_TRUMP_ONLY and trump is None
        )
        if not stich:
            return set(follow)
        if ruleset.head_rule is HeadRule.SUIT:
            led_cards = [c for c in trick if c.suit == led]
            target = max(led_cards, key=lambda c: oracle_strength(c, trump, order))
        else:
            target = winning
        better = [c for c in follow if oracle_beats(c, target, trump, order)]
        return set(better or follow)
    if trump is None or ruleset.trumpfzwang is Trumpfzwang.NONE:
        return set(hand)
    trumps = [c for c in hand if c.suit == trump]
    if not trumps:
        return set(hand)
    if not any(c.suit == trump for c in trick):
        return set(trumps)
    over = [c for c in trumps if oracle_beats(c, winning, trump, order)]
    if over:
        return set(over) if ruleset.trumpfzwang is Trumpfzwang.OVERTRUMP else set(trumps)
    return set(hand) if ruleset.undertrump is Undertrump.FREE else set(trumps)


def oracle_legal_in(state: DealState) -> set[Card]:
    """The oracle's legal cards for the seat to act in a play-phase state."""
    assert state.to_act is not None
    hand = list(state.hand(state.to_act))
    trick = [card for _, card in state.current_trick]
    return oracle_legal(state.ruleset, state.trump, hand, trick)

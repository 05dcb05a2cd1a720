"""The cards a seat has not seen, dealt again at random consistently with everything it saw.

What the play shows about the other hands comes from the engine's own legality test
(:func:`brandeln.engine.trick_rules.legal_card_mask`): a seat that played card ``c`` to a trick
cannot have held any card ``o`` with which ``c`` would have been illegal then (a failure to follow
shows a void, a failure to beat or to trump shows the lack of such a card, R8.3). Testing the
card played against one other card at a time is exact: the duties of R8.3 rank the cards of a
hand in tiers (follow and beat, follow, overtrump, trump, any), a card is legal when it sits
in the hand's highest tier, so it was legal in the whole hand exactly when no single card of
the hand outranked it.

Among the deals that fit, :func:`sample_hidden_hands` draws one uniformly: the unseen cards
fall into classes by which holders may take them, and the number of ways to complete each
partial deal is counted exactly, class by class, so every consistent deal has the same
chance (what OpenSpiel's information-set searches assume of ``resample_from_infostate``).

>>> from brandeln.engine.actions import PASS
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.state import DealState
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=1))
>>> hands = sample_hidden_hands(state, observer=0, uniform=iter([0.5] * 99).__next__)
>>> [hand.bit_count() for hand in hands], hands[0] == state.hand(0).mask
([7, 7, 7, 7], True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from math import factorial

from brandeln.engine.rulesets import Ruleset
from brandeln.engine.seats import seat_after
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import (
    NO_CARD,
    NO_TRICK,
    PlayDuties,
    add_to_trick,
    legal_card_mask,
)

__all__ = ["count_deals", "deal_uniformly", "ruled_out", "ruled_out_by_play", "sample_hidden_hands"]

Uniform = Callable[[], float]
"""A source of numbers uniform in [0, 1): ``random.random``, or OpenSpiel's
``UniformProbabilitySampler``."""

# One class of unseen cards: the holders that may take them (a bitmask over the holders), and
# the cards.
_Class = tuple[int, list[int]]


def _played_tricks(state: DealState) -> Iterator[tuple[int, list[int]]]:
    """(leader, card indices in play order) of every trick so far, the current one last."""
    for trick in state.tricks:
        yield trick.leader, [card.index for card in trick.cards]
    if state.current_trick:
        yield state.current_trick[0][0], [card.index for _, card in state.current_trick]


def ruled_out(state: DealState) -> list[int]:
    """Per seat, the mask of the cards the play shows it does not hold (see the module
    docstring); public knowledge, the same for every observer."""
    return ruled_out_by_play(state.ruleset, state.duties, _played_tricks(state))


def ruled_out_by_play(
    ruleset: Ruleset, duties: PlayDuties | None, tricks: Iterable[tuple[int, Sequence[int]]]
) -> list[int]:
    """:func:`ruled_out` from the public record alone: the play's ``duties`` (None before the
    play) and every trick so far as (leader, card indices in play order), the current one
    last; what a seat at a referee knows from its ``DecisionRequest``."""
    players = ruleset.players
    out = [0] * players
    if duties is None:  # no card played yet
        return out
    deck = ruleset.deck().mask
    for leader, cards in tricks:
        led, win, head = NO_TRICK, NO_CARD, NO_CARD
        for place, card in enumerate(cards):
            seat = seat_after(leader, place, players)
            others = deck & ~(1 << card) & ~out[seat]
            while place and others:
                low = others & -others
                others ^= low
                if not legal_card_mask(1 << card | low, led, win, head, duties) >> card & 1:
                    out[seat] |= low
            led, win, head = add_to_trick(win, head, card, duties)
    return out


def _splits(count: int, holders: Sequence[int], room: Sequence[int]) -> Iterator[list[int]]:
    """Every way to give ``count`` cards to ``holders`` (indices) within their ``room``, as a
    number per holder index (0 for the others)."""
    if not holders:
        if count == 0:
            yield [0] * len(room)
        return
    first, rest = holders[0], holders[1:]
    left_for_rest = sum(room[h] for h in rest)
    for given in range(max(0, count - left_for_rest), min(count, room[first]) + 1):
        for split in _splits(count - given, rest, room):
            split[first] = given
            yield split


def _arrangements(count: int, split: Sequence[int]) -> int:
    """How many ways ``count`` distinct cards go to the holders in the numbers ``split``."""
    ways = factorial(count)
    for given in split:
        ways //= factorial(given)
    return ways


class _Counter:
    """The number of ways to deal classes ``index``, ``index + 1``, ... into the room left."""

    def __init__(self, classes: Sequence[_Class]) -> None:
        self.classes = classes
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def ways(self, index: int, room: tuple[int, ...]) -> int:
        if index == len(self.classes):
            return 1 if not any(room) else 0
        key = (index, room)
        known = self.memo.get(key)
        if known is not None:
            return known
        total = sum(weight for weight, _ in self.choices(index, room))
        self.memo[key] = total
        return total

    def choices(self, index: int, room: tuple[int, ...]) -> Iterator[tuple[int, list[int]]]:
        """(ways, split) of each way to deal class ``index`` into ``room``."""
        allowed, cards = self.classes[index]
        holders = [h for h in range(len(room)) if allowed >> h & 1 and room[h]]
        for split in _splits(len(cards), holders, room):
            rest = tuple(r - s for r, s in zip(room, split, strict=True))
            ways = self.ways(index + 1, rest)
            if ways:
                yield _arrangements(len(cards), split) * ways, split


def _classes(cards: Sequence[int], forbidden: Sequence[int]) -> list[_Class]:
    by_allowed: dict[int, list[int]] = {}
    everyone = (1 << len(forbidden)) - 1
    for card in cards:
        allowed = everyone
        for holder, mask in enumerate(forbidden):
            if mask >> card & 1:
                allowed &= ~(1 << holder)
        by_allowed.setdefault(allowed, []).append(card)
    return sorted(by_allowed.items())


def count_deals(cards: Sequence[int], room: Sequence[int], forbidden: Sequence[int]) -> int:
    """How many ways ``cards`` can be dealt to holders with ``room[h]`` places each, holder
    ``h`` never taking a card of mask ``forbidden[h]``.

    >>> count_deals([0, 1, 2], [1, 2], [0, 0]), count_deals([0, 1, 2], [1, 2], [0b111, 0])
    (3, 0)
    """
    return _Counter(_classes(cards, forbidden)).ways(0, tuple(room))


def _pick(weights: Sequence[int], uniform: Uniform) -> int:
    total = sum(weights)
    # int(u * total) is below total for u < 1; min() guards a sampler that returns 1.0.
    target = min(int(uniform() * total), total - 1)
    for choice, weight in enumerate(weights):
        if target < weight:
            return choice
        target -= weight
    raise AssertionError("unreachable: the target lies below the total")


def deal_uniformly(
    cards: Sequence[int], room: Sequence[int], forbidden: Sequence[int], uniform: Uniform
) -> list[int]:
    """One of the :func:`count_deals` ways, each as likely: the hands as masks per holder."""
    classes = _classes(cards, forbidden)
    counter = _Counter(classes)
    left = tuple(room)
    if not counter.ways(0, left):
        raise ValueError("no deal of the unseen cards fits what was played")
    hands = [0] * len(room)
    for index, (_, members) in enumerate(classes):
        options = list(counter.choices(index, left))
        split = options[_pick([ways for ways, _ in options], uniform)][1]
        shuffled = list(members)
        for last in range(len(shuffled) - 1, 0, -1):  # Fisher-Yates on the given numbers
            other = min(int(uniform() * (last + 1)), last)
            shuffled[last], shuffled[other] = shuffled[other], shuffled[last]
        start = 0
        for holder, given in enumerate(split):
            for card in shuffled[start : start + given]:
                hands[holder] |= 1 << card
            start += given
        left = tuple(r - s for r, s in zip(left, split, strict=True))
    return hands


def sample_hidden_hands(state: DealState, observer: int, uniform: Uniform) -> list[int]:
    """Every seat's current hand as a mask, the ``observer``'s as it is and the others dealt
    uniformly among the deals that fit what ``observer`` saw; then the blind's, in
    ``three-player``, as the last entry (no player plays it, so nothing rules a card out)."""
    ruleset = state.ruleset
    players = ruleset.players
    played = [0] * players
    seen = state.hand(observer).mask
    for leader, cards in _played_tricks(state):
        for place, card in enumerate(cards):
            played[seat_after(leader, place, players)] += 1
            seen |= 1 << card
    holders = [seat for seat in range(players) if seat != observer]
    # The cards each holder still has: public, the hand size less the cards it has played.
    room = [ruleset.hand_size - played[seat] for seat in holders]
    out = ruled_out(state)
    forbidden = [out[seat] for seat in holders]
    if ruleset.blind:
        room.append(ruleset.hand_size)  # the blind is never played
        forbidden.append(0)
    unseen = ruleset.deck().mask & ~seen
    cards = [index for index in range(unseen.bit_length()) if unseen >> index & 1]
    dealt = deal_uniformly(cards, room, forbidden, uniform)
    hands = [0] * players
    hands[observer] = state.hand(observer).mask
    for holder, seat in enumerate(holders):
        hands[seat] = dealt[holder]
    return hands + dealt[len(holders) :]

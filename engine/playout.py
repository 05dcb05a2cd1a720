"""Fast playouts, for search bots and the benchmark.

A playout finishes a deal with random legal actions, or with a search bot's own policy for the
cards. It runs on plain ints instead of ``DealState`` values, but on the same rules core as
``DealState``: :mod:`brandeln.engine.auction` for the auction and its result,
:func:`brandeln.engine.trick_rules.legal_card_mask` for the duties of R8.3, the tables of
:func:`brandeln.engine.trick_rules.add_to_trick` for the trick (R8.4), and
:mod:`brandeln.engine.settlement` for the end of the deal and its outcome. It draws from ``rng``
exactly as a loop over ``state.legal_actions()`` choosing ``actions[rng.randrange(len(actions))]``
would, so both paths give the same deal for the same ``rng`` (a test holds them to it).

>>> import random
>>> from brandeln.engine.dealing import deal_cards
>>> from brandeln.engine.rulesets import find_ruleset
>>> from brandeln.engine.state import DealState
>>> ruleset = find_ruleset("standard")
>>> state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=3))
>>> outcome = random_playout(state, random.Random(9))
>>> slow = state
>>> rng = random.Random(9)
>>> while not slow.is_over():
...     actions = slow.legal_actions()
...     slow = slow.apply(actions[rng.randrange(len(actions))])
>>> slow.outcome() == outcome
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, TypeAlias

from brandeln.engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid
from brandeln.engine.auction import NO_BID, auction_result, lowest_legal_level, next_to_speak
from brandeln.engine.cards import RANK_COUNT, SUIT_COUNT, Suit
from brandeln.engine.dealing import Deal
from brandeln.engine.outcome import DealOutcome
from brandeln.engine.per_ruleset import PerRuleset
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import Contract, Ruleset
from brandeln.engine.seats import forehand_of, left_of_each, seat_after
from brandeln.engine.settlement import deal_ends_after, deal_outcome
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import (
    CARD_BITS,
    NO_CARD,
    NO_TRICK,
    NO_TRUMP,
    RANK_BITS,
    PlayDuties,
    duties_for,
    legal_card_mask,
    trick_state,
)

__all__ = ["CardPolicy", "playout_deal", "playout_from", "random_playout"]

CardPolicy: TypeAlias = Callable[[int, int, int, int, int, list[int]], int]
"""A playout's choice of card: ``policy(seat, legal, trick_size, win, win_seat, tricks_won)``
returns the index of a card of the mask ``legal`` for ``seat``, given how many cards the trick
holds, the index of the card winning it and that card's seat (both meaningless when
``trick_size`` is 0), and the tricks won so far per seat."""

_SUITS: Final = tuple(Suit)
# The loop's bit constants as literals: compiled, a Final with a literal value is a constant
# in the C code, one computed at import a static read and checked at every use.
_ONE_SUIT: Final = 0xFF  # the eight bits of one suit in a card mask


class _Facts:
    """What every playout of one ruleset reads, as native fields: a Ruleset's fields are
    attribute lookups on an interpreted class, a dozen of them a deal."""

    __slots__ = (
        "contracts",
        "duties",
        "early_stop",
        "holds",
        "left",
        "picks",
        "players",
        "ruleset",
        "tricks",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = ruleset.players
        self.tricks = ruleset.tricks
        self.early_stop = ruleset.early_stop
        self.holds = ruleset.holds
        self.contracts = ruleset.contracts
        self.left = left_of_each(ruleset.players)
        # The duties by trump slot: the four suits, then NO_TRUMP (duties_for's own tables).
        self.duties = tuple(duties_for(ruleset, trump) for trump in (*_SUITS, None))
        self.picks = tuple(_packed_picks(duties) for duties in self.duties)


def _packed_picks(duties: PlayDuties) -> tuple[int, ...]:
    """``duties.suit_indices_flat`` with each entry packed into one int: how many cards the
    suit mask holds (the low _PICK_COUNT_BITS), then their indices low to high, CARD_BITS each.
    The play loop reads one native int a suit where the tuple of indices is two reads and a
    count, every card (a test holds the two tables together)."""
    packed = []
    for indices in duties.suit_indices_flat:
        entry = len(indices)
        for position, index in enumerate(indices):
            entry |= index << _PICK_COUNT_BITS + CARD_BITS * position
        packed.append(entry)
    return tuple(packed)


_PICK_COUNT_BITS: Final = 4  # a suit holds at most RANK_COUNT (8) cards
_PICK_COUNT: Final = 0xF
_CARD_MASK: Final = 0x1F  # the CARD_BITS of one card index


_FACTS: Final[PerRuleset[_Facts]] = PerRuleset(_Facts)


# Where each suit's tables start in PlayDuties.suit_indices_flat (clubs at 0).
_SPADES_ROW: Final = 0x100
_HEARTS_ROW: Final = 0x200
_DIAMONDS_ROW: Final = 0x300
assert _ONE_SUIT == (1 << RANK_COUNT) - 1
assert _CARD_MASK == (1 << CARD_BITS) - 1
assert _PICK_COUNT == (1 << _PICK_COUNT_BITS) - 1
assert RANK_COUNT < 1 << _PICK_COUNT_BITS
assert tuple(suit << RANK_COUNT for suit in (1, 2, 3)) == (_SPADES_ROW, _HEARTS_ROW, _DIAMONDS_ROW)


def playout_deal(
    ruleset: Ruleset,
    deal: Deal,
    rng: random.Random,
    pool: int = 0,
    record: list[Action] | None = None,
) -> DealOutcome:
    """Play a whole deal (auction, trump, play) with random legal actions.

    ``deal`` is trusted (no validation: this is the hot path); ``record``, when given,
    receives every action taken.
    """
    facts = _FACTS.of(ruleset)
    hands = [hand.mask for hand in deal.hands]
    seat = forehand_of(deal.dealer, facts.players)  # R5.1
    return _from_auction(facts, deal, pool, rng, record, hands, seat, None, NO_BID, 0)


def random_playout(
    state: DealState, rng: random.Random, record: list[Action] | None = None
) -> DealOutcome:
    """Finish ``state`` with random legal actions and return the outcome.

    ``record``, when given, receives every action taken.
    """
    outcome = state.outcome()
    if outcome is not None:
        return outcome
    seat = state.to_act
    assert seat is not None
    ruleset = state.ruleset
    hands = [hand.mask for hand in state.hands]
    if state.phase is Phase.AUCTION:
        auction = state.auction_state
        return _from_auction(
            _FACTS.of(ruleset),
            state.deal,
            state.pool,
            rng,
            record,
            hands,
            seat,
            auction.holder,
            auction.level,
            auction.passed,
        )
    trump = state.trump
    if state.phase is Phase.TRUMP:
        exact = type(rng) is random.Random
        trump = _name_trump(rng.getrandbits if exact else rng.randrange, exact, record)
    leader = state.leader
    won = list(state.tricks_won)
    playout_from(
        ruleset,
        hands,
        won,
        leader=seat if leader is None else leader,
        trick=[card.index for _, card in state.current_trick],
        soloist=state.soloist,
        contract=state.contract,
        trump=trump,
        rng=rng,
        record=record,
    )
    return deal_outcome(
        ruleset,
        state.deal,
        state.pool,
        soloist=state.soloist,
        contract=state.contract,
        trump=trump,
        passed_out=state.passed_out,
        tricks_won=tuple(won),
        hands=hands,
    )


def playout_from(
    ruleset: Ruleset,
    hands: list[int],
    tricks_won: list[int],
    *,
    leader: int,
    trick: Sequence[int],
    soloist: int | None,
    contract: Contract | None,
    trump: Suit | None,
    rng: random.Random,
    policy: CardPolicy | None = None,
    record: list[Action] | None = None,
) -> None:
    """Play a deal on from the middle of its play until it ends (:func:`deal_ends`).

    ``hands`` (each seat's card mask) and ``tricks_won`` (per seat) are lists this updates in
    place; ``trick`` holds the card indices of the trick in progress, led by ``leader``.
    ``policy`` chooses the cards (see :data:`CardPolicy`); without one they are drawn from
    ``rng`` like :func:`random_playout`'s. ``record``, when given, receives every card played.
    A search bot plays determinized deals out this way, trusted: nothing is validated.

    >>> from brandeln.engine.cards import CardSet, parse_cards
    >>> from brandeln.engine.rulesets import find_ruleset
    >>> ruleset = find_ruleset("standard")
    >>> hands = [CardSet(parse_cards(text)).mask for text in ("HA", "SA", "HJ", "D7")]
    >>> won = [3, 3, 0, 0]  # the last trick of a brand: seat 2 leads the trump jack
    >>> playout_from(ruleset, hands, won, leader=2, trick=[], soloist=2,
    ...              contract=ruleset.contract("brand"), trump=Suit.HEARTS, rng=random.Random(1))
    >>> won, hands
    ([3, 3, 1, 0], [0, 0, 0, 0])
    """
    facts = _FACTS.of(ruleset)
    _play(facts, trump, contract, soloist, hands, tricks_won, leader, trick, rng, policy, record)


def _below(draw: Callable[[int], int], exact: bool, n: int) -> int:
    """``Random.randrange(n)``, draw for draw, without its two frames: ``draw`` is the
    generator's ``getrandbits`` when ``exact`` (a ``random.Random`` itself), else its
    ``randrange``. (The play loop inlines the same lines: it is the hottest loop.)"""
    if not exact:
        return draw(n)
    k = n.bit_length()
    choice = draw(k)
    while choice >= n:
        choice = draw(k)
    return choice


def _name_trump(draw: Callable[[int], int], exact: bool, record: list[Action] | None) -> Suit:
    """R7.1, drawing as legal_actions() orders the suits: ``draw`` is the generator's
    ``getrandbits`` when ``exact`` (a ``random.Random`` itself), else its ``randrange``."""
    trump = _SUITS[_below(draw, exact, SUIT_COUNT)]
    if record is not None:
        record.append(NAME_TRUMPS[trump])
    return trump


def _from_auction(
    facts: _Facts,
    deal: Deal,
    pool: int,
    rng: random.Random,
    record: list[Action] | None,
    hands: list[int],
    seat: int,
    holder: int | None,
    level: int,
    passed: int,
) -> DealOutcome:
    """Finish the auction with ``seat`` to speak, then the deal."""
    ruleset = facts.ruleset
    players = facts.players
    exact = type(rng) is random.Random  # draws by getrandbits, as Random.randrange does
    # One bound method, the one the draws use: each is an attribute lookup on the interpreted
    # Random subclass and a new object.
    draw = rng.getrandbits if exact else rng.randrange
    contracts = facts.contracts
    dealer = deal.dealer
    holds = facts.holds
    next_seat: int | None = seat
    while next_seat is not None:  # R5, drawing as legal_actions() orders them
        seat = next_seat
        low = lowest_legal_level(level, holder, seat, dealer=dealer, players=players, holds=holds)
        n = 1 + len(contracts) - low  # 0: pass, then the contracts low to high
        choice = _below(draw, exact, n)
        if choice == 0:
            passed |= 1 << seat  # R5.2
            if record is not None:
                record.append(PASS)
        else:
            holder, level = seat, low + choice - 1
            if record is not None:
                record.append(Bid(contracts[level].id))
        next_seat = next_to_speak(seat, passed, holder, players)
    soloist, contract, passed_out, leader = auction_result(ruleset, holder, level, dealer)
    trump = None
    won = [0] * players
    if leader is not None:
        if contract is not None and contract.trump:
            trump = _name_trump(draw, exact, record)
        _play(facts, trump, contract, soloist, hands, won, leader, (), rng, None, record)
    return deal_outcome(
        ruleset,
        deal,
        pool,
        soloist=soloist,
        contract=contract,
        trump=trump,
        passed_out=passed_out,
        tricks_won=tuple(won),
        hands=hands,
    )


def _play(
    facts: _Facts,
    trump: Suit | None,
    contract: Contract | None,
    soloist: int | None,
    hands: list[int],
    won: list[int],
    leader: int,
    trick: Sequence[int],
    rng: random.Random,
    policy: CardPolicy | None,
    record: list[Action] | None,
) -> None:
    """The play loop (R8): cards until the deal ends; ``hands`` and ``won`` change in place."""
    players = facts.players
    slot = NO_TRUMP if trump is None else int(trump)
    duties = facts.duties[slot]
    in_trick = len(trick)
    if in_trick:
        led, win, head, win_position = trick_state(trick, duties)
        seat = seat_after(leader, in_trick, players)
        win_seat = seat_after(leader, win_position, players)
    else:
        led, win, head, seat, win_seat = NO_TRICK, NO_CARD, NO_CARD, leader, leader
    exact = type(rng) is random.Random  # draws by getrandbits, as Random.randrange does
    # One bound method, the one the draws use: each is an attribute lookup on the interpreted
    # Random subclass and a new object.
    draw = rng.getrandbits if exact else rng.randrange
    left = facts.left
    tricks, early_stop = facts.tricks, facts.early_stop
    played = 0
    for count in won:
        played += count
    # The flat tables (one lookup each, see PlayDuties): compiled, every tuple read here is
    # a bounds check, a reference count and an unboxing. ``heads`` matters only to the switch
    # head_rule = suit (legal_card_mask reads ``head`` for nothing else): without it ``head``
    # stays NO_CARD and the led suit is the first card's.
    takes, heads, head_suit = duties.takes_flat, duties.heads_flat, duties.head_suit
    picks = facts.picks[slot]
    # Without a policy (nobody looks at ``hands`` until the playout returns) and with hands
    # that share no card, a card played clears one bit of a native int, and each hand is that
    # seat's cards at the start & it: compiled, a hand stored back into the list is a fresh
    # boxed int at every card. ``hands`` is written once, at the end.
    start = tuple(hands)
    unplayed = 0
    packed = policy is None
    for mask in start:
        if unplayed & mask:
            packed = False  # a card in two hands (trusted input): each hand on its own
        unplayed |= mask
    while True:
        hand = start[seat] & unplayed if packed else hands[seat]
        mask = legal_card_mask(hand, led, win, head, duties)
        if policy is None:
            # legal[randrange(len(legal))] for legal = canonical_card_indices(mask, duties),
            # without building the list: count suit by suit, draw, then find the card in its
            # suit's low-to-high cards; one packed entry a suit holds both (see _packed_picks).
            clubs = picks[mask & _ONE_SUIT]
            spades = picks[_SPADES_ROW | (mask >> RANK_COUNT & _ONE_SUIT)]
            hearts = picks[_HEARTS_ROW | (mask >> 2 * RANK_COUNT & _ONE_SUIT)]
            diamonds = picks[_DIAMONDS_ROW | mask >> 3 * RANK_COUNT]
            in_clubs = clubs & _PICK_COUNT
            in_spades = spades & _PICK_COUNT
            in_hearts = hearts & _PICK_COUNT
            n = in_clubs + in_spades + in_hearts + (diamonds & _PICK_COUNT)
            if exact:
                k = n.bit_length()
                choice = draw(k)
                while choice >= n:
                    choice = draw(k)
            else:
                choice = draw(n)
            if choice < in_clubs:
                suit = clubs
            else:
                choice -= in_clubs
                if choice < in_spades:
                    suit = spades
                else:
                    choice -= in_spades
                    if choice < in_hearts:
                        suit = hearts
                    else:
                        suit = diamonds
                        choice -= in_hearts
            index = suit >> (_PICK_COUNT_BITS + CARD_BITS * choice) & _CARD_MASK
        else:
            index = policy(seat, mask, in_trick, win, win_seat, won)
        if record is not None:
            record.append(PLAY_CARDS[index])
        if packed:
            unplayed ^= 1 << index
        else:
            hands[seat] = hand ^ 1 << index
        # brandeln.engine.trick_rules.add_to_trick, inlined: this loop reads its tables directly.
        win = takes[win << CARD_BITS | index]
        if head_suit:
            head = heads[head << CARD_BITS | index]
        if win == index:
            win_seat = seat
        if not in_trick:
            led = index >> RANK_BITS  # R8.3: the suit of the first card
        in_trick += 1
        if in_trick < players:
            seat = left[seat]
            continue
        won[win_seat] = won[win_seat] + 1  # R8.4: the trick is complete (typed, not generic +=)
        played += 1
        if deal_ends_after(played, tricks, early_stop, contract, soloist, won):
            if packed:
                for position in range(len(start)):
                    hands[position] = start[position] & unplayed
            return
        seat = win_seat  # R8.1: the winner leads the next trick
        in_trick = 0
        led, win, head = NO_TRICK, NO_CARD, NO_CARD

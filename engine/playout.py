"""Fast random playouts, for search bots and the benchmark.

A playout finishes a deal with uniformly random legal actions. It runs on plain ints instead of
``DealState`` values, but uses the same rules core: :func:`engine.trick_rules.legal_card_mask`
for the duties of R8.3, :mod:`engine.auction` for the auction and :mod:`engine.settlement` for
the end of the deal and the chips. It draws from ``rng`` exactly as a loop over
``state.legal_actions()`` choosing ``actions[rng.randrange(len(actions))]`` would, so both
paths give the same deal for the same ``rng`` (a test holds them to it).

>>> import random
>>> from engine.dealing import deal_cards
>>> from engine.rulesets import find_ruleset
>>> from engine.state import DealState
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
from typing import Final

from engine.actions import NAME_TRUMPS, PASS, PLAY_CARDS, Action, Bid
from engine.auction import NO_BID, lowest_legal_level, next_to_speak
from engine.cards import RANK_COUNT, SUIT_COUNT, CardSet, Suit
from engine.dealing import Deal
from engine.outcome import DealOutcome
from engine.phase import Phase
from engine.rulesets import Contract, PassOut, Ruleset
from engine.seats import forehand_of, left_of, seat_after
from engine.settlement import (
    contract_payments,
    ends_early,
    free_play_payments,
    pass_out_payments,
)
from engine.state import DealState
from engine.trick_rules import (
    NO_TRICK,
    canonical_card_indices,
    duties_for,
    legal_card_mask,
)

__all__ = ["playout_deal", "random_playout"]

_SUITS: Final = tuple(Suit)


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
    return _run(
        ruleset,
        deal,
        pool,
        rng,
        record,
        hands=[hand.mask for hand in deal.hands],
        to_act=forehand_of(deal.dealer, ruleset.players),
    )


def random_playout(
    state: DealState, rng: random.Random, record: list[Action] | None = None
) -> DealOutcome:
    """Finish ``state`` with random legal actions and return the outcome.

    ``record``, when given, receives every action taken.
    """
    outcome = state.outcome()
    if outcome is not None:
        return outcome
    assert state.to_act is not None
    hands = [hand.mask for hand in state.hands]
    if state.phase is Phase.AUCTION:
        holder, level, passed = None, NO_BID, 0
        for made in state.auction:
            if made.bid == PASS:
                passed |= 1 << made.seat
            else:
                holder = made.seat
                level = state.ruleset.contract_ids().index(made.bid.contract)
        return _run(
            state.ruleset,
            state.deal,
            state.pool,
            rng,
            record,
            hands=hands,
            to_act=state.to_act,
            holder=holder,
            level=level,
            passed=passed,
        )
    return _run(
        state.ruleset,
        state.deal,
        state.pool,
        rng,
        record,
        hands=hands,
        to_act=state.to_act,
        auction_over=True,
        soloist=state.soloist,
        contract=state.contract,
        passed_out=state.passed_out,
        trump=state.trump,
        trump_named=state.phase is Phase.PLAY,
        trick=[card.index for _, card in state.current_trick],
        leader=state.leader if state.leader is not None else state.to_act,
        tricks_won=list(state.tricks_won),
    )


def _run(
    ruleset: Ruleset,
    deal: Deal,
    pool: int,
    rng: random.Random,
    record: list[Action] | None,
    *,
    hands: list[int],
    to_act: int,
    holder: int | None = None,
    level: int = NO_BID,
    passed: int = 0,
    auction_over: bool = False,
    soloist: int | None = None,
    contract: Contract | None = None,
    passed_out: bool = False,
    trump: Suit | None = None,
    trump_named: bool = False,
    trick: list[int] | None = None,
    leader: int = 0,
    tricks_won: list[int] | None = None,
) -> DealOutcome:
    players = ruleset.players
    randrange = rng.randrange
    seat = to_act
    won = tricks_won if tricks_won is not None else [0] * players

    def finish(payments: tuple[int, ...], made: bool | None, pool_delta: int) -> DealOutcome:
        return DealOutcome(
            dealer=deal.dealer,
            soloist=soloist,
            contract=contract.id if contract is not None else None,
            trump=trump,
            passed_out=passed_out,
            tricks_won=tuple(won),
            made=made,
            payments=payments,
            pool_delta=pool_delta,
            unplayed=tuple(CardSet.from_mask(mask) for mask in hands),
            hands=deal.hands,
            blind=deal.blind,
        )

    if not auction_over:  # R5, drawing as legal_actions() orders them: pass, then contracts
        contracts = ruleset.contracts
        forehand = forehand_of(deal.dealer, players)
        next_seat: int | None = seat
        while next_seat is not None:
            seat = next_seat
            low = lowest_legal_level(
                level, holder, seat, dealer=deal.dealer, players=players, holds=ruleset.holds
            )
            choice = randrange(1 + len(contracts) - low)
            if choice == 0:
                passed |= 1 << seat
                if record is not None:
                    record.append(PASS)
            else:
                holder, level = seat, low + choice - 1
                if record is not None:
                    record.append(Bid(contracts[level].id))
            next_seat = next_to_speak(seat, passed, holder, players)
        if holder is not None:
            soloist, contract = holder, contracts[level]
        else:
            passed_out = True
            if ruleset.pass_out is PassOut.MUSS:  # R6.1
                soloist, contract = forehand, contracts[0]
            elif ruleset.pass_out is not PassOut.FREE_PLAY:
                payments, pool_delta = pass_out_payments(ruleset)
                return finish(payments, None, pool_delta)
        # R8.1: the soloist leads (russian free play: the dealer)
        leader = soloist if soloist is not None else deal.dealer
    if contract is not None and contract.trump and not trump_named:  # R7.1
        trump = _SUITS[randrange(SUIT_COUNT)]
        if record is not None:
            record.append(NAME_TRUMPS[trump])
    duties = duties_for(ruleset, trump)
    beats = duties.beats
    cards_in_trick = trick if trick is not None else []
    seat = to_act if auction_over and trump_named else leader
    # Rebuild the trick in progress: its led suit, winning card and seat, highest led card.
    led = win = head = NO_TRICK
    win_seat = leader
    for position, index in enumerate(cards_in_trick):
        if position == 0:
            led, win, head = index // RANK_COUNT, index, index
        else:
            if beats[win] >> index & 1:
                win, win_seat = index, seat_after(leader, position, players)
            if index // RANK_COUNT == led and beats[head] >> index & 1:
                head = index
    in_trick = len(cards_in_trick)
    tricks_total = ruleset.tricks
    while True:
        legal = canonical_card_indices(
            legal_card_mask(hands[seat], led if in_trick else NO_TRICK, win, head, duties),
            duties,
        )
        index = legal[randrange(len(legal))]
        if record is not None:
            record.append(PLAY_CARDS[index])
        hands[seat] ^= 1 << index
        if in_trick == 0:
            led, win, head, win_seat = index // RANK_COUNT, index, index, seat
        else:
            if beats[win] >> index & 1:
                win, win_seat = index, seat
            if index // RANK_COUNT == led and beats[head] >> index & 1:
                head = index
        in_trick += 1
        if in_trick < players:
            seat = left_of(seat, players)
            continue
        # R8.4: the trick is complete.
        won[win_seat] += 1
        in_trick = 0
        seat = win_seat
        if sum(won) < tricks_total and not ends_early(ruleset, contract, soloist, tuple(won)):
            continue
        if contract is None or soloist is None:
            return finish(free_play_payments(tuple(won), tricks_total), None, 0)
        made, payments, pool_delta = contract_payments(ruleset, contract, soloist, tuple(won), pool)
        return finish(payments, made, pool_delta)

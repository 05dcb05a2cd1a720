"""The montecarlo bot: legal everywhere, inside its time budget, reads voids, beats heuristic."""

from __future__ import annotations

import random
import statistics

import pytest

from brandeln.arena import codec
from brandeln.engine.cards import CardSet, Suit, parse_cards
from brandeln.engine.dealing import deal_cards
from brandeln.engine.rulesets import RULESET_IDS, Goal, Ruleset, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import duties_for
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sample_bots.montecarlo import (
    BUDGET_SHARE,
    EPSILON,
    DeterminizedDeal,
    MonteCarloBot,
    Playout,
    bits,
    card_index,
)
from brandeln.sdk import Bot, parse_card, resolve_answer
from brandeln.v1 import bot_pb2, cards_pb2
from tests.bots.botkit_table import TickClock, match_started_for, play_deal, request_for


def cards(text: str) -> list[cards_pb2.Card]:
    return [parse_card(c) for c in text.split()]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_montecarlo_plays_whole_deals_of_every_ruleset_legally(ruleset_id: str) -> None:
    players = find_ruleset(ruleset_id).players
    for seed in range(3):
        bots: list[Bot] = [MonteCarloBot(seed=s, think_ms=5) for s in range(players)]
        outcome = play_deal(bots, ruleset_id, seed=seed, dealer=seed % players)
        assert len(outcome.payments) == players


def test_montecarlo_stays_inside_its_time_budget() -> None:
    """Every decision stops reading its clock within half the move's time (BUDGET_SHARE), so
    it never draws on the bank. Once this read the wall's CPU time against a bound, and a
    loaded machine failed it now and then."""
    ruleset = find_ruleset("standard")
    bot = MonteCarloBot(seed=1)
    clock = TickClock()
    bot.clock = clock
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=4))
    move_ms, request_id, longest = 120, 0, 0.0
    while not state.is_over():
        request_id += 1
        request = request_for(state, request_id, move_ms=move_ms)
        bot.match = match_started_for(ruleset, seat=request.view.seat)
        clock.readings.clear()
        choice = resolve_answer(request, bot.decide(request))
        if clock.readings:  # a forced choice reads no clock
            longest = max(longest, clock.readings[-1] - clock.readings[0])
        state = state.apply(codec.choice_to_action(choice, state.phase))
    assert longest > 0  # the searches did read the clock
    # Its deadline, plus the one reading that finds it passed.
    assert longest <= move_ms * BUDGET_SHARE / 1000 + TickClock.STEP_S + 1e-9
    assert longest < move_ms / 1000


def test_a_failure_to_follow_or_to_beat_shows_what_a_seat_cannot_hold() -> None:
    ruleset = find_ruleset("standard")
    duties = duties_for(ruleset, Suit.HEARTS)
    bot = MonteCarloBot(seed=2)
    # Seat 0 led CK; seat 1 played C7 (so it holds no club above the king: no CA);
    # seat 2 played SA (void in clubs, and, hearts being trump, void in trumps too).
    view = cards_pb2.PlayerView(
        seat=3,
        hand=[parse_card(c) for c in ["D7", "D9", "DT", "DJ", "DQ", "DK", "DA"]],
        current_trick_leader=0,
        current_trick=[parse_card(c) for c in ("CK", "C7", "SA")],
        trump=cards_pb2.SUIT_HEARTS,
    )
    hands, counts, unseen, forbidden = bot.world(view, ruleset, duties)
    assert counts[:4] == [6, 6, 6, 0]
    assert CardSet.from_mask(forbidden[1]) == CardSet(parse_cards("CA"))
    clubs_and_hearts = CardSet(parse_cards("CA CQ CJ CT C9 HJ H7 HA HK HQ HT H9"))
    assert CardSet.from_mask(forbidden[2]) == clubs_and_hearts
    for _ in range(50):
        dealt = bot.sample(hands, counts, unseen, forbidden)
        assert not dealt[2] & clubs_and_hearts.mask
        assert not dealt[1] >> card_index(parse_card("CA")) & 1
        assert [d.bit_count() for d in dealt[:4]] == [6, 6, 6, 7]


def test_montecarlo_bids_the_highest_sure_contract() -> None:
    ruleset = find_ruleset("standard")
    bot = MonteCarloBot(seed=3, think_ms=50)
    bot.match = match_started_for(ruleset, seat=0)
    legal = [
        cards_pb2.Choice(bid=cards_pb2.Bid(contract=c))
        for c in ("pass", "brandle", "brand", "bettel", "mord", "herrenmord")
    ]
    sure = cards_pb2.PlayerView(seat=0, hand=cards("HJ H7 HA HK HQ HT H9"), tricks_won=[0] * 4)
    request = bot_pb2.DecisionRequest(
        phase=cards_pb2.PHASE_BID, legal=legal, view=sure, move_ms=200
    )
    # Every heart: leading them without trump takes all seven tricks, so herrenmord (18)
    # beats mord (12) and everything below.
    assert bot.decide(request) == 5
    weak = cards_pb2.PlayerView(seat=0, hand=cards("CK CQ SK SQ HK HQ DQ"), tricks_won=[0] * 4)
    weak_request = bot_pb2.DecisionRequest(
        phase=cards_pb2.PHASE_BID, legal=legal, view=weak, move_ms=200
    )
    assert bot.decide(weak_request) == 0  # pass


def test_montecarlo_wins_more_chips_than_the_heuristic() -> None:
    # Duplicate: montecarlo in seats 0 and 2 against heuristic in 1 and 3, then swapped, on the
    # same deals. A fixed sample count (not a clock) keeps the test reproducible.
    diffs = []
    for seed in range(40):
        total = 0
        for mc_seats in ((0, 2), (1, 3)):
            bots: list[Bot] = [
                MonteCarloBot(seed=seed * 4 + s, think_ms=10_000, max_samples=25)
                if s in mc_seats
                else HeuristicBot()
                for s in range(4)
            ]
            outcome = play_deal(bots, seed=seed, dealer=seed % 4)
            total += sum(p if s in mc_seats else -p for s, p in enumerate(outcome.payments))
        diffs.append(total / 4)
    assert statistics.mean(diffs) > 1.0  # chips per deal and seat, montecarlo minus heuristic


def _list_policy(
    playout: Playout,
    seat: int,
    legal: int,
    trick_size: int,
    win: int,
    win_seat: int,
    won: list[int],
) -> int:
    """The greedy policy as it was written on lists, before it moved to masks: the oracle."""
    cards = bits(legal)
    if len(cards) == 1:
        return cards[0]
    if not trick_size or playout.rng.random() < EPSILON:
        return cards[playout.rng.randrange(len(cards))]
    beats = playout.beats

    def weakest(options: list[int]) -> int:
        return max(options, key=lambda c: beats[c].bit_count())

    def strongest(options: list[int]) -> int:
        return min(options, key=lambda c: beats[c].bit_count())

    winners = [c for c in cards if beats[win] >> c & 1]
    soloist, contract = playout.deal.soloist, playout.deal.contract
    if soloist is None or contract is None:
        wants = True
    elif contract.goal is Goal.ZERO:
        under = [c for c in cards if c not in winners]
        if seat == soloist:
            return strongest(under) if under else strongest(cards)
        if win_seat == soloist:
            return strongest(under) if under else weakest(cards)
        return weakest(cards)
    elif seat == soloist:
        wants = contract.goal is not Goal.EXACT or won[seat] < contract.tricks
    else:
        wants = win_seat == soloist
    if wants and winners:
        return weakest(winners)
    return weakest(cards)


class _CheckedPlayout(Playout):
    """A playout whose every card is also asked of the list policy, which must agree."""

    def __init__(self, ruleset: Ruleset, seed: int) -> None:
        super().__init__(ruleset, random.Random(seed))
        self.oracle = Playout(ruleset, random.Random(seed))  # the same draws, in step
        self.picks = 0

    def choose(
        self, seat: int, legal: int, trick_size: int, win: int, win_seat: int, won: list[int]
    ) -> int:
        self.oracle.deal, self.oracle.beats = self.deal, self.beats
        card = super().choose(seat, legal, trick_size, win, win_seat, won)
        expected = _list_policy(self.oracle, seat, legal, trick_size, win, win_seat, won)
        assert card == expected, (seat, legal, trick_size, win, win_seat, won)
        self.picks += 1
        return card


@pytest.mark.parametrize("ruleset_id", ["standard", "russian"])
def test_the_mask_policy_picks_the_cards_the_list_policy_picked(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    checked = 0
    for seed in range(150):
        deal = deal_cards(ruleset, seed % ruleset.players, seed)
        hands = [hand.mask for hand in deal.hands]
        contract = None if seed % 5 == 0 else ruleset.contracts[seed % len(ruleset.contracts)]
        trump = Suit(seed % 4) if contract is not None and contract.trump else None
        soloist = None if contract is None else seed % ruleset.players
        playout = _CheckedPlayout(ruleset, seed)
        playout.run(DeterminizedDeal(hands, 0, [], [0] * ruleset.players, soloist, contract, trump))
        checked += playout.picks
    assert checked > 1000

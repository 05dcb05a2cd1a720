"""The expert bot: legal everywhere, plays the solver's card when it sees the deal, bids the
sure contract, keeps to its budget by counting the solver's positions, has levels."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from brandeln.arena import codec
from brandeln.engine.cards import Suit
from brandeln.engine.dealing import deal_cards
from brandeln.engine.double_dummy import DoubleDummy
from brandeln.engine.phase import Phase
from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.state import DealState
from brandeln.engine.trick_rules import duties_for
from brandeln.sample_bots.expert import (
    CARD_PRIOR,
    LEVEL_PLAYOUTS,
    LEVEL_SAMPLES,
    ExpertBot,
    agreed_prior,
    level_samples,
    made_payoff,
)
from brandeln.sample_bots.montecarlo import MIN_THINK_MS, card_index
from brandeln.sample_bots.registry import make_bot
from brandeln.sdk import Bot, parse_card, resolve_answer
from brandeln.v1 import bot_pb2, cards_pb2
from tests.bots.botkit_table import TickClock, match_started_for, play_deal, request_for


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_expert_plays_whole_deals_of_every_ruleset_legally(ruleset_id: str) -> None:
    players = find_ruleset(ruleset_id).players
    for seed in range(2):
        bots: list[Bot] = [ExpertBot(seed=s, level=1) for s in range(players)]
        outcome = play_deal(bots, ruleset_id, seed=seed, dealer=seed % players)
        assert len(outcome.payments) == players


def mid_play_states(count: int, seed: int) -> list[DealState]:
    """Deals of every ruleset with a soloist, played at random into the card play."""
    return list(itertools.islice(iter_mid_play_states(seed), count))


def iter_mid_play_states(seed: int) -> Iterator[DealState]:
    rng = random.Random(seed)
    while True:
        ruleset = find_ruleset(rng.choice(RULESET_IDS))
        state = DealState.new(ruleset, deal_cards(ruleset, dealer=0, seed=rng.randrange(1 << 30)))
        stop = rng.randrange(1, 4 * ruleset.tricks // 2)
        steps = 0
        while not state.is_over() and (state.phase is not Phase.PLAY or steps < stop):
            actions = state.legal_actions()
            state = state.apply(actions[rng.randrange(len(actions))])
            if state.phase is Phase.PLAY:
                steps += 1
        if not state.is_over() and state.soloist is not None and state.contract is not None:
            yield state


def test_with_the_deal_in_view_the_expert_plays_a_card_the_solver_says_wins() -> None:
    checked = 0
    for state in itertools.islice(iter_mid_play_states(seed=4), 3000):
        if checked == 12:
            break
        seat = state.to_act
        assert seat is not None
        assert state.soloist is not None
        assert state.contract is not None
        hands = [hand.mask for hand in state.hands]
        leader = state.leader if state.leader is not None else seat
        trick = [card.index for _, card in state.current_trick]
        solver = DoubleDummy(state.ruleset, state.contract, state.soloist, state.trump)
        values = solver.card_values(hands, state.tricks_won, leader, trick)
        wanted = seat == state.soloist
        good = {card for card, made in values.items() if made == wanted}
        if not good or len(good) == len(values):
            continue  # every card is as good as any other here
        bot = ExpertBot(seed=1, level=2)
        bot.match = match_started_for(state.ruleset, seat)
        true_deal = [*hands, 0]
        bot.sample = lambda *_, deal=true_deal: deal  # type: ignore[method-assign]
        request = request_for(state, 1, move_ms=60_000)
        choice = resolve_answer(request, bot.decide(request))
        assert card_index(choice.card) in good, state
        checked += 1
    assert checked == 12


def test_the_card_prior_shrinks_as_the_sampled_deals_agree() -> None:
    assert agreed_prior(CARD_PRIOR, solved=32, distinct=32) == CARD_PRIOR  # nothing agrees
    assert agreed_prior(CARD_PRIOR, solved=32, distinct=1) == 0.0  # one deal: the solver's
    assert agreed_prior(64.0, solved=9, distinct=5) == 32.0
    assert agreed_prior(64.0, solved=1, distinct=1) == 64.0  # one sample shows no agreement
    assert agreed_prior(64.0, solved=0, distinct=0) == 64.0


def test_expert_bids_the_highest_sure_contract_and_passes_a_weak_hand() -> None:
    ruleset = find_ruleset("standard")
    bot = ExpertBot(seed=3, level=2)
    bot.match = match_started_for(ruleset, seat=0)
    legal = [
        cards_pb2.Choice(bid=cards_pb2.Bid(contract=c))
        for c in ("pass", "brandle", "brand", "bettel", "mord", "herrenmord")
    ]

    def request(hand: str) -> bot_pb2.DecisionRequest:
        view = cards_pb2.PlayerView(
            seat=0, hand=[parse_card(c) for c in hand.split()], tricks_won=[0] * 4
        )
        return bot_pb2.DecisionRequest(
            phase=cards_pb2.PHASE_BID, legal=legal, view=view, move_ms=60_000
        )

    assert bot.decide(request("HJ H7 HA HK HQ HT H9")) == 5  # every heart: herrenmord
    assert bot.decide(request("CK CQ SK SQ HK HQ DQ")) == 0  # pass


def test_out_of_time_the_expert_still_answers_a_legal_card_at_once() -> None:
    for state in mid_play_states(10, seed=9):
        seat = state.to_act
        assert seat is not None
        bot = ExpertBot(seed=2, level=5)
        bot.match = match_started_for(state.ruleset, seat)
        # A clock that moves on at each reading, not the thread's CPU time against a bound: a
        # loaded machine failed that now and then.
        clock = TickClock()
        bot.clock = clock
        request = request_for(state, 1, move_ms=40)
        resolve_answer(request, bot.decide(request))
        # 40 ms of move time: the least a bot thinks (MIN_THINK_MS), the reading that sets
        # the deadline after the decision's start, and the one that finds it passed.
        assert clock.readings
        span = clock.readings[-1] - clock.readings[0]
        assert span <= MIN_THINK_MS / 1000 + 2 * TickClock.STEP_S + 1e-9


def test_levels_cap_the_samples_and_a_bad_level_is_refused() -> None:
    assert [level_samples(level) for level in range(1, 6)] == sorted(LEVEL_SAMPLES.values())
    with pytest.raises(ValueError, match="1 to 5"):
        make_bot("expert", level=6)
    for state in mid_play_states(5, seed=2):
        seat = state.to_act
        assert seat is not None
        bot = ExpertBot(seed=2, level=1)
        bot.match = match_started_for(state.ruleset, seat)
        request = request_for(state, 1, move_ms=60_000)
        if len(request.legal) > 1:
            state.apply(
                codec.choice_to_action(resolve_answer(request, bot.decide(request)), state.phase)
            )
            assert bot.samples_last <= level_samples(1)
            assert bot.playouts_last <= LEVEL_PLAYOUTS[1] * level_samples(1)


def test_made_payoff_is_the_engines_settlement() -> None:
    standard = find_ruleset("standard")
    brand = standard.contract("brand")
    assert made_payoff(standard, brand, True) == 3 * brand.value
    assert made_payoff(standard, brand, False) == -3 * brand.value
    russian = find_ruleset("russian")
    exact = russian.contracts[-1]
    assert made_payoff(russian, exact, True) == exact.value


def bettel_in_play() -> DealState:
    """A standard deal whose forehand bid bettel and the others passed: the play's start."""
    ruleset = find_ruleset("standard")
    state = DealState.new(ruleset, deal_cards(ruleset, dealer=3, seed=5))
    state = state.apply(
        codec.choice_to_action(cards_pb2.Choice(bid=cards_pb2.Bid(contract="bettel")), state.phase)
    )
    while state.phase is not Phase.PLAY:
        state = state.apply(state.legal_actions()[0])  # the others pass
    assert state.soloist is not None
    return state


def test_a_defender_samples_a_bettel_soloist_with_few_aces_and_kings() -> None:
    # The auction as evidence: a bettel's soloist was dealt few aces and kings.
    state = bettel_in_play()
    ruleset = state.ruleset
    assert state.soloist is not None
    seat = (state.soloist + 1) % 4
    while state.to_act != seat:
        state = state.apply(state.legal_actions()[0])
    bot = ExpertBot(seed=4)
    bot.match = match_started_for(ruleset, seat)
    view = request_for(state, 1).view
    evidence = bot.evidence(view, ruleset)
    assert evidence is not None
    soloist, played, counted, _ = evidence
    hands, counts, unseen, forbidden = bot.world(view, ruleset, duties_for(ruleset, None))

    def mean_held(keep: bool) -> float:
        total = 0
        for _ in range(300):
            dealt = bot.sample_with(evidence if keep else None, hands, counts, unseen, forbidden)
            total += ((dealt[soloist] | played) & counted).bit_count()
        return total / 300

    assert mean_held(True) < mean_held(False) - 0.5
    bot.auction_evidence = False  # the tunable a bench turns it off with
    assert bot.evidence(view, ruleset) is None


def test_a_bettel_defender_may_give_the_solvers_time_to_the_playouts() -> None:
    state = bettel_in_play()
    ruleset = state.ruleset
    while state.to_act == state.soloist or len(state.legal_actions()) < 2:
        state = state.apply(state.legal_actions()[0])
    seat = state.to_act
    assert seat is not None
    searched = []
    for share in (0.7, 0.0):
        bot = ExpertBot(seed=4, level=1)
        bot.zero_defence_share = share
        bot.match = match_started_for(ruleset, seat)
        bot.decide(request_for(state, 1, move_ms=2000))
        searched.append((bot.samples_last, bot.playouts_last))
    assert searched[0][0] > 0  # the solver's samples, by default
    assert searched[1][0] == 0  # none: the playouts alone judge the cards
    assert searched[1][1] > 0


def test_a_trump_that_fails_a_lower_target_fails_the_higher_ones() -> None:
    # bid_values leaves brand and mord unsolved where brandle with that trump fails (R4, R10):
    # exact only if the solver agrees that more tricks are never easier to take.
    standard = find_ruleset("standard")
    ladder = [c for c in standard.contracts if c.trump]  # brandle, brand, mord: rising targets
    rng = random.Random(4)
    for seed in range(40):
        deal = deal_cards(standard, seed % 4, seed)
        hands = [hand.mask for hand in deal.hands]
        soloist, trump = rng.randrange(4), rng.choice(list(Suit))
        made = [
            DoubleDummy(standard, contract, soloist, trump).makes(hands, [0] * 4, soloist)
            for contract in ladder
        ]
        assert made == sorted(made, reverse=True), (seed, soloist, trump, made)


def test_a_bid_values_every_legal_contract_on_the_same_deals() -> None:
    ruleset = find_ruleset("standard")
    bot = ExpertBot(seed=3, level=2)
    bot.match = match_started_for(ruleset, seat=0)
    contracts = ("brand", "bettel", "mord", "herrenmord")
    view = cards_pb2.PlayerView(
        seat=0,
        hand=[parse_card(c) for c in ["HJ", "H7", "HA", "HK", "HQ", "HT", "H9"]],
        tricks_won=[0] * 4,
    )
    request = bot_pb2.DecisionRequest(
        phase=cards_pb2.PHASE_BID,
        legal=[cards_pb2.Choice(bid=cards_pb2.Bid(contract=c)) for c in ("pass", *contracts)],
        view=view,
        move_ms=60_000,
    )
    values = bot.bid_values(request, ruleset, contracts)
    assert set(values) == set(contracts)
    assert bot.samples_last == level_samples(2)
    # Every heart: every trick with hearts trump or none, never none of them.
    for sure in ("brand", "mord", "herrenmord"):
        assert values[sure] == made_payoff(ruleset, ruleset.contract(sure), True)
    assert values["bettel"] == made_payoff(ruleset, ruleset.contract("bettel"), False)

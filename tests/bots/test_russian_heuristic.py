"""The heuristic bot in the russian exact contracts: it bids counts it then makes, mostly.

Before, it made 46% of its exact contracts against itself (each failure costs what a success
earns, so it lost points by bidding) and russian matches ran to the deal cap.
"""

from __future__ import annotations

from collections import Counter

from brandeln.engine.cards import parse_cards
from brandeln.engine.dealing import fixed_deal
from brandeln.engine.rulesets import find_ruleset
from brandeln.engine.state import DealState
from brandeln.sample_bots.heuristic import HeuristicBot
from brandeln.sdk import choice_text, resolve_answer
from brandeln.v1 import cards_pb2
from tests.bots.botkit_table import match_started_for, play_deal, request_for


def _contracts(ruleset_id: str, deals: int) -> Counter[tuple[str, bool]]:
    """(goal, made) of every contract the heuristic bot played as soloist against itself."""
    ruleset = find_ruleset(ruleset_id)
    results: Counter[tuple[str, bool]] = Counter()
    for seed in range(deals):
        bots = [HeuristicBot() for _ in range(ruleset.players)]
        outcome = play_deal(bots, ruleset_id, seed=seed, dealer=seed % ruleset.players)
        if outcome.contract is None or outcome.made is None:
            continue  # a free play (pass-out): nobody bid
        results[str(ruleset.contract(outcome.contract).goal), outcome.made] += 1
    return results


def test_the_heuristic_makes_most_of_its_russian_exact_contracts() -> None:
    results = _contracts("russian", 300)
    assert results["exact", True] > results["exact", False]
    assert results["exact", True] + results["exact", False] > 150  # it does bid


def _first_bid(ruleset_id: str, hand: str) -> str:
    ruleset = find_ruleset(ruleset_id)
    others = [c for c in ruleset.deck() if str(c) not in hand.split()]
    hands = [parse_cards(hand), *(others[i * 7 : i * 7 + 7] for i in range(3))]
    state = DealState.new(ruleset, fixed_deal(ruleset, 3, hands))  # seat 0 speaks first
    bot = HeuristicBot()
    bot.match = match_started_for(ruleset, 0)
    request = request_for(state, 1)
    assert request.phase == cards_pb2.PHASE_BID
    return choice_text(resolve_answer(request, bot.decide(request)))


def test_without_stichzwang_a_hand_that_can_always_duck_bids_null() -> None:
    hand = "C7 C9 CQ S7 SK H9 D7"  # a nine or lower in every suit, two high cards to shed
    assert _first_bid("russian", hand) == "null"
    assert _first_bid("standard", hand) == "pass"  # Stichzwang: no bettel with a queen, a king


def test_the_heuristic_makes_most_of_its_russian_nulls() -> None:
    for ruleset_id in ("russian", "russian-32"):
        results = _contracts(ruleset_id, 300)
        assert results["zero", True] > results["zero", False] > 0, (ruleset_id, results)

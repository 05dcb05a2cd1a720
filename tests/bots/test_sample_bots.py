"""The sample bots answer legally in every ruleset, and the heuristic beats random."""

from __future__ import annotations

import statistics

import pytest

from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.sample_bots.heuristic import (
    HeuristicBot,
    estimate_tricks,
    low_hand,
    sweeps_without_trump,
)
from brandeln.sample_bots.random_bot import RandomBot
from brandeln.sample_bots.registry import BOT_NAMES, make_bot
from brandeln.sdk import Bot, choice_text, parse_card, parse_choice
from brandeln.sdk.notation import parse_suit
from brandeln.v1 import bot_pb2, cards_pb2
from tests.bots.botkit_table import match_started_for, play_deal


def cards(text: str) -> list[cards_pb2.Card]:
    return [parse_card(t) for t in text.split()]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_a_sample_bot_plays_whole_deals_of_every_ruleset_legally(
    name: str, ruleset_id: str
) -> None:
    players = find_ruleset(ruleset_id).players
    for seed in range(12):
        bots: list[Bot] = [make_bot(name, seed=seed * 10 + s) for s in range(players)]
        outcome = play_deal(bots, ruleset_id, seed=seed, dealer=seed % players)
        assert len(outcome.payments) == players


def test_the_random_bot_is_reproducible_with_a_seed() -> None:
    first = [play_deal([RandomBot(seed=s) for s in range(4)], seed=5).payments for _ in range(2)]
    assert first[0] == first[1]


def test_the_hand_evaluation_values_top_trumps_and_aces() -> None:
    hearts = parse_suit("H")
    strong = cards("HJ H7 HA HK CA SA D9")
    weak = cards("H9 HT C7 C9 S7 S9 DT")
    assert estimate_tricks(strong, hearts) >= 5.5
    assert estimate_tricks(weak, hearts) < 2.0
    # a jack and seven of the suit are worth more than its ace and king
    assert estimate_tricks(cards("HJ H7 C9 S9 D9 C7 S7"), hearts) > estimate_tricks(
        cards("HA HK C9 S9 D9 C7 S7"), hearts
    )


def test_bettel_and_herrenmord_hands_are_recognised() -> None:
    assert low_hand(cards("C7 C9 ST S9 H7 DJ D9"))
    assert not low_hand(cards("C7 C9 ST S9 H7 DA D9"))
    assert sweeps_without_trump(cards("CA CK CQ SA SK HA DA"))
    assert not sweeps_without_trump(cards("CA CQ SA SK HA DA D7"))


def test_the_heuristic_bids_a_strong_hand_and_names_its_suit() -> None:
    bot = HeuristicBot()
    bot.match = match_started_for(find_ruleset("standard"), seat=0)
    view = cards_pb2.PlayerView(seat=0, hand=cards("HJ H7 HA HK CA SA D9"))
    legal = [parse_choice(t) for t in ["pass", "brandle", "brand", "bettel", "mord", "herrenmord"]]
    bid = bot.decide(bot_pb2.DecisionRequest(phase=cards_pb2.PHASE_BID, legal=legal, view=view))
    assert choice_text(legal[bid] if isinstance(bid, int) else bid) == "brand"
    weak = cards_pb2.PlayerView(seat=0, hand=cards("H9 HT CK C9 SQ S9 DT"))
    bid = bot.decide(bot_pb2.DecisionRequest(phase=cards_pb2.PHASE_BID, legal=legal, view=weak))
    assert bid == 0  # pass
    suits = [parse_choice(t) for t in ["C", "S", "H", "D"]]
    trump = bot.decide(bot_pb2.DecisionRequest(phase=cards_pb2.PHASE_TRUMP, legal=suits, view=view))
    assert trump == 2  # hearts


def test_the_heuristic_wins_more_chips_than_random() -> None:
    # Heuristic pair in seats 0 and 2 against random in 1 and 3, then the seats swapped, on the
    # same deals, so card luck cancels out.
    gains: dict[str, list[int]] = {"heuristic": [], "random": []}
    for seed in range(150):
        for heuristic_seats in ((0, 2), (1, 3)):
            bots: list[Bot] = [
                HeuristicBot() if s in heuristic_seats else RandomBot(seed=seed * 4 + s)
                for s in range(4)
            ]
            outcome = play_deal(bots, seed=seed, dealer=seed % 4)
            for seat, payment in enumerate(outcome.payments):
                gains[bots[seat].name].append(payment)
    heuristic = statistics.mean(gains["heuristic"])
    random_ = statistics.mean(gains["random"])
    assert heuristic > 0 > random_
    assert heuristic - random_ > 1.0  # chips per deal


def test_every_named_bot_can_be_made() -> None:
    assert set(BOT_NAMES) >= {"random", "heuristic", "montecarlo"}
    with pytest.raises(ValueError, match="unknown bot 'nope'; sample bots: "):
        make_bot("nope")

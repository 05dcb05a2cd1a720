"""Golden "perft" counts: the number of distinct legal play sequences from the first lead of a
fixed deal, to depth n cards (a sequence that ends the deal earlier counts once).

The literal numbers were computed once by the engine and are committed so that any change to
legality shows up here. They are also recomputed by the independent oracle of
``tests.engine.oracle`` (a naive transcription of R8), which shares no code with the engine.
"""

from __future__ import annotations

import pytest

from brandeln.engine.actions import PlayCard
from brandeln.engine.cards import Card, Suit, parse_cards
from brandeln.engine.dealing import fixed_deal
from brandeln.engine.rulesets import Goal, find_ruleset
from brandeln.engine.state import DealState
from tests.engine.oracle import oracle_legal, oracle_winner
from tests.engine.scripting import run

# (name, ruleset id, switches, dealer, hands by seat, blind, auction+trump script, golden counts
# for depths 1..8)
CASES: list[tuple[str, str, dict[str, str], int, tuple[str, ...], str, str, list[int]]] = [
    (
        "standard-brand-hearts",
        "standard",
        {},
        3,
        (
            "HJ H7 HA HK CA SA DA",
            "HQ HT H9 CK CQ SK DK",
            "CJ CT C9 C7 SQ SJ DQ",
            "ST S9 S7 DJ DT D9 D7",
        ),
        "",
        "brand, pass, pass, pass, H",
        [7, 16, 95, 654, 3924, 6814, 32230, 186768],
    ),
    (
        "standard-brandle-spades-head-suit-undertrump-free",
        "standard",
        {"head_rule": "suit", "undertrump": "free"},
        1,
        (
            "SQ HQ HK HA D7 DT DJ",
            "C9 CK S7 SK H9 HJ DA",
            "C7 CQ S9 SJ SA H7 DK",
            "CT CJ CA ST HT D9 DQ",
        ),
        "",
        "pass, brandle, pass, pass, S",
        [7, 12, 17, 22, 132, 211, 499, 726],
    ),
    (
        "standard-bettel-sudden-death",
        "standard",
        {},
        1,
        (
            "SQ HQ HK HA D7 DT DJ",
            "C9 CK S7 SK H9 HJ DA",
            "C7 CQ S9 SJ SA H7 DK",
            "CT CJ CA ST HT D9 DQ",
        ),
        "",
        "bettel, pass, pass, pass",
        [7, 10, 40, 58, 338, 796, 964, 1820],
    ),
    (
        "russian-32-five-clubs",
        "russian-32",
        {},
        0,
        (
            "CJ CK CA H7 HJ HK DT DK",
            "C7 S7 S8 ST SK H9 D9 DJ",
            "C9 CT S9 SA H8 HT HA D7",
            "C8 CQ SJ SQ HQ D8 DQ DA",
        ),
        "",
        "five, pass, pass, pass, C",
        [8, 15, 29, 81, 567, 959, 1808, 3104],
    ),
    (
        "three-player-brand-hearts",
        "three-player",
        {},
        2,
        (
            "C7 CA S9 ST HQ HA DK",
            "C9 CT CQ SQ SK HT DQ",
            "CJ S7 SJ SA HK DJ DA",
        ),
        "CK H7 H9 HJ D7 D9 DT",
        "brand, pass, pass, H",
        [7, 13, 13, 78, 111, 179, 895, 1359],
    ),
]


def start(case_index: int) -> DealState:
    _, ruleset_id, switches, dealer, hands, blind, script, _ = CASES[case_index]
    ruleset = find_ruleset(ruleset_id, switches)
    deal = fixed_deal(ruleset, dealer, [parse_cards(h) for h in hands], parse_cards(blind))
    state = run(DealState.new(ruleset, deal), script)
    assert state.legal_card_mask(), "the script must reach the first lead"
    return state


def engine_perft(state: DealState, depth: int) -> int:
    if depth == 0 or state.is_over():
        return 1
    return sum(engine_perft(state.apply(action), depth - 1) for action in state.legal_actions())


def oracle_perft(state: DealState, depth: int) -> int:
    """The same count from the oracle alone: lists of cards, R8.3 and R8.4 spelled out."""
    ruleset = state.ruleset
    trump = state.trump
    contract = state.contract
    soloist = state.soloist
    assert contract is not None
    assert soloist is not None
    players = ruleset.players

    def count(hands: list[list[Card]], trick: list[Card], seat: int, won: list[int], d: int) -> int:
        if d == 0:
            return 1
        total = 0
        for card in sorted(oracle_legal(ruleset, trump, hands[seat], trick), key=str):
            new_hands = [list(h) for h in hands]
            new_hands[seat].remove(card)
            new_trick = [*trick, card]
            if len(new_trick) < players:
                total += count(new_hands, new_trick, (seat + 1) % players, won, d - 1)
                continue
            leader = (seat + 1) % players  # the seat after the last player led the trick
            winner = (leader + oracle_winner(new_trick, trump, ruleset.trump_order)) % players
            new_won = list(won)
            new_won[winner] += 1
            sudden = (contract.goal is Goal.ZERO and winner == soloist) or (
                contract.goal is Goal.ALL and winner != soloist
            )
            total += 1 if sudden else count(new_hands, [], winner, new_won, d - 1)
        return total

    assert state.to_act is not None
    hands = [list(state.hand(seat)) for seat in range(players)]
    return count(hands, [], state.to_act, [0] * players, depth)


@pytest.mark.parametrize("case_index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_perft_golden_counts(case_index: int) -> None:
    state = start(case_index)
    golden = CASES[case_index][-1]
    assert state.to_act is not None
    assert golden[0] == len(state.hand(state.to_act))  # depth 1: the leader's whole hand
    assert [engine_perft(state, depth) for depth in range(1, 9)] == golden


@pytest.mark.parametrize("case_index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_perft_oracle_agrees(case_index: int) -> None:
    state = start(case_index)
    golden = CASES[case_index][-1]
    assert [oracle_perft(state, depth) for depth in range(1, 9)] == golden


def test_perft_sanity_first_trick_by_hand() -> None:
    # Case 0, trick 1: seat 0 leads any of 7 cards. After HJ, seat 1 must follow hearts and
    # cannot beat HJ: H9 HT HQ (3); seats 2 and 3 have no heart and no trump: 7 cards each.
    # Depth 2 by hand: HJ, H7, HA, HK each leave seat 1 three hearts; CA leaves CK CQ; SA and
    # DA leave one card each: 4 * 3 + 2 + 1 + 1 = 16.
    state = start(0)
    assert engine_perft(state, 2) == 16
    after_jack = state.apply(PlayCard(Card.parse("HJ")))
    assert engine_perft(after_jack, 1) == 3
    assert engine_perft(after_jack, 3) == 3 * 7 * 7
    assert state.trump is Suit.HEARTS

"""Seat arithmetic (R1) and the settlement and end-of-deal rules (R9, R10, section 6)."""

from __future__ import annotations

import itertools

import pytest

from brandeln.engine.rulesets import RULESET_IDS, find_ruleset
from brandeln.engine.seats import forehand_of, left_of, seat_at_distance, seats_from, seniority
from brandeln.engine.settlement import (
    contract_payments,
    deal_ends,
    deal_ends_after,
    ends_early,
    free_play_payments,
    pass_out_payments,
)


@pytest.mark.parametrize("players", [3, 4])
def test_r1_1_left_is_next_seat_clockwise(players: int) -> None:
    assert [left_of(s, players) for s in range(players)] == [*range(1, players), 0]


@pytest.mark.parametrize(("dealer", "players", "forehand"), [(0, 4, 1), (3, 4, 0), (2, 3, 0)])
def test_r1_3_forehand_left_of_dealer(dealer: int, players: int, forehand: int) -> None:
    assert forehand_of(dealer, players) == forehand
    assert seniority(forehand, dealer, players) == 0
    assert seniority(dealer, dealer, players) == players - 1  # the dealer is most junior
    assert seat_at_distance(dealer, 0, players) == forehand
    assert seat_at_distance(dealer, players - 1, players) == dealer


def test_seats_from_goes_round_once() -> None:
    assert seats_from(3, 4) == (3, 0, 1, 2)
    assert seats_from(1, 3) == (1, 2, 0)


def test_r10_2_zero_sum_payments_four_and_three_players() -> None:
    standard = find_ruleset("standard")
    brandle = standard.contract("brandle")
    assert contract_payments(standard, brandle, 2, (2, 2, 3, 0), 0) == (True, (-3, -3, 9, -3), 0)
    assert contract_payments(standard, brandle, 2, (2, 3, 2, 0), 0) == (
        False,
        (3, 3, -9, 3),
        0,
    )
    three = find_ruleset("three-player")
    mord = three.contract("mord")
    assert contract_payments(three, mord, 0, (7, 0, 0), 0) == (True, (24, -12, -12), 0)


def test_russian_payments_soloist_only() -> None:
    russian = find_ruleset("russian")
    assert contract_payments(russian, russian.contract("six"), 1, (0, 6, 1, 0), 0) == (
        True,
        (0, 4, 0, 0),
        0,
    )
    assert contract_payments(russian, russian.contract("null"), 3, (3, 3, 0, 1), 0) == (
        False,
        (0, 0, 0, -5),
        0,
    )


def test_haferl_pool_payments() -> None:
    haferl = find_ruleset("haferl")
    assert pass_out_payments(haferl) == ((-1, -1, -1, -1), 4)
    assert pass_out_payments(find_ruleset("classic-1860")) == ((0, 0, 0, 0), 0)
    brand = haferl.contract("brand")
    assert contract_payments(haferl, brand, 0, (4, 1, 1, 1), 12) == (True, (24, -4, -4, -4), -12)
    assert contract_payments(haferl, brand, 0, (3, 2, 1, 1), 12) == (
        False,
        (-12, 4, 4, 4),
        0,
    )


def test_free_play_scores() -> None:
    assert free_play_payments((3, 2, 1, 1), 7) == (1, 0, 0, 0)
    assert free_play_payments((3, 3, 1, 0), 7) == (1, 1, 0, 0)
    assert free_play_payments((0, 0, 8, 0), 8) == (0, 0, -3, 0)


def test_r9_2_sudden_death_by_goal_under_rules() -> None:
    standard = find_ruleset("standard")
    bettel, mord, brand = (standard.contract(i) for i in ("bettel", "mord", "brand"))
    assert ends_early(standard, bettel, 1, (0, 1, 0, 0))
    assert not ends_early(standard, bettel, 1, (1, 0, 0, 0))
    assert ends_early(standard, mord, 1, (0, 1, 1, 0))
    assert not ends_early(standard, mord, 1, (0, 2, 0, 0))
    assert not ends_early(standard, brand, 1, (0, 4, 0, 0))  # R9.3: played out
    assert not ends_early(standard, brand, 1, (4, 0, 0, 0))
    russian = find_ruleset("russian")
    assert ends_early(russian, russian.contract("null"), 0, (1, 0, 0, 0))
    assert ends_early(russian, russian.contract("all-no-trump"), 0, (1, 1, 0, 0))
    assert not ends_early(russian, russian.contract("three"), 0, (4, 0, 0, 0))
    assert not ends_early(russian, None, None, (6, 0, 0, 0))  # free play is played out


def test_early_stop_never_ends_nothing_early() -> None:
    never = find_ruleset("standard", {"early_stop": "never"})
    assert not ends_early(never, never.contract("bettel"), 1, (0, 1, 0, 0))
    assert not ends_early(never, never.contract("mord"), 1, (1, 0, 0, 0))


def test_early_stop_when_decided_contracts() -> None:
    decided = find_ruleset("standard", {"early_stop": "when_decided"})
    brand = decided.contract("brand")
    assert ends_early(decided, brand, 0, (4, 0, 0, 0))  # made whatever happens
    assert ends_early(decided, brand, 0, (0, 2, 1, 1))  # 3 left: 4 is out of reach
    assert not ends_early(decided, brand, 0, (1, 1, 1, 0))
    assert ends_early(decided, decided.contract("bettel"), 0, (1, 0, 0, 0))
    russian = find_ruleset("russian", {"early_stop": "when_decided"})
    four = russian.contract("four")
    assert ends_early(russian, four, 0, (5, 0, 0, 0))  # exact goal already overshot
    assert not ends_early(russian, four, 0, (4, 0, 0, 0))  # one more trick would fail it
    assert ends_early(russian, four, 0, (0, 2, 2, 0))  # 3 left: cannot reach 4


def test_early_stop_when_decided_free_play() -> None:
    russian = find_ruleset("russian", {"early_stop": "when_decided"})
    assert not ends_early(russian, None, None, (4, 0, 0, 0))  # a sweep is still possible
    assert ends_early(russian, None, None, (5, 1, 0, 0))  # one left: seat 0 scores +1 anyway
    assert not ends_early(russian, None, None, (3, 2, 1, 0))  # seat 1 may still tie


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize("early_stop", ["rules", "never", "when_decided"])
def test_deal_ends_after_a_count_of_tricks_agrees_with_deal_ends(
    ruleset_id: str, early_stop: str
) -> None:
    # The play loops call deal_ends_after with their own count of tricks and the ruleset's two
    # switches (and the fast path with its list of tricks won): it must decide as deal_ends.
    ruleset = find_ruleset(ruleset_id, {"early_stop": early_stop})
    games = [(None, None), *((c, s) for c in ruleset.contracts for s in range(ruleset.players))]
    for won in itertools.product(range(ruleset.tricks + 1), repeat=ruleset.players):
        played = sum(won)
        if played > ruleset.tricks:
            continue
        for contract, soloist in games:
            expected = deal_ends(ruleset, contract, soloist, won)
            for tricks_won in (won, list(won)):
                assert (
                    deal_ends_after(
                        played, ruleset.tricks, ruleset.early_stop, contract, soloist, tricks_won
                    )
                    is expected
                ), (won, contract, soloist)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_settlement_table_agrees_with_contract_payments(ruleset_id: str) -> None:
    """deal_outcome settles by a per-ruleset table: it must match contract_payments (and so
    Contract.made_with) for every contract, soloist and trick count."""
    from brandeln.engine.settlement import _SETTLEMENTS  # noqa: PLC0415 - the internal table itself

    ruleset = find_ruleset(ruleset_id)
    table = _SETTLEMENTS.of(ruleset)
    assert _SETTLEMENTS.of(ruleset) is table
    for level, contract in enumerate(ruleset.contracts):
        assert table.levels[id(contract)] == level
        for soloist in range(ruleset.players):
            for taken in range(ruleset.tricks + 1):
                won = [0] * ruleset.players
                won[soloist] = taken
                made, payments, _ = contract_payments(ruleset, contract, soloist, tuple(won), 0)
                assert table.made[level][taken] is made
                assert table.payments[level][soloist][1 if made else 0] == payments


def test_deal_outcome_falls_back_for_a_foreign_contract_or_a_pool() -> None:
    """A contract equal to but not one of the ruleset's own, or a Haferl pool, settles the
    slow way, with the same result."""
    from brandeln.engine.dealing import deal_cards  # noqa: PLC0415
    from brandeln.engine.rulesets import Contract  # noqa: PLC0415
    from brandeln.engine.settlement import deal_outcome  # noqa: PLC0415

    for ruleset_id, pool in (("standard", 0), ("haferl", 5)):
        ruleset = find_ruleset(ruleset_id)
        deal = deal_cards(ruleset, 0, 1)
        for contract in ruleset.contracts:
            copy = Contract(
                contract.id, contract.goal, contract.tricks, contract.trump, contract.value
            )
            for taken in range(ruleset.tricks + 1):
                won = (0, taken, ruleset.tricks - taken, 0)[: ruleset.players]
                outcomes = [
                    deal_outcome(
                        ruleset,
                        deal,
                        pool,
                        soloist=1,
                        contract=c,
                        trump=None,
                        passed_out=False,
                        tricks_won=won,
                        hands=[0] * ruleset.players,
                    )
                    for c in (contract, copy)
                ]
                expected = contract_payments(ruleset, contract, 1, won, pool)
                for outcome in outcomes:
                    assert (outcome.made, outcome.payments, outcome.pool_delta) == expected

"""Duplicate blocks: rotations, suit permutations, block seeds and the block's ranking."""

from __future__ import annotations

import pytest

from brandeln.ladder.season.duplicate import (
    IDENTITY,
    MatchOutcome,
    SeatTally,
    block_results,
    block_seed,
    plan_block,
    plan_season,
    rank_block,
)


def test_a_four_player_block_plays_the_four_cyclic_rotations_of_one_deal_set() -> None:
    plan = plan_block(season_seed=11, index=3, bots=("a", "b", "c", "d"))
    assert [m.bots for m in plan.matches] == [
        ("a", "b", "c", "d"),
        ("b", "c", "d", "a"),
        ("c", "d", "a", "b"),
        ("d", "a", "b", "c"),
    ]
    assert {m.seed for m in plan.matches} == {plan.seed} == {block_seed(11, 3)}
    # every bot holds every seat exactly once
    for bot in "abcd":
        assert sorted(m.bots.index(bot) for m in plan.matches) == [0, 1, 2, 3]


def test_each_rotation_has_its_own_suit_permutation_identity_first() -> None:
    plan = plan_block(season_seed=11, index=3, bots=("a", "b", "c", "d"))
    permutations = [m.suit_permutation for m in plan.matches]
    assert permutations[0] == IDENTITY == "CSHD"
    assert len(set(permutations)) == 4
    for permutation in permutations[1:]:
        assert sorted(permutation) == sorted(IDENTITY)
        assert all(image != suit for image, suit in zip(permutation, IDENTITY, strict=True))


def test_a_three_player_block_has_three_rotations() -> None:
    plan = plan_block(season_seed=1, index=0, bots=("x", "y", "z"))
    assert [m.bots for m in plan.matches] == [("x", "y", "z"), ("y", "z", "x"), ("z", "x", "y")]
    assert len({m.suit_permutation for m in plan.matches}) == 3


def test_block_seeds_differ_between_blocks_and_seasons_and_fit_64_bits() -> None:
    seeds = {block_seed(season, index) for season in range(5) for index in range(50)}
    assert len(seeds) == 250
    assert all(0 <= seed < 2**64 for seed in seeds)


def test_plan_season_follows_the_schedule_and_is_reproducible() -> None:
    bots = ["a", "b", "c", "d", "e", "f"]
    plans = plan_season(bots, 4, 9, season_seed=4)
    assert [p.index for p in plans] == list(range(9))
    assert plans == plan_season(bots, 4, 9, season_seed=4)
    assert plans[:5] == plan_season(bots, 4, 5, season_seed=4)


@pytest.mark.parametrize(
    ("chips", "forfeited", "expected"),
    [
        ({"a": 10, "b": 0, "c": -4, "d": -6}, set(), {"a": 1, "b": 2, "c": 3, "d": 4}),
        ({"a": 3, "b": 3, "c": -3, "d": -3}, set(), {"a": 1, "b": 1, "c": 3, "d": 3}),
        ({"a": 0, "b": 0, "c": 0, "d": 0}, set(), {"a": 1, "b": 1, "c": 1, "d": 1}),
        ({"a": 30, "b": 0, "c": -10, "d": -20}, {"a"}, {"a": 4, "b": 1, "c": 2, "d": 3}),
        ({"a": 30, "b": 0, "c": -10, "d": -20}, {"a", "d"}, {"a": 3, "b": 1, "c": 2, "d": 3}),
        ({"a": 1, "b": 2, "c": 3, "d": -6}, {"a", "b", "c", "d"}, {"a": 1, "b": 1, "c": 1, "d": 1}),
    ],
)
def test_block_ranking_ties_share_and_forfeits_rank_last(
    chips: dict[str, int], forfeited: set[str], expected: dict[str, int]
) -> None:
    assert rank_block(chips, forfeited) == expected


def outcome_for(
    plan_index: int,
    rotation: int,
    balances: tuple[int, ...],
    *,
    forfeited: frozenset[int] = frozenset(),
    tallies: tuple[SeatTally, ...] = (),
) -> MatchOutcome:
    plan = plan_block(1, plan_index, ("a", "b", "c", "d"))
    return MatchOutcome(
        plan=plan.matches[rotation],
        match_id=f"m{rotation}",
        balances=balances,
        forfeited=forfeited,
        deals_played=8,
        tallies=tallies,
    )


def test_block_results_sum_chips_by_bot_across_rotations() -> None:
    plan = plan_block(1, 0, ("a", "b", "c", "d"))
    # Seat 0 wins 6 in every rotation: the cards favour seat 0, duplicate cancels it out.
    outcomes = [outcome_for(0, r, (6, -2, -2, -2)) for r in range(4)]
    results = block_results(plan, outcomes)
    assert {bot: r.chips for bot, r in results.items()} == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert {r.rank for r in results.values()} == {1}
    assert all(r.deals == 32 for r in results.values())


def test_block_results_rank_by_chips_count_tallies_and_forfeits() -> None:
    plan = plan_block(1, 0, ("a", "b", "c", "d"))
    tally = (
        SeatTally(timeouts=1, strikes=1),
        SeatTally(),
        SeatTally(contracts_bid=2, contracts_made=1),
        SeatTally(illegal=2, strikes=2),
    )
    outcomes = [
        outcome_for(0, 0, (9, -3, -3, -3), tallies=tally),  # a b c d
        outcome_for(0, 1, (9, -3, -3, -3), forfeited=frozenset({3})),  # b c d a: a forfeits
        outcome_for(0, 2, (0, 0, 0, 0)),
        outcome_for(0, 3, (0, 0, 0, 0)),
    ]
    results = block_results(plan, outcomes)
    assert {bot: r.chips for bot, r in results.items()} == {"a": 6, "b": 6, "c": -6, "d": -6}
    assert {bot: r.rank for bot, r in results.items()} == {"a": 4, "b": 1, "c": 2, "d": 2}
    assert results["a"].forfeited
    assert not results["b"].forfeited
    assert (results["a"].timeouts, results["a"].strikes) == (1, 1)
    assert (results["c"].contracts_bid, results["c"].contracts_made) == (2, 1)
    assert (results["d"].illegal, results["d"].strikes) == (2, 2)


def test_block_results_need_one_outcome_per_rotation() -> None:
    plan = plan_block(1, 0, ("a", "b", "c", "d"))
    with pytest.raises(ValueError, match="one outcome per rotation"):
        block_results(plan, [outcome_for(0, 0, (0, 0, 0, 0))] * 4)

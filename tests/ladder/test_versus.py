"""Head to head over a season's blocks (`ratings --versus`): the gap, its interval, the errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brandeln.ladder.errors import VersusError
from brandeln.ladder.ratings.versus import head_to_head, side_names, versus_matrix
from brandeln.ladder.season.duplicate import BotBlockResult


def _result(bot: str, chips: int, deals: int = 10) -> BotBlockResult:
    return BotBlockResult(bot, 1, chips, deals, False, 0, 0, 0, 0, 0)


# Two copies of each bot per block; chips sum to zero in each block, as at a table.
RESULTS = [
    (0, _result("x", 30)),
    (0, _result("x-2", 10)),
    (0, _result("y", -25)),
    (0, _result("y-2", -15)),
    (1, _result("x", 0)),
    (1, _result("x-2", 20)),
    (1, _result("y", -5)),
    (1, _result("y-2", -15)),
    (2, _result("x", -10)),  # x-2 did not play this block
    (2, _result("y", 5)),
    (2, _result("y-2", 5)),
]


def test_the_gap_is_per_block_chips_per_deal_of_one_side_minus_the_other() -> None:
    gap = head_to_head(RESULTS, ["x"], ["y"])
    # Per block: x 3.0 against y -2.5, then 0.0 against -0.5, then -1.0 against 0.5.
    assert gap.blocks == 3
    assert gap.difference is not None
    assert gap.difference.mean == pytest.approx((5.5 + 0.5 - 1.5) / 3)
    assert gap.difference.half_width is not None
    assert gap.difference.half_width > 0


def test_a_side_of_copies_pools_their_chips_and_deals_over_the_blocks_all_played() -> None:
    gap = head_to_head(RESULTS, ["x", "x-2"], ["y", "y-2"])
    assert (gap.a, gap.b) == (("x", "x-2"), ("y", "y-2"))
    assert gap.blocks == 2  # block 2 left out: x-2 was not in it
    assert gap.difference is not None
    # Block 0: 40/20 - (-40/20) = 4.0; block 1: 1.0 - (-1.0) = 2.0.
    assert gap.difference.mean == pytest.approx(3.0)
    assert gap.difference.half_width == pytest.approx(1.96)  # s = √2 over n = 2 blocks


def test_one_block_has_a_gap_and_no_interval_and_none_in_common_has_neither() -> None:
    one = head_to_head(RESULTS[:4], ["x"], ["y-2"])
    assert one.difference is not None
    assert one.difference.half_width is None
    apart = [(0, _result("x", 1)), (1, _result("y", -1))]
    assert head_to_head(apart, ["x"], ["y"]).difference is None


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (["x"], ["nobody"], "no results for nobody in the season (its bots: x, x-2, y, y-2)"),
        (["x", "y"], ["y"], "a bot on both sides: y"),
        ([], ["y"], "each side needs at least one bot"),
    ],
)
def test_sides_that_are_not_two_groups_of_the_seasons_bots_are_refused(
    a: list[str], b: list[str], message: str
) -> None:
    with pytest.raises(VersusError, match=re.escape(message)):
        head_to_head(RESULTS, a, b)


def test_a_side_is_read_as_names_separated_by_commas() -> None:
    assert side_names(" expert, ,expert-2 ,") == ["expert", "expert-2"]
    assert side_names(" , ") == []


def test_the_matrix_sets_every_pair_of_single_bots_head_to_head() -> None:
    bots = ("x", "x-2", "y", "y-2", "z")  # z has no results
    matrix = versus_matrix(RESULTS, bots)
    assert set(matrix) == {(a, b) for a in bots for b in bots if a != b}
    for (a, b), gap in matrix.items():
        if "z" in (a, b):
            assert (gap.a, gap.b, gap.blocks, gap.difference) == ((a,), (b,), 0, None)
        else:
            assert gap == head_to_head(RESULTS, (a,), (b,))
    assert matrix[("x", "x-2")].blocks == 2  # x-2 missed block 2
    assert matrix[("x", "y")].blocks == 3


BOT_NAMES = ("a", "b", "c", "d")
block_results = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.sampled_from(BOT_NAMES),
        st.integers(-60, 60),
        st.integers(1, 12),
    ),
    max_size=24,
)


@given(block_results)
def test_the_matrix_agrees_with_head_to_head_on_any_results(
    rows: list[tuple[int, str, int, int]],
) -> None:
    results = [(block, _result(bot, chips, deals)) for block, bot, chips, deals in rows]
    seen = {bot for _, bot, _, _ in rows}
    matrix = versus_matrix(results, BOT_NAMES)
    for (a, b), gap in matrix.items():
        if a in seen and b in seen:
            assert gap == head_to_head(results, (a,), (b,))
            mirror = matrix[(b, a)].difference
            if gap.difference is not None:
                assert mirror is not None
                assert mirror.mean == pytest.approx(-gap.difference.mean)
        else:
            assert gap.difference is None

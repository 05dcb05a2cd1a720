"""Head to head over a season's blocks (`ratings --versus`): the gap, its interval, the errors."""

from __future__ import annotations

import re

import pytest

from ladder.duplicate import BotBlockResult
from ladder.errors import VersusError
from ladder.versus import head_to_head


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

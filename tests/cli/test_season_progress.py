"""The season's progress bar shows its rate to at least two figures, however slow the bots."""

from __future__ import annotations

import pytest

from brandeln.cli.season_cmd import deal_rate


@pytest.mark.parametrize(
    ("per_second", "shown"),
    [(0.257, "0.26"), (0.0, "0.00"), (3.04, "3.0"), (9.96, "10.0"), (12.4, "12"), (460.6, "461")],
)
def test_the_rate_keeps_two_figures(per_second: float, shown: str) -> None:
    assert deal_rate(per_second) == shown

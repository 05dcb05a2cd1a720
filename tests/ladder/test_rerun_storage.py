"""A season's final rerun in the ladder store (brandeln.ladder.store.rerun), on an SQLite file and
on a fresh PostgreSQL database (``db_url``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from brandeln.ladder.errors import LadderError, SeasonMismatchError
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.store.database import LadderStore, RerunRecord
from brandeln.ladder.store.schema import ClaimState
from tests.ladder.season_helpers import finished_block, season_config

CONFIG_BOTS = ("a", "b", "c", "d", "e")
CONFIG = season_config(CONFIG_BOTS, blocks=2)
MODEL = RatingModel(CONFIG.rating)
SEASON = CONFIG.name


@pytest.fixture
def store(db_url: str) -> Iterator[LadderStore]:
    with LadderStore.open(db_url) as opened:
        opened.seasons.ensure_season(CONFIG, MODEL.initial())
        yield opened


def record(store: LadderStore, index: int, bots: tuple[str, ...]) -> None:
    record_and_rate(store, SEASON, *finished_block(index, bots, (0, 0, 0, 0)), MODEL.rate_block)


def test_a_rerun_begins_once_and_its_blocks_are_planned_one_at_a_time_up_to_the_cap(
    store: LadderStore,
) -> None:
    assert store.rerun.rerun(SEASON) is None
    record(store, 0, ("a", "b", "c", "d"))
    record(store, 1, ("b", "c", "d", "e"))
    top = ("b", "c", "a", "d")
    assert store.rerun.start_rerun(SEASON, 2, top) == RerunRecord(2, top, 0)
    # Begun once: whoever asks again gets the stored rerun.
    assert store.rerun.start_rerun(SEASON, 2, ("e", "d", "c", "b")) == RerunRecord(2, top, 0)

    assert store.rerun.plan_rerun_block(SEASON, "runner-1", cap=2) == 2
    assert store.blocks.claims(SEASON)[2] == (ClaimState.CLAIMED, "runner-1")
    # One at a time: block 2 is not recorded yet.
    assert store.rerun.plan_rerun_block(SEASON, "runner-2", cap=2) is None
    record(store, 2, top)
    assert store.rerun.plan_rerun_block(SEASON, "runner-2", cap=2) == 3
    record(store, 3, top)
    assert store.rerun.plan_rerun_block(SEASON, "runner-2", cap=2) is None  # the cap
    rerun = store.rerun.rerun(SEASON)
    assert rerun == RerunRecord(2, top, 2)
    assert rerun is not None
    assert [rerun.is_rerun_block(index) for index in range(4)] == [False, False, True, True]
    info = store.seasons.season(SEASON)
    assert (info.blocks_planned, info.blocks_finished) == (4, 4)
    assert store.blocks.claims(SEASON)[3] == (ClaimState.DONE, "runner-2")


def test_a_season_with_a_rerun_keeps_its_planned_blocks_and_refuses_others(
    store: LadderStore,
) -> None:
    record(store, 0, ("a", "b", "c", "d"))
    record(store, 1, ("b", "c", "d", "e"))
    store.rerun.start_rerun(SEASON, 2, ("a", "b", "c", "d"))
    assert store.rerun.plan_rerun_block(SEASON, "runner", cap=5) == 2

    store.seasons.ensure_season(CONFIG, MODEL.initial())  # the same file again
    assert store.seasons.season(SEASON).blocks_planned == 3
    assert store.rerun.plan_rerun_block(SEASON, "runner", cap=5) is None  # block 2 still unfinished
    for blocks in (1, 3):
        with pytest.raises(SeasonMismatchError, match="had a final rerun after its 2 blocks"):
            store.seasons.ensure_season(season_config(CONFIG_BOTS, blocks=blocks), MODEL.initial())
    assert store.seasons.season(SEASON).blocks_planned == 3


def test_a_rerun_begins_after_every_block_planned(store: LadderStore) -> None:
    # Three blocks planned, then the file lowered to two: the third keeps its claim.
    store.seasons.ensure_season(season_config(CONFIG_BOTS, blocks=3), MODEL.initial())
    store.seasons.ensure_season(CONFIG, MODEL.initial())
    with pytest.raises(LadderError, match=r"has 3 blocks planned, not 2: its rerun begins after"):
        store.rerun.start_rerun(SEASON, 2, ("a", "b", "c", "d"))
    with pytest.raises(LadderError, match="has no rerun to plan a block of"):
        store.rerun.plan_rerun_block(SEASON, "runner", cap=1)
    assert store.rerun.rerun(SEASON) is None

"""Committed seeds in the ladder store (brandeln.ladder.store.commitments,
brandeln.ladder.store.periods) on both backends: a season's seed committed when it is created and
revealed only once its last block is recorded; an always-on ladder's period committed with its first
block's plan and revealed once its blocks are all recorded.

Every test runs on an SQLite file and on a fresh PostgreSQL database (``db_url``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from brandeln.ladder.errors import SeasonMismatchError
from brandeln.ladder.living.config import LadderConfig, new_version_rating
from brandeln.ladder.ratings.order import record_and_rate
from brandeln.ladder.ratings.trueskill_model import RatingModel
from brandeln.ladder.season.commitment import (
    SeedState,
    deal_seed,
    matches_commitment,
    period_schedule,
    public_seed,
    season_schedule,
)
from brandeln.ladder.season.duplicate import block_results, block_seed, plan_seeded_block
from brandeln.ladder.store.database import LadderStore
from brandeln.ladder.store.seasons import season_settings
from tests.ladder.season_helpers import finished_block, season_config

BOTS = ("a", "b", "c", "d")
MODEL = RatingModel(season_config().rating)


@pytest.fixture
def store(db_url: str) -> Iterator[LadderStore]:
    with LadderStore.open(db_url) as opened:
        yield opened


def _record(store: LadderStore, season: str, index: int, seed: int) -> None:
    plan, outcomes, results = finished_block(index, BOTS, (3, 1, -1, -3), seed=seed)
    record_and_rate(store, season, plan, outcomes, results, MODEL.rate_block)


def test_a_secret_seed_is_committed_at_once_and_revealed_after_the_last_block(
    store: LadderStore,
) -> None:
    config = dataclasses.replace(season_config(blocks=2), seed=None)
    store.seasons.ensure_season(config, MODEL.initial())
    committed = store.commitments.season_commitment(config.name)
    assert committed is not None
    assert committed.state is SeedState.SECRET
    assert committed.seed is None  # nobody but the runner reads it
    assert committed.schedule == season_schedule(config.name, season_settings(config))
    assert store.commitments.season_commitments() == {config.name: committed}
    number = store.commitments.season_deal_seed(config.name)  # the runner's

    _record(store, config.name, 0, number)
    assert not store.commitments.reveal_season_seed(config.name)  # a block is left: still secret
    assert store.commitments.season_commitment(config.name) == committed
    _record(store, config.name, 1, number)
    assert store.commitments.reveal_season_seed(config.name)

    revealed = store.commitments.season_commitment(config.name)
    assert revealed is not None
    assert revealed.state is SeedState.REVEALED
    assert revealed.digest == committed.digest  # the very commitment published before
    assert revealed.seed is not None
    assert revealed.revealed_at is not None
    assert deal_seed(revealed.seed) == number
    assert matches_commitment(revealed.digest, revealed.seed, revealed.schedule)
    assert store.commitments.reveal_season_seed(config.name)  # revealed stays revealed
    assert store.commitments.season_commitment(config.name) == revealed
    # The same file again plays nothing and draws no new seed...
    store.seasons.ensure_season(config, MODEL.initial())
    assert store.commitments.season_commitment(config.name) == revealed
    # ...but more blocks would be dealt from a seed everyone knows now.
    longer = dataclasses.replace(config, blocks=3)
    with pytest.raises(SeasonMismatchError, match="seed revealed: 3 blocks would deal"):
        store.seasons.ensure_season(longer, MODEL.initial())


def test_a_season_files_seed_is_public_from_the_start_and_deals_as_before(
    store: LadderStore,
) -> None:
    config = season_config(seed=7)
    store.seasons.ensure_season(config, MODEL.initial())
    commitment = store.commitments.season_commitment(config.name)
    assert commitment is not None
    assert commitment.state is SeedState.PUBLIC
    assert commitment.seed == public_seed(7)
    assert matches_commitment(commitment.digest, public_seed(7), commitment.schedule)
    assert store.commitments.season_deal_seed(config.name) == 7
    # Two seasons, two secret seeds: none is drawn twice.
    for name in ("s1", "s2"):
        store.seasons.ensure_season(
            dataclasses.replace(config, name=name, seed=None), MODEL.initial()
        )
    assert store.commitments.season_deal_seed("s1") != store.commitments.season_deal_seed("s2")


def test_a_ladder_period_is_committed_with_its_first_block_and_revealed_after_its_last(
    store: LadderStore,
) -> None:
    config = LadderConfig(name="live", deals_per_match=2, seed=3)
    fresh, widen = new_version_rating(config)
    store.ladders.ensure_ladder(config.name, config.settings(), 4, {})
    bots = tuple(
        store.ladders.add_version(config.name, family, "1", f"bot_{family}", fresh, widen).name
        for family in "abcd"
    )
    assert store.commitments.seed_periods(config.name) == []
    assert store.commitments.period_of_block(config.name, 0) is None

    def plan() -> int:
        return store.planned.plan_block(
            config.name, bots, config.seed, "r", deals=2, period_blocks=2
        )

    assert plan() == 0
    [period] = store.commitments.seed_periods(config.name)
    # Committed in the block's plan: before anything of it is played, its seed secret.
    assert (period.period, period.first_block, period.blocks, period.recorded) == (0, 0, 2, 0)
    assert period.commitment.state is SeedState.SECRET
    assert period.commitment.seed is None
    assert period.commitment.schedule == period_schedule(
        config.name, store.ladders.ladder_settings(config.name), 0, 0, 2
    )
    assert store.commitments.period_of_block(config.name, 0) == period
    assert plan() == 1
    assert plan() == 2  # opens period 1
    newest, oldest = store.commitments.seed_periods(config.name)  # newest first
    assert (newest.period, newest.first_block, oldest.period) == (1, 2, 0)
    assert store.commitments.seed_periods(config.name, limit=1) == [newest]

    # Recorded in the order planned: period 0 is revealed once both its blocks are in.
    for index in (0, 1):
        planned = store.planned.planned_block(config.name, index)
        played = plan_seeded_block(planned.seed, index, planned.bots)  # as the ladder plays it
        _, made_up, _ = finished_block(index, planned.bots, (3, 1, -1, -3))
        outcomes = [
            dataclasses.replace(outcome, plan=match)
            for outcome, match in zip(made_up, played.matches, strict=True)
        ]
        results = block_results(played, outcomes)
        record_and_rate(store, config.name, played, outcomes, results, MODEL.rate_block)
        shown = store.commitments.period_of_block(config.name, 0)
        assert shown is not None
        assert shown.recorded == index + 1
        assert (shown.commitment.seed is None) == (index == 0)

    revealed = store.commitments.period_of_block(config.name, 0)
    assert revealed is not None
    assert revealed.revealed
    assert revealed.commitment.digest == period.commitment.digest
    seed = revealed.commitment.seed
    assert seed is not None
    assert matches_commitment(revealed.commitment.digest, seed, revealed.commitment.schedule)
    # Each planned block's deal seed follows from its period's seed.
    for index in (0, 1):
        assert store.planned.planned_block(config.name, index).seed == block_seed(
            deal_seed(seed), index
        )
    later = store.commitments.period_of_block(config.name, 2)
    assert later is not None
    assert later.commitment.seed is None  # period 1 is still being played
    assert later.commitment.digest != revealed.commitment.digest
